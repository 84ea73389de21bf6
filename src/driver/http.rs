//! Streamable HTTP: one POST per transmission (JSON or SSE response read incrementally, its event
//! ids and `retry` reported), the `GET` resuming a response stream or opening the legacy listening
//! stream when the engine asks (it decides when to reopen or give up), and the session `DELETE`.
//! A pending POST's stream is closed only on [`Output::Abort`](crate::engine::api::Output::Abort)
//! or `close()`: closing a modern response stream cancels the request on the server.

use crate::engine::idmap::IdMap;

use futures::channel::oneshot;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, Headers, Response};

use super::body::{self, BodyReader, Framing};
use super::global::{self, describe};
use super::headers::{retry_after_ms, HeaderSource};
use super::Driver;
use crate::engine::api::{Input, SendKey, Transmit, TransportError};
use crate::protocol::sse::{SseDecoder, SseError, SseEvent};

/// How long `close()` waits for the session `DELETE`.
const DELETE_GRACE_MS: u64 = 3_000;

/// HTTP transport state.
#[derive(Default)]
pub struct Http {
    inflight: IdMap<SendKey, AbortController>,
    delete: Option<AbortController>,
    delete_deadline: Option<u64>,
    pub delete_done: Option<oneshot::Receiver<()>>,
}

impl Http {
    /// Aborts a transmission's response stream on the engine's request; its inputs stop.
    pub fn abort(&mut self, key: SendKey) {
        if let Some(c) = self.inflight.remove(&key) {
            c.abort();
        }
    }

    /// Aborts every exchange (not the session `DELETE`).
    pub fn abort_all(&mut self) {
        for (_, c) in std::mem::take(&mut self.inflight) {
            c.abort();
        }
    }

    /// The earliest deadline the HTTP transport itself needs the timer for.
    pub fn next_deadline(&self) -> Option<u64> {
        self.delete_deadline
    }

    fn live(&self, key: SendKey) -> bool {
        self.inflight.contains_key(&key)
    }
}

/// Fires the transport's own deadline (the `DELETE` grace).
pub fn on_timer(d: &Driver, now: u64) {
    d.with(|st| {
        if st.http.delete_deadline.is_some_and(|t| t <= now) {
            st.http.delete_deadline = None;
            if let Some(c) = st.http.delete.take() {
                c.abort();
            }
        }
    });
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

/// Why an exchange failed: a message, whether a message exceeded the size limit, and the status
/// of an answer that was not the event stream asked for.
struct Fail {
    message: String,
    over_limit: bool,
    http_status: Option<u16>,
}

impl From<String> for Fail {
    fn from(message: String) -> Self {
        Fail {
            message,
            over_limit: false,
            http_status: None,
        }
    }
}

fn params(d: &Driver) -> (String, HeaderSource, usize) {
    d.with(|st| (st.url.clone(), st.headers.clone(), st.max_body))
}

/// What one exchange sends: a message (`POST`), or a `GET` for an event stream: a response
/// stream's resumption, or the listening stream (`listening`: its messages belong to no request).
enum Request {
    Post(Transmit),
    Get {
        headers: Vec<(String, String)>,
        last_event_id: Option<String>,
        listening: bool,
    },
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
    let result = exchange(&d, key, req, &ctrl).await;
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
                http_status: fail.http_status,
                ..TransportError::network(fail.message)
            },
        },
    });
}

/// The request's body and headers are dropped once the fetch options hold them: an open request
/// keeps no copy of what it sent in wasm memory while it waits for its answer.
async fn exchange(
    d: &Driver,
    key: SendKey,
    req: Request,
    ctrl: &AbortController,
) -> Result<(), Fail> {
    let (url, source, limit) = params(d);
    let auth = source.resolve().await?;
    let listening = matches!(
        req,
        Request::Get {
            listening: true,
            ..
        }
    );
    let init = init_of(&req, &auth, ctrl)?;
    drop(req);
    let resp = fetch(&url, &init).await?;
    drop(url);
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
    let status = resp.status();
    d.feed(Input::Head {
        key,
        status,
        session_id: header(&resp, "mcp-session-id"),
        retry_after_ms: retry_after(&resp),
        www_authenticate: header(&resp, "www-authenticate"),
    });
    let framing = Framing::of(&resp);
    if listening && (!(200..300).contains(&status) || framing != Framing::Sse) {
        return Err(Fail {
            http_status: Some(status),
            ..Fail::from(format!("no event stream (HTTP {status})"))
        });
    }
    let via = (!listening).then_some(key);
    let mut reader = BodyReader::new(&resp);
    match framing {
        Framing::Whole => {
            let bytes = body::read_whole(&mut reader, limit).await?;
            if let Some(text) = body::as_message(bytes) {
                if d.with(|st| st.http.live(key)) {
                    d.feed(Input::Message { via, body: text });
                }
            }
        }
        Framing::Sse => read_events(d, key, via, &mut reader, limit).await?,
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
        Request::Get {
            headers,
            last_event_id,
            ..
        } => {
            let mut fixed = vec![("accept", "text/event-stream")];
            if let Some(id) = last_event_id {
                fixed.push(("last-event-id", id.as_str()));
            }
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

/// Feeds an SSE response's messages (as arriving `via`), and its position (last event id,
/// `retry`) as it moves.
async fn read_events(
    d: &Driver,
    key: SendKey,
    via: Option<SendKey>,
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
                d.feed(Input::Message { via, body });
            }
        }
        if let Err(e) = pushed {
            reader.cancel();
            return Err(Fail {
                over_limit: matches!(e, SseError::TooLarge { .. }),
                ..Fail::from(e.to_string())
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

/// The JSON-RPC message an SSE event carries (`message` events, or any JSON-looking data).
fn message_of(ev: SseEvent) -> Option<String> {
    (ev.event == "message" || ev.data.trim_start().starts_with('{')).then_some(ev.data)
}

/// Ends the session: sends `DELETE` (405 is fine; the result is ignored).
pub fn end_session(d: &Driver, headers: Vec<(String, String)>) {
    let Ok(ctrl) = AbortController::new() else {
        return;
    };
    let (tx, rx) = oneshot::channel();
    d.with(|st| {
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
