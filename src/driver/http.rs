//! Streamable HTTP: one POST per transmission (JSON or SSE response read as its chunks arrive, its
//! event ids and `retry` reported), the `GET` resuming a response stream or opening the legacy
//! listening stream when the engine asks (it decides when to reopen or give up), and the session
//! `DELETE`. `io.js` moves the bytes ([`Io`]); what it reports comes back through [`report`], and
//! [`crate::bridge::exchange`] says what it means.
//! A pending POST's stream is closed only on [`Output::Abort`](crate::engine::api::Output::Abort)
//! or `close()`: closing a modern response stream cancels the request on the server.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::global::{self, describe};
#[cfg(feature = "oauth")]
use super::headers::NoHeaders;
use super::io::{self, report, Io};
use super::Driver;
use crate::bridge::exchange::{self, Chunk, Exchanges, Request, DELETE};
use crate::engine::api::{Input, SendKey, Transmit, TransportError};

/// HTTP transport state: what runs once the session `DELETE` ended is `close()` going on.
pub type Http = Exchanges<Box<dyn FnOnce()>>;

fn js_key(key: SendKey) -> f64 {
    key.0 as f64
}

/// Aborts an exchange (on the engine's request, or as it fails); its inputs stop. Whether it was
/// in flight.
pub fn abort(http: &mut Http, io: &Io, key: SendKey) -> bool {
    let live = http.remove(key);
    if live {
        io.abort(js_key(key));
    }
    live
}

/// Aborts every exchange (not the session `DELETE`).
pub fn abort_all(http: &mut Http, io: &Io) {
    http.remove_all(|key| io.abort(js_key(key)));
}

/// The `DELETE` answered, failed or ran out of time: `close()` goes on, with no borrow of the
/// driver held.
fn delete_finished(d: &Driver) {
    let then = d.with(|st| {
        st.io.abort(js_key(DELETE));
        st.http.delete_ended()
    });
    if let Some(then) = then {
        d.closed(then);
    }
}

/// Fires the transport's own deadline (the `DELETE` grace).
pub fn on_timer(d: &Driver, now: u64) {
    if d.with(|st| st.http.next_deadline().is_some_and(|t| t <= now)) {
        delete_finished(d);
    }
}

/// Why a request has no headers, as its exchange's failure.
#[cfg(feature = "oauth")]
fn no_headers(no: NoHeaders) -> TransportError {
    TransportError {
        unauthorized: no.unauthorized,
        ..TransportError::network(no.message)
    }
}

#[cfg(not(feature = "oauth"))]
fn no_headers(message: String) -> TransportError {
    TransportError::network(message)
}

/// Starts one POST. Its fate comes back as `Head`, `Message`s, then `Ended` (or `Failed`).
pub fn post(d: &Driver, t: Transmit) {
    start(d, t.key, Request::Post(t));
}

/// Resumes a request's response stream: `GET` with `Last-Event-ID`, reported under `key` like a POST.
pub fn resume(d: &Driver, key: SendKey, headers: Vec<(String, String)>, last_event_id: String) {
    let last_event_id = Some(last_event_id);
    let get = Request::Get {
        headers,
        last_event_id,
        listening: false,
    };
    start(d, key, get);
}

/// Opens the listening stream (`GET`), reported under `key`; its messages come with no `via`.
pub fn listen(
    d: &Driver,
    key: SendKey,
    headers: Vec<(String, String)>,
    last_event_id: Option<String>,
) {
    let get = Request::Get {
        headers,
        last_event_id,
        listening: true,
    };
    start(d, key, get);
}

fn start(d: &Driver, key: SendKey, req: Request) {
    d.with(|st| {
        if key == DELETE {
            st.io.abort(js_key(DELETE));
        }
        st.http.start(key, &req, global::now());
    });
    let to = d.clone();
    // The method is for a DPoP proof: only the full build signs them.
    #[cfg(feature = "oauth")]
    let method = req.method();
    #[cfg(not(feature = "oauth"))]
    let method = "";
    d.0.headers.resolve_with(
        method,
        Box::new(move |auth| match auth {
            Ok(auth) => send(&to, key, req, auth),
            Err(no) => fail(&to, key, no_headers(no)),
        }),
    );
}

/// Completes the request's name/value pairs for `io.js`: after the caller's (auth) headers in
/// `pairs`, the engine's `headers`, then the `fixed` ones, each set over the previous. Returns how
/// many pairs are not fixed.
fn add_pairs(pairs: &Array, headers: &[(String, String)], fixed: &[(&str, &str)]) -> u32 {
    let own = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    for (k, v) in own.chain(fixed.iter().copied()) {
        pairs.push(&JsValue::from_str(k));
        pairs.push(&JsValue::from_str(v));
    }
    pairs.length() / 2 - fixed.len() as u32
}

/// Hands the exchange to `io.js` once its headers are known. The request's body and headers are
/// dropped once `io.js` holds them: an open request keeps no copy of what it sent in wasm memory
/// while it waits for its answer.
fn send(d: &Driver, key: SendKey, req: Request, pairs: Array) {
    #[cfg(feature = "oauth")]
    d.with(|st| {
        let used = super::headers::value_of(&pairs, "authorization");
        st.http.set_used(key, used);
    });
    let parts = req.parts();
    let own = add_pairs(&pairs, parts.headers, parts.fixed());
    let body = parts.body.map_or(JsValue::UNDEFINED, JsValue::from_str);
    let method = req.method();
    let background = matches!(&req, Request::Post(t) if t.background);
    drop(req);
    let refused = d.with(|st| {
        // The session `DELETE` goes even once its grace is over.
        let live = key == DELETE || st.http.live(key);
        live.then(|| (st.io).fetch(js_key(key), &st.url, method, &pairs, &body, background))
    });
    drop(body);
    // Started, or aborted (the client closed) while the headers were resolved.
    let Some(refused) = refused.filter(|r| !r.is_undefined()) else {
        return;
    };
    let refused: Array = refused.unchecked_into();
    let why = describe(&refused.get(1));
    let at = refused.get(0).as_f64().unwrap_or(-1.0);
    let name_at = |at: u32| pairs.get(2 * at).as_string().unwrap_or_default();
    let message = exchange::refused(at, own, name_at, why);
    fail(d, key, TransportError::network(message));
}

/// What `io.js` reported about an exchange or the session `DELETE`.
pub fn report(d: &Driver, kind: u32, key: f64, v: JsValue) {
    let key = SendKey(key as u64);
    if key == DELETE {
        // Its answer (or failure) is all `close()` waits for.
        return delete_over(d);
    }
    match kind {
        report::HEAD => head(d, key, v),
        report::CHUNK => chunk(d, key, v.unchecked_into::<Uint8Array>().to_vec()),
        report::END => end(d, key),
        report::FETCH_FAILED => fail(
            d,
            key,
            TransportError {
                unreached: true,
                ..TransportError::network(describe(&v))
            },
        ),
        report::READ_FAILED => fail(d, key, TransportError::network(describe(&v))),
        report::NOT_BYTES => fail(
            d,
            key,
            TransportError::network("response body yielded a non-byte chunk"),
        ),
        _ => {}
    }
}

fn head(d: &Driver, key: SendKey, res: JsValue) {
    #[cfg(feature = "oauth")]
    {
        let status = io::status(&res);
        if let (401 | 403, Some(shell)) = (status, d.0.headers.auth()) {
            let used = d.with(|st| st.http.used(key));
            let d = d.clone();
            super::spawn(async move {
                let challenge = io::header(&res, "www-authenticate");
                let nonce = io::header(&res, "dpop-nonce");
                shell
                    .challenged(
                        status,
                        challenge.as_deref(),
                        nonce.as_deref(),
                        used.as_deref(),
                    )
                    .await;
                answered(&d, key, &res);
            });
            return;
        }
    }
    answered(d, key, &res);
}

/// Feeds the head, then reads the body (or fails a listening stream that is not one).
fn answered(d: &Driver, key: SendKey, res: &JsValue) {
    if !d.with(|st| st.http.live(key)) {
        return;
    }
    let status = io::status(res);
    let header = |name: &str| io::header(res, name);
    d.feed(exchange::head_input(
        key,
        status,
        header,
        global::now(),
        js_sys::Date::parse,
    ));
    let content_type = io::header(res, "content-type");
    let read = d.with(|st| {
        let read = st
            .http
            .body(key, status, content_type.as_deref(), st.max_body);
        if read == Ok(true) {
            st.io.read(js_key(key));
        }
        read
    });
    if let Err(error) = read {
        fail(d, key, error);
    }
}

/// Adds a chunk to a whole body (bounded), or feeds an SSE body's messages and its position
/// (last event id, `retry`) as it moves.
fn chunk(d: &Driver, key: SendKey, bytes: Vec<u8>) {
    let mut events = match d.with(|st| st.http.chunk(key, bytes, st.max_body)) {
        Chunk::Nothing => return,
        Chunk::Failed(error) => return fail(d, key, error),
        Chunk::Events(events) => events,
    };
    if let Some(cursor) = events.cursor.take() {
        d.feed(cursor);
    }
    for ev in std::mem::take(&mut events.events) {
        // The exchange is live until an input fed here makes the engine abort it.
        if !d.with(|st| st.http.live(key)) {
            return;
        }
        if let Some(message) = events.message(ev) {
            d.feed(message);
        }
    }
    if let Some(error) = events.error {
        fail(d, key, error);
    }
}

/// The body ended: a whole body's message, then `Ended`.
fn end(d: &Driver, key: SendKey) {
    let Some(message) = d.with(|st| st.http.end(key)) else {
        return;
    };
    if let Some(message) = message {
        d.feed(message);
    }
    if d.with(|st| st.http.remove(key)) {
        d.feed(Input::Ended { key });
    }
}

/// Ends a live exchange with `Failed` (and stops its I/O); the session `DELETE` is over.
fn fail(d: &Driver, key: SendKey, error: TransportError) {
    if key == DELETE {
        return delete_over(d);
    }
    if d.with(|st| abort(&mut st.http, &st.io, key)) {
        d.feed(Input::Failed { key, error });
    }
}

/// Ends the session: sends `DELETE` (405 is fine; the result is ignored). `close()` waits for it
/// at most [`exchange::DELETE_GRACE_MS`].
pub fn end_session(d: &Driver, headers: Vec<(String, String)>) {
    start(d, DELETE, Request::Delete(headers));
}

/// The session `DELETE` answered or failed.
fn delete_over(d: &Driver) {
    delete_finished(d);
    d.rearm();
}
