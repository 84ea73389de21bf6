//! Streamable HTTP: one POST per transmission (JSON or SSE response read as its chunks arrive, its
//! event ids and `retry` reported), the `GET` resuming a response stream or opening the legacy
//! listening stream when the engine asks (it decides when to reopen or give up), and the session
//! `DELETE`. `io.js` moves the bytes ([`Io`]); what it reports comes back through [`report`].
//! A pending POST's stream is closed only on [`Output::Abort`](crate::engine::api::Output::Abort)
//! or `close()`: closing a modern response stream cancels the request on the server.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use super::body::{self, Framing};
use super::global::{self, describe};
use super::headers::retry_after_ms;
#[cfg(feature = "oauth")]
use super::headers::NoHeaders;
use super::io::{self, report, Io};
use super::Driver;
use crate::engine::api::{Input, SendKey, Transmit, TransportError};
use crate::json::digits::decimal;
use crate::protocol::sse::{SseDecoder, SseError, SseEvent};

/// How long `close()` waits for the session `DELETE`.
const DELETE_GRACE_MS: u64 = 3_000;
/// The session `DELETE`'s key (exchanges go under the engine's `SendKey`s, from 0 up).
const DELETE: SendKey = SendKey(u64::MAX);

/// HTTP transport state.
#[derive(Default)]
pub struct Http {
    inflight: Inflight,
    deleting: Option<Deleting>,
}

/// The session `DELETE` in flight: the end of its grace, and what runs once it ended (`close()`
/// going on).
struct Deleting {
    until: u64,
    then: Option<Box<dyn FnOnce()>>,
}

/// One exchange in flight.
struct Exchange {
    key: SendKey,
    listening: bool,
    body: Body,
    /// The `Authorization` header it sent (told to the `auth` option on 401/403).
    #[cfg(feature = "oauth")]
    used: Option<String>,
}

/// The exchanges in flight, unordered (a handful at most: a linear search).
#[derive(Default)]
struct Inflight(Vec<Exchange>);

impl Inflight {
    fn get(&self, key: SendKey) -> Option<&Exchange> {
        self.0.iter().find(|x| x.key == key)
    }

    fn get_mut(&mut self, key: SendKey) -> Option<&mut Exchange> {
        self.0.iter_mut().find(|x| x.key == key)
    }

    /// Forgets `key`'s exchange; whether it was in flight.
    fn remove(&mut self, key: SendKey) -> bool {
        let at = self.0.iter().position(|x| x.key == key);
        at.map(|i| self.0.swap_remove(i)).is_some()
    }
}

/// Its response body so far.
enum Body {
    /// Before the head.
    Waiting,
    Whole(Vec<u8>),
    Sse {
        dec: SseDecoder,
        /// The last event id and `retry` told to the engine.
        told: (Option<String>, Option<u64>),
    },
}

fn js_key(key: SendKey) -> f64 {
    key.0 as f64
}

impl Http {
    /// Aborts an exchange (on the engine's request, or as it fails); its inputs stop. Whether it
    /// was in flight.
    pub fn abort(&mut self, io: &Io, key: SendKey) -> bool {
        let live = self.inflight.remove(key);
        if live {
            io.abort(js_key(key));
        }
        live
    }

    /// Aborts every exchange (not the session `DELETE`).
    pub fn abort_all(&mut self, io: &Io) {
        for x in &self.inflight.0 {
            io.abort(js_key(x.key));
        }
        self.inflight.0.clear();
    }

    /// The earliest deadline the HTTP transport itself needs the timer for.
    pub fn next_deadline(&self) -> Option<u64> {
        self.deleting.as_ref().map(|x| x.until)
    }

    /// Runs `then` once the session `DELETE` ended; hands it back when none is in flight.
    pub fn after_delete(&mut self, then: Box<dyn FnOnce()>) -> Option<Box<dyn FnOnce()>> {
        match &mut self.deleting {
            Some(x) => {
                x.then = Some(then);
                None
            }
            None => Some(then),
        }
    }

    fn live(&self, key: SendKey) -> bool {
        self.inflight.get(key).is_some()
    }
}

/// The `DELETE` answered, failed or ran out of time: `close()` goes on, with no borrow of the
/// driver held.
fn delete_finished(d: &Driver) {
    let then = d.with(|st| {
        st.io.abort(js_key(DELETE));
        st.http.deleting.take().and_then(|x| x.then)
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

/// Why an exchange failed: a message, whether a message exceeded the size limit, the status
/// of an answer that was not the event stream asked for, and whether no response came at all.
struct Fail {
    message: String,
    over_limit: bool,
    http_status: Option<u16>,
    #[cfg(feature = "oauth")]
    unauthorized: bool,
    unreached: bool,
}

impl From<String> for Fail {
    fn from(message: String) -> Self {
        Fail {
            message,
            over_limit: false,
            http_status: None,
            #[cfg(feature = "oauth")]
            unauthorized: false,
            unreached: false,
        }
    }
}

#[cfg(feature = "oauth")]
impl From<NoHeaders> for Fail {
    fn from(no: NoHeaders) -> Self {
        Fail {
            unauthorized: no.unauthorized,
            ..Fail::from(no.message)
        }
    }
}

/// What one exchange sends: a message (`POST`), a `GET` for an event stream (a response stream's
/// resumption, or the listening stream: `listening`, its messages belong to no request), or the
/// session `DELETE` (with these headers).
enum Request {
    Post(Transmit),
    Get {
        headers: Vec<(String, String)>,
        last_event_id: Option<String>,
        listening: bool,
    },
    Delete(Vec<(String, String)>),
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
    let listening = matches!(
        req,
        Request::Get {
            listening: true,
            ..
        }
    );
    d.with(|st| {
        if key == DELETE {
            st.io.abort(js_key(DELETE));
            let until = global::now() + DELETE_GRACE_MS;
            st.http.deleting = Some(Deleting { until, then: None });
        } else {
            st.http.inflight.0.push(Exchange {
                key,
                listening,
                body: Body::Waiting,
                #[cfg(feature = "oauth")]
                used: None,
            });
        }
    });
    let to = d.clone();
    // The method is for a DPoP proof: only the full build signs them.
    #[cfg(feature = "oauth")]
    let method = match req {
        Request::Post(_) => "POST",
        Request::Get { .. } => "GET",
        Request::Delete(_) => "DELETE",
    };
    #[cfg(not(feature = "oauth"))]
    let method = "";
    d.0.headers.resolve_with(
        method,
        Box::new(move |auth| match auth {
            Ok(auth) => send(&to, key, req, auth),
            Err(no) => fail(&to, key, Fail::from(no)),
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
        if let Some(x) = st.http.inflight.get_mut(key) {
            x.used = super::headers::value_of(&pairs, "authorization");
        }
    });
    let (method, own, body) = match req {
        Request::Post(t) => {
            let fixed = [
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ];
            let own = add_pairs(&pairs, &t.headers, &fixed);
            ("POST", own, JsValue::from(t.body))
        }
        Request::Get {
            headers,
            last_event_id,
            ..
        } => {
            let id = last_event_id.as_deref();
            let fixed = [
                ("accept", "text/event-stream"),
                ("last-event-id", id.unwrap_or_default()),
            ];
            // `Last-Event-ID` only when resuming from an id.
            let fixed = fixed
                .get(..1 + usize::from(id.is_some()))
                .unwrap_or_default();
            let own = add_pairs(&pairs, &headers, fixed);
            ("GET", own, JsValue::UNDEFINED)
        }
        Request::Delete(headers) => (
            "DELETE",
            add_pairs(&pairs, &headers, &[]),
            JsValue::UNDEFINED,
        ),
    };
    let refused = d.with(|st| {
        // The session `DELETE` goes even once its grace is over.
        let live = key == DELETE || st.http.live(key);
        live.then(|| st.io.fetch(js_key(key), &st.url, method, &pairs, &body))
    });
    drop(body);
    // Started, or aborted (the client closed) while the headers were resolved.
    let Some(refused) = refused.filter(|r| !r.is_undefined()) else {
        return;
    };
    let refused: Array = refused.unchecked_into();
    let why = describe(&refused.get(1));
    let at = refused.get(0).as_f64().unwrap_or(-1.0);
    let message = if at < 0.0 {
        ["fetch unavailable: ", &why].concat()
    } else if (at as u32) < own {
        let name = pairs.get(2 * at as u32).as_string().unwrap_or_default();
        ["bad header ", &name, ": ", &why].concat()
    } else {
        why
    };
    fail(d, key, Fail::from(message));
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
            Fail {
                unreached: true,
                ..Fail::from(describe(&v))
            },
        ),
        report::READ_FAILED => fail(d, key, describe(&v).into()),
        report::NOT_BYTES => fail(
            d,
            key,
            "response body yielded a non-byte chunk".to_owned().into(),
        ),
        _ => {}
    }
}

fn head(d: &Driver, key: SendKey, res: JsValue) {
    #[cfg(feature = "oauth")]
    {
        let status = io::status(&res);
        if let (401 | 403, Some(shell)) = (status, d.0.headers.auth()) {
            let used = d.with(|st| st.http.inflight.get(key).and_then(|x| x.used.clone()));
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
    let Some(listening) = d.with(|st| st.http.inflight.get(key).map(|x| x.listening)) else {
        return;
    };
    let status = io::status(res);
    d.feed(Input::Head {
        key,
        status,
        session_id: io::header(res, "mcp-session-id"),
        retry_after_ms: retry_after_ms(
            io::header(res, "retry-after-ms").as_deref(),
            io::header(res, "retry-after").as_deref(),
            global::now(),
        ),
        www_authenticate: io::header(res, "www-authenticate"),
    });
    let framing = Framing::of(io::header(res, "content-type").as_deref());
    if listening && (!(200..300).contains(&status) || framing != Framing::Sse) {
        let message = ["no event stream (HTTP ", &decimal(status.into()), ")"].concat();
        let http_status = Some(status);
        return fail(
            d,
            key,
            Fail {
                http_status,
                ..Fail::from(message)
            },
        );
    }
    d.with(|st| {
        let limit = st.max_body;
        if let Some(x) = st.http.inflight.get_mut(key) {
            x.body = match framing {
                Framing::Whole => Body::Whole(Vec::new()),
                Framing::Sse => Body::Sse {
                    dec: SseDecoder::with_limit(limit),
                    told: (None, None),
                },
            };
            st.io.read(js_key(key));
        }
    });
}

/// What one chunk of an SSE body brought.
struct Events {
    via: Option<SendKey>,
    cursor: Option<(Option<String>, Option<u64>)>,
    events: Vec<SseEvent>,
    error: Option<SseError>,
}

/// Adds a chunk to a whole body (bounded), or feeds an SSE body's messages (as arriving `via`)
/// and its position (last event id, `retry`) as it moves.
fn chunk(d: &Driver, key: SendKey, bytes: Vec<u8>) {
    let step = d.with(|st| {
        let limit = st.max_body;
        let x = st.http.inflight.get_mut(key)?;
        let via = (!x.listening).then_some(key);
        Some(match &mut x.body {
            Body::Waiting => return None,
            Body::Whole(buf) => Err(body::push_whole(buf, bytes, limit)),
            Body::Sse { dec, told } => {
                let mut events = Vec::new();
                let error = dec.push_into(&bytes, &mut events).err();
                let (id, retry) = (dec.last_event_id(), dec.retry_ms());
                let cursor = (id != told.0.as_deref() || retry != told.1).then(|| {
                    *told = (id.map(str::to_owned), retry);
                    told.clone()
                });
                Ok(Events {
                    via,
                    cursor,
                    events,
                    error,
                })
            }
        })
    });
    let sse = match step {
        None | Some(Err(Ok(()))) => return,
        Some(Err(Err(message))) => return fail(d, key, message.into()),
        Some(Ok(sse)) => sse,
    };
    // The exchange is live until an input fed here makes the engine abort it.
    let live = |d: &Driver| d.with(|st| st.http.live(key));
    if let Some((last_event_id, retry_ms)) = sse.cursor {
        d.feed(Input::Cursor {
            key,
            last_event_id,
            retry_ms,
        });
    }
    for ev in sse.events {
        if !live(d) {
            return;
        }
        if let Some(body) = message_of(ev) {
            d.feed(Input::Message { via: sse.via, body });
        }
    }
    if let Some(e) = sse.error {
        let over_limit = matches!(e, SseError::TooLarge { .. });
        fail(
            d,
            key,
            Fail {
                over_limit,
                ..Fail::from(e.message())
            },
        );
    }
}

/// The body ended: a whole body's message, then `Ended`.
fn end(d: &Driver, key: SendKey) {
    let Some((whole, listening)) = d.with(|st| {
        let x = st.http.inflight.get_mut(key)?;
        let whole = match &mut x.body {
            Body::Whole(bytes) => Some(std::mem::take(bytes)),
            _ => None,
        };
        Some((whole, x.listening))
    }) else {
        return;
    };
    if let Some(bytes) = whole {
        if let Some(text) = body::as_text(bytes) {
            let via = (!listening).then_some(key);
            d.feed(Input::Message { via, body: text });
        }
    }
    if d.with(|st| st.http.inflight.remove(key)) {
        d.feed(Input::Ended { key });
    }
}

/// Ends a live exchange with `Failed` (and stops its I/O); the session `DELETE` is over.
fn fail(d: &Driver, key: SendKey, fail: Fail) {
    if key == DELETE {
        return delete_over(d);
    }
    if d.with(|st| st.http.abort(&st.io, key)) {
        d.feed(Input::Failed {
            key,
            error: TransportError {
                over_limit: fail.over_limit,
                http_status: fail.http_status,
                #[cfg(feature = "oauth")]
                unauthorized: fail.unauthorized,
                unreached: fail.unreached,
                ..TransportError::network(fail.message)
            },
        });
    }
}

/// The JSON-RPC message an SSE event carries (`message` events, or any JSON-looking data).
fn message_of(ev: SseEvent) -> Option<String> {
    (ev.event == "message" || ev.data.trim_ascii_start().starts_with("{")).then_some(ev.data)
}

/// Ends the session: sends `DELETE` (405 is fine; the result is ignored). `close()` waits for it
/// at most [`DELETE_GRACE_MS`].
pub fn end_session(d: &Driver, headers: Vec<(String, String)>) {
    start(d, DELETE, Request::Delete(headers));
}

/// The session `DELETE` answered or failed.
fn delete_over(d: &Driver) {
    delete_finished(d);
    d.rearm();
}
