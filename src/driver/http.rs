//! Streamable HTTP: one POST per transmission (JSON or SSE response read incrementally, its event
//! ids and `retry` reported), the `GET` resuming a response stream when the engine asks, the legacy
//! GET listening stream with `retry`/`Last-Event-ID` resumption, and the session `DELETE`.
//! A pending POST's stream is closed only on [`Output::Abort`](crate::engine::api::Output::Abort)
//! or `close()`: closing a modern response stream cancels the request on the server.

use std::collections::HashMap;

use crate::engine::hash::IdHash;

use futures::channel::oneshot;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, Headers, Response};

use super::body::{self, BodyReader, Framing};
use super::global::{self, describe};
use super::headers::{retry_after_ms, HeaderSource};
use super::{backoff, Driver};
use crate::engine::api::{Input, SendKey, Transmit, TransportError};
use crate::protocol::sse::{SseDecoder, SseError, SseEvent};

/// How long `close()` waits for the session `DELETE`.
const DELETE_GRACE_MS: u64 = 3_000;

/// HTTP transport state.
#[derive(Default)]
pub struct Http {
    inflight: HashMap<SendKey, AbortController, IdHash>,
    listen: Listen,
    delete: Option<AbortController>,
    delete_deadline: Option<u64>,
    pub delete_done: Option<oneshot::Receiver<()>>,
}

/// The legacy GET listening stream.
#[derive(Default)]
struct Listen {
    /// The session's headers while listening is wanted.
    headers: Option<Vec<(String, String)>>,
    generation: u64,
    running: Option<AbortController>,
    last_event_id: Option<String>,
    /// The server's SSE `retry:` value.
    retry_ms: Option<u64>,
    attempt: u32,
    retry_at: Option<u64>,
    /// The server refused a listening stream for this session (405, 4xx, not SSE).
    refused: bool,
}

impl Http {
    /// Aborts a transmission's response stream on the engine's request; its inputs stop.
    pub fn abort(&mut self, key: SendKey) {
        if let Some(c) = self.inflight.remove(&key) {
            c.abort();
        }
    }

    /// Aborts every POST and the listening stream (not the session `DELETE`).
    pub fn abort_all(&mut self) {
        for (_, c) in self.inflight.drain() {
            c.abort();
        }
        self.listen.headers = None;
        self.listen.retry_at = None;
        self.listen.generation += 1;
        if let Some(c) = self.listen.running.take() {
            c.abort();
        }
    }

    /// The earliest deadline the HTTP transport itself needs the timer for.
    pub fn next_deadline(&self) -> Option<u64> {
        match (self.listen.retry_at, self.delete_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn live(&self, key: SendKey) -> bool {
        self.inflight.contains_key(&key)
    }
}

/// Fires the transport's own deadlines (listen retry, `DELETE` grace).
pub fn on_timer(d: &Driver, now: u64) {
    let (restart, gen) = d.with(|st| {
        let l = &mut st.http.listen;
        let due = l.retry_at.is_some_and(|t| t <= now);
        if due {
            l.retry_at = None;
        }
        if st.http.delete_deadline.is_some_and(|t| t <= now) {
            st.http.delete_deadline = None;
            if let Some(c) = st.http.delete.take() {
                c.abort();
            }
        }
        (
            due && !st.closed && st.http.listen.headers.is_some(),
            st.http.listen.generation,
        )
    });
    if restart {
        spawn_local(listen_once(d.clone(), gen));
    }
}

fn build_headers(
    auth: &[(String, String)],
    engine: &[(String, String)],
    fixed: &[(&str, &str)],
) -> Result<Headers, String> {
    let h = Headers::new().map_err(|e| describe(&e))?;
    for (k, v) in auth.iter().chain(engine.iter()) {
        h.set(k, v)
            .map_err(|e| format!("bad header {k}: {}", describe(&e)))?;
    }
    for (k, v) in fixed {
        h.set(k, v).map_err(|e| describe(&e))?;
    }
    Ok(h)
}

fn request_init(
    method: &str,
    headers: &Headers,
    body: Option<&str>,
    ctrl: &AbortController,
) -> JsValue {
    let init = Object::new();
    let _ = Reflect::set(&init, &"method".into(), &method.into());
    let _ = Reflect::set(&init, &"headers".into(), headers);
    if let Some(b) = body {
        let _ = Reflect::set(&init, &"body".into(), &b.into());
    }
    let _ = Reflect::set(&init, &"signal".into(), &ctrl.signal());
    init.into()
}

/// Why an exchange failed: a message, and whether a message exceeded the size limit.
struct Fail {
    message: String,
    over_limit: bool,
}

impl From<String> for Fail {
    fn from(message: String) -> Self {
        Fail {
            message,
            over_limit: false,
        }
    }
}

fn params(d: &Driver) -> (String, HeaderSource, usize) {
    d.with(|st| (st.url.clone(), st.headers.clone(), st.max_body))
}

/// What one exchange sends: a message (`POST`), or a resumption of a response stream (`GET`).
enum Request {
    Post(Transmit),
    Resume {
        headers: Vec<(String, String)>,
        last_event_id: String,
    },
}

/// Starts one POST. Its fate comes back as `Head`, `Message`s, then `Ended` (or `Failed`).
pub fn post(d: &Driver, t: Transmit) {
    start(d, t.key, Request::Post(t));
}

/// Resumes a request's response stream: `GET` with `Last-Event-ID`, reported under `key` like a POST.
pub fn resume(d: &Driver, key: SendKey, headers: Vec<(String, String)>, last_event_id: String) {
    start(
        d,
        key,
        Request::Resume {
            headers,
            last_event_id,
        },
    );
}

fn start(d: &Driver, key: SendKey, req: Request) {
    let Ok(ctrl) = AbortController::new() else {
        d.defer(Input::Failed {
            key,
            error: TransportError::network("AbortController unavailable"),
        });
        return;
    };
    d.with(|st| st.http.inflight.insert(key, ctrl.clone()));
    spawn_local(run(d.clone(), key, req, ctrl));
}

async fn run(d: Driver, key: SendKey, req: Request, ctrl: AbortController) {
    let result = exchange(&d, key, &req, &ctrl).await;
    let live = d.with(|st| st.http.inflight.remove(&key).is_some());
    if !live {
        return; // aborted on request, or the client closed
    }
    d.feed(match result {
        Ok(()) => Input::Ended { key },
        Err(fail) => Input::Failed {
            key,
            error: TransportError {
                over_limit: fail.over_limit,
                ..TransportError::network(fail.message)
            },
        },
    });
}

async fn exchange(
    d: &Driver,
    key: SendKey,
    req: &Request,
    ctrl: &AbortController,
) -> Result<(), Fail> {
    let (url, source, limit) = params(d);
    let auth = source.resolve().await?;
    let init = init_of(req, &auth, ctrl)?;
    let resp = fetch(&url, &init).await?;
    #[cfg(feature = "oauth")]
    if let (401 | 403, Some(shell)) = (resp.status(), source.auth()) {
        let used = auth
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| v.as_str());
        let challenge = header(&resp, "www-authenticate");
        shell
            .challenged(resp.status(), challenge.as_deref(), used)
            .await;
    }
    if !d.with(|st| st.http.live(key)) {
        return Ok(());
    }
    d.feed(Input::Head {
        key,
        status: resp.status(),
        session_id: header(&resp, "mcp-session-id"),
        retry_after_ms: retry_after(&resp),
        www_authenticate: header(&resp, "www-authenticate"),
    });
    let mut reader = BodyReader::new(&resp);
    match Framing::of(&resp) {
        Framing::Whole => {
            let bytes = body::read_whole(&mut reader, limit).await?;
            if let Some(text) = body::as_message(&bytes) {
                if d.with(|st| st.http.live(key)) {
                    d.feed(Input::Message {
                        via: Some(key),
                        body: text,
                    });
                }
            }
        }
        Framing::Sse => read_events(d, key, &mut reader, limit).await?,
    }
    Ok(())
}

/// The `fetch` options of one exchange: a `POST` of the message, or the `GET` resuming a
/// response stream.
fn init_of(
    req: &Request,
    auth: &[(String, String)],
    ctrl: &AbortController,
) -> Result<JsValue, Fail> {
    Ok(match req {
        Request::Post(t) => {
            let fixed = [
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ];
            let headers = build_headers(auth, &t.headers, &fixed)?;
            request_init("POST", &headers, Some(&t.body), ctrl)
        }
        Request::Resume {
            headers,
            last_event_id,
        } => {
            let fixed = [
                ("accept", "text/event-stream"),
                ("last-event-id", last_event_id.as_str()),
            ];
            let headers = build_headers(auth, headers, &fixed)?;
            request_init("GET", &headers, None, ctrl)
        }
    })
}

/// A response header's value.
fn header(resp: &Response, name: &str) -> Option<String> {
    resp.headers().get(name).ok().flatten()
}

/// How long the server asked to wait (`Retry-After-Ms`, else `Retry-After`).
fn retry_after(resp: &Response) -> Option<u64> {
    retry_after_ms(
        header(resp, "retry-after-ms").as_deref(),
        header(resp, "retry-after").as_deref(),
        global::now(),
    )
}

/// Feeds an SSE response's messages, and its position (last event id, `retry`) as it moves.
async fn read_events(
    d: &Driver,
    key: SendKey,
    reader: &mut BodyReader,
    limit: usize,
) -> Result<(), Fail> {
    let mut dec = SseDecoder::with_limit(limit);
    let mut events = Vec::new();
    let mut told: (Option<String>, Option<u64>) = (None, None);
    while let Some(chunk) = reader.next().await? {
        let pushed = dec.push_into(&chunk, &mut events);
        if !d.with(|st| st.http.live(key)) {
            return Ok(());
        }
        let now = (dec.last_event_id().map(str::to_owned), dec.retry_ms());
        if now != told {
            told = now.clone();
            d.feed(Input::Cursor {
                key,
                last_event_id: now.0,
                retry_ms: now.1,
            });
        }
        for ev in events.drain(..) {
            if !d.with(|st| st.http.live(key)) {
                return Ok(());
            }
            if let Some(body) = message_of(ev) {
                d.feed(Input::Message {
                    via: Some(key),
                    body,
                });
            }
        }
        if let Err(e) = pushed {
            reader.cancel();
            return Err(Fail {
                message: e.to_string(),
                over_limit: matches!(e, SseError::TooLarge { .. }),
            });
        }
    }
    Ok(())
}

async fn fetch(url: &str, init: &JsValue) -> Result<Response, String> {
    let p = global::fetch(url, init).map_err(|e| format!("fetch unavailable: {}", describe(&e)))?;
    let v = JsFuture::from(p)
        .await
        .map_err(|e| format!("fetch failed: {}", describe(&e)))?;
    Ok(v.unchecked_into::<Response>())
}

/// Wants the GET listening stream open with these (session) headers.
pub fn listen(d: &Driver, headers: Vec<(String, String)>, last_event_id: Option<String>) {
    let start = d.with(|st| {
        let l = &mut st.http.listen;
        if l.headers.as_ref() != Some(&headers) {
            if let Some(c) = l.running.take() {
                c.abort();
            }
            l.generation += 1;
            l.headers = Some(headers);
            l.refused = false;
            l.attempt = 0;
            l.retry_at = None;
            l.retry_ms = None;
            l.last_event_id = last_event_id;
            Some(l.generation)
        } else if l.running.is_none() && l.retry_at.is_none() && !l.refused {
            if l.last_event_id.is_none() {
                l.last_event_id = last_event_id;
            }
            Some(l.generation)
        } else {
            None
        }
    });
    if let Some(gen) = start {
        spawn_local(listen_once(d.clone(), gen));
    }
}

/// What to do after one listening attempt.
enum After {
    Retry(Option<u64>),
    Stop,
}

async fn listen_once(d: Driver, gen: u64) {
    let Ok(ctrl) = AbortController::new() else {
        return;
    };
    let Some((headers, last_id)) = d.with(|st| {
        let l = &mut st.http.listen;
        if l.generation != gen || st.closed {
            return None;
        }
        l.running = Some(ctrl.clone());
        l.headers.clone().map(|h| (h, l.last_event_id.clone()))
    }) else {
        return;
    };
    let after = listen_body(&d, gen, &ctrl, &headers, last_id).await;
    let now = global::now();
    d.with(|st| {
        if st.http.listen.generation != gen || st.closed {
            return;
        }
        let delay = match after {
            After::Stop => {
                st.http.listen.refused = true;
                None
            }
            After::Retry(asked) => {
                let l = &mut st.http.listen;
                let d = backoff::reconnect_delay(asked.or(l.retry_ms), l.attempt, &mut st.rng);
                l.attempt = l.attempt.saturating_add(1);
                Some(d)
            }
        };
        let l = &mut st.http.listen;
        l.running = None;
        l.retry_at = delay.map(|d| now + d);
    });
    d.rearm();
}

async fn listen_body(
    d: &Driver,
    gen: u64,
    ctrl: &AbortController,
    headers: &[(String, String)],
    last_id: Option<String>,
) -> After {
    let (url, source, limit) = params(d);
    let Ok(auth) = source.resolve().await else {
        return After::Retry(None);
    };
    let mut fixed = vec![("accept", "text/event-stream")];
    if let Some(id) = last_id.as_deref() {
        fixed.push(("last-event-id", id));
    }
    let Ok(h) = build_headers(&auth, headers, &fixed) else {
        return After::Stop;
    };
    let init = request_init("GET", &h, None, ctrl);
    let Ok(resp) = fetch(&url, &init).await else {
        return After::Retry(None);
    };
    let status = resp.status();
    if status == 429 || status >= 500 {
        return After::Retry(retry_after(&resp));
    }
    if !(200..300).contains(&status) || Framing::of(&resp) != Framing::Sse {
        return After::Stop;
    }
    listen_events(d, gen, &resp, limit).await
}

/// Feeds the listening stream's messages until it ends, keeping its position for resumption.
async fn listen_events(d: &Driver, gen: u64, resp: &Response, limit: usize) -> After {
    let mut reader = BodyReader::new(resp);
    let mut dec = SseDecoder::with_limit(limit);
    let mut events = Vec::new();
    loop {
        let chunk = match reader.next().await {
            Ok(Some(c)) => c,
            Ok(None) | Err(_) => return After::Retry(None),
        };
        let pushed = dec.push_into(&chunk, &mut events);
        if !listen_moved(d, gen, &dec, !events.is_empty()) {
            return After::Stop;
        }
        for ev in events.drain(..) {
            if let Some(body) = message_of(ev) {
                d.feed(Input::Message { via: None, body });
            }
        }
        if pushed.is_err() {
            reader.cancel();
            return After::Retry(None);
        }
    }
}

/// Records the listening stream's position (last event id, `retry`); events reset the retry
/// count. `false` when a newer stream took its place.
fn listen_moved(d: &Driver, gen: u64, dec: &SseDecoder, had_events: bool) -> bool {
    d.with(|st| {
        let l = &mut st.http.listen;
        if l.generation != gen {
            return false;
        }
        if had_events {
            l.attempt = 0;
        }
        if let Some(id) = dec.last_event_id() {
            l.last_event_id = Some(id.to_owned());
        }
        if let Some(r) = dec.retry_ms() {
            l.retry_ms = Some(r);
        }
        true
    })
}

/// The JSON-RPC message an SSE event carries (`message` events, or any JSON-looking data).
fn message_of(ev: SseEvent) -> Option<String> {
    (ev.event == "message" || ev.data.trim_start().starts_with('{')).then_some(ev.data)
}

/// Ends the session: stops listening and sends `DELETE` (405 is fine; the result is ignored).
pub fn end_session(d: &Driver, headers: Vec<(String, String)>) {
    let Ok(ctrl) = AbortController::new() else {
        return;
    };
    let (tx, rx) = oneshot::channel();
    d.with(|st| {
        let l = &mut st.http.listen;
        l.headers = None;
        l.retry_at = None;
        l.last_event_id = None;
        l.generation += 1;
        if let Some(c) = l.running.take() {
            c.abort();
        }
        if let Some(old) = st.http.delete.replace(ctrl.clone()) {
            old.abort();
        }
        st.http.delete_deadline = Some(global::now() + DELETE_GRACE_MS);
        st.http.delete_done = Some(rx);
    });
    let d = d.clone();
    spawn_local(async move {
        let (url, source, _) = params(&d);
        if let Ok(auth) = source.resolve().await {
            if let Ok(h) = build_headers(&auth, &headers, &[]) {
                let _ = fetch(&url, &request_init("DELETE", &h, None, &ctrl)).await;
            }
        }
        d.with(|st| {
            st.http.delete_deadline = None;
            st.http.delete = None;
        });
        let _ = tx.send(());
        d.rearm();
    });
}
