//! Streamable HTTP exchanges as the host reports them: what each request sends besides the
//! engine's headers, what a response's head, chunks and end mean (the body's framing, its size
//! limit, an SSE stream's position, which events carry messages, a listening stream that is not
//! one), and the session `DELETE` with its grace. The driver performs the requests and feeds
//! what this returns to the engine.

use super::body::{self, Framing};
use super::retry_after::retry_after_ms;
use crate::engine::api::{Input, SendKey, Transmit, TransportError};
use crate::json::digits::decimal;
use crate::protocol::sse::{SseDecoder, SseError, SseEvent};

/// How long `close()` waits for the session `DELETE`.
pub const DELETE_GRACE_MS: u64 = 3_000;
/// The session `DELETE`'s key (exchanges go under the engine's `SendKey`s, from 0 up).
pub const DELETE: SendKey = SendKey(u64::MAX);

/// The exchanges in flight and the session `DELETE`; `T` runs once the `DELETE` ended.
pub struct Exchanges<T> {
    /// Unordered (a handful at most: a linear search).
    inflight: Vec<Exchange>,
    deleting: Option<Deleting<T>>,
}

impl<T> Default for Exchanges<T> {
    fn default() -> Self {
        Self {
            inflight: Vec::new(),
            deleting: None,
        }
    }
}

/// The session `DELETE` in flight: the end of its grace, and what runs once it ended.
struct Deleting<T> {
    until: u64,
    then: Option<T>,
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

/// What one request sends: a message (`POST`), a `GET` for an event stream (a response stream's
/// resumption, or the listening stream: `listening`, its messages belong to no request), or the
/// session `DELETE` (with these headers).
pub enum Request {
    Post(Transmit),
    Get {
        headers: Vec<(String, String)>,
        last_event_id: Option<String>,
        listening: bool,
    },
    Delete(Vec<(String, String)>),
}

impl Request {
    pub fn method(&self) -> &'static str {
        match self {
            Request::Post(_) => "POST",
            Request::Get { .. } => "GET",
            Request::Delete(_) => "DELETE",
        }
    }

    fn listening(&self) -> bool {
        matches!(
            self,
            Request::Get {
                listening: true,
                ..
            }
        )
    }

    /// What the request sends.
    #[inline]
    pub fn parts(&self) -> Parts<'_> {
        match self {
            Request::Post(t) => Parts {
                headers: &t.headers,
                fixed: [
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                ],
                fixed_len: 2,
                body: Some(&t.body),
            },
            Request::Get {
                headers,
                last_event_id,
                ..
            } => Parts {
                headers,
                fixed: [
                    ("accept", "text/event-stream"),
                    (
                        "last-event-id",
                        last_event_id.as_deref().unwrap_or_default(),
                    ),
                ],
                // `Last-Event-ID` only when resuming from an id.
                fixed_len: 1 + usize::from(last_event_id.is_some()),
                body: None,
            },
            Request::Delete(headers) => Parts {
                headers,
                fixed: [("", ""); 2],
                fixed_len: 0,
                body: None,
            },
        }
    }
}

/// What one request sends.
pub struct Parts<'a> {
    /// The engine's headers.
    pub headers: &'a [(String, String)],
    /// The first `fixed_len` of these.
    fixed: [(&'static str, &'a str); 2],
    fixed_len: usize,
    pub body: Option<&'a str>,
}

impl Parts<'_> {
    /// The headers every such request sends after the engine's (set over any of the same name).
    pub fn fixed(&self) -> &[(&'static str, &str)] {
        self.fixed.get(..self.fixed_len).unwrap_or_default()
    }
}

/// Why `io.js` refused to start a request: `at` the pair it refused (negative: no `fetch` at all;
/// from `own` on, a pair every request sends), named by `name_at`, for the reason `why`.
#[inline]
pub fn refused(at: f64, own: u32, name_at: impl FnOnce(u32) -> String, why: String) -> String {
    if at < 0.0 {
        ["fetch unavailable: ", &why].concat()
    } else if (at as u32) < own {
        ["bad header ", &name_at(at as u32), ": ", &why].concat()
    } else {
        why
    }
}

/// The engine's input for a response's head: its status and the headers the engine reads
/// (`header` looks one up by its lowercase name; `parse_date` reads an HTTP date, see
/// [`retry_after_ms`]).
#[inline]
pub fn head_input(
    key: SendKey,
    status: u16,
    header: impl Fn(&str) -> Option<String>,
    now: u64,
    parse_date: impl FnOnce(&str) -> f64,
) -> Input {
    Input::Head {
        key,
        status,
        session_id: header("mcp-session-id"),
        retry_after_ms: retry_after_ms(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            now,
            parse_date,
        ),
        www_authenticate: header("www-authenticate"),
    }
}

/// What one chunk of a response body brought.
#[derive(Debug, PartialEq)]
pub enum Chunk {
    /// Nothing to tell (no live exchange, no head yet, or a whole body still arriving).
    Nothing,
    /// The exchange fails (a whole body over the limit).
    Failed(TransportError),
    /// An SSE body moved.
    Events(Events),
}

/// What a chunk of an SSE body brought: the stream's new position, the events (each one's
/// [`message`](Events::message) fed only while the exchange is live), then why the stream cannot
/// go on.
#[derive(Debug, PartialEq)]
pub struct Events {
    /// `Input::Cursor`, when the last event id or `retry` changed.
    pub cursor: Option<Input>,
    /// The request its messages answer (`None`: the listening stream's).
    via: Option<SendKey>,
    pub events: Vec<SseEvent>,
    pub error: Option<TransportError>,
}

impl Events {
    /// The `Input::Message` an event carries (`message` events, or any JSON-looking data).
    #[inline]
    pub fn message(&self, ev: SseEvent) -> Option<Input> {
        let carries = ev.event == "message" || ev.data.trim_ascii_start().starts_with("{");
        carries.then_some(Input::Message {
            via: self.via,
            body: ev.data,
        })
    }
}

impl<T> Exchanges<T> {
    /// Starts tracking `req` under `key` (the session `DELETE`: its grace runs from `now`).
    #[inline]
    pub fn start(&mut self, key: SendKey, req: &Request, now: u64) {
        if key == DELETE {
            let until = now + DELETE_GRACE_MS;
            self.deleting = Some(Deleting { until, then: None });
        } else {
            self.inflight.push(Exchange {
                key,
                listening: req.listening(),
                body: Body::Waiting,
                #[cfg(feature = "oauth")]
                used: None,
            });
        }
    }

    #[inline]
    fn get_mut(&mut self, key: SendKey) -> Option<&mut Exchange> {
        self.inflight.iter_mut().find(|x| x.key == key)
    }

    /// Whether `key`'s exchange is in flight.
    #[inline]
    pub fn live(&self, key: SendKey) -> bool {
        self.inflight.iter().any(|x| x.key == key)
    }

    /// Forgets `key`'s exchange; whether it was in flight.
    #[inline]
    pub fn remove(&mut self, key: SendKey) -> bool {
        let at = self.inflight.iter().position(|x| x.key == key);
        at.map(|i| self.inflight.swap_remove(i)).is_some()
    }

    /// Forgets every exchange (not the session `DELETE`), telling `each` its key.
    #[inline]
    pub fn remove_all(&mut self, mut each: impl FnMut(SendKey)) {
        for x in &self.inflight {
            each(x.key);
        }
        self.inflight.clear();
    }

    /// Remembers the `Authorization` header `key`'s request sent.
    #[cfg(feature = "oauth")]
    #[inline]
    pub fn set_used(&mut self, key: SendKey, used: Option<String>) {
        if let Some(x) = self.get_mut(key) {
            x.used = used;
        }
    }

    /// The `Authorization` header `key`'s request sent.
    #[cfg(feature = "oauth")]
    #[inline]
    pub fn used(&self, key: SendKey) -> Option<String> {
        let x = self.inflight.iter().find(|x| x.key == key);
        x.and_then(|x| x.used.clone())
    }

    /// The head was fed to the engine: whether to read the body (framed as `content_type`
    /// announces, `limit` bytes per message), or why the exchange fails (a listening stream that
    /// is not an event stream). `Ok(false)`: the exchange is no longer in flight.
    #[inline]
    pub fn body(
        &mut self,
        key: SendKey,
        status: u16,
        content_type: Option<&str>,
        limit: usize,
    ) -> Result<bool, TransportError> {
        let Some(x) = self.get_mut(key) else {
            return Ok(false);
        };
        let framing = Framing::of(content_type);
        if x.listening && (!(200..300).contains(&status) || framing != Framing::Sse) {
            let message = ["no event stream (HTTP ", &decimal(status.into()), ")"].concat();
            return Err(TransportError {
                http_status: Some(status),
                ..TransportError::network(message)
            });
        }
        x.body = match framing {
            Framing::Whole => Body::Whole(Vec::new()),
            Framing::Sse => Body::Sse {
                dec: SseDecoder::with_limit(limit),
                told: (None, None),
            },
        };
        Ok(true)
    }

    /// Adds a chunk to a whole body (bounded by `limit`), or decodes an SSE body's events.
    #[inline]
    pub fn chunk(&mut self, key: SendKey, bytes: Vec<u8>, limit: usize) -> Chunk {
        let Some(x) = self.get_mut(key) else {
            return Chunk::Nothing;
        };
        let via = (!x.listening).then_some(key);
        match &mut x.body {
            Body::Waiting => Chunk::Nothing,
            Body::Whole(buf) => match body::push_whole(buf, bytes, limit) {
                Ok(()) => Chunk::Nothing,
                Err(message) => Chunk::Failed(TransportError::network(message)),
            },
            Body::Sse { dec, told } => {
                let mut events = Vec::new();
                let error = dec.push_into(&bytes, &mut events).err();
                let (id, retry) = (dec.last_event_id(), dec.retry_ms());
                let cursor = (id != told.0.as_deref() || retry != told.1).then(|| {
                    *told = (id.map(str::to_owned), retry);
                    Input::Cursor {
                        key,
                        last_event_id: told.0.clone(),
                        retry_ms: told.1,
                    }
                });
                Chunk::Events(Events {
                    cursor,
                    via,
                    events,
                    error: error.map(|e| TransportError {
                        over_limit: matches!(e, SseError::TooLarge { .. }),
                        ..TransportError::network(e.message())
                    }),
                })
            }
        }
    }

    /// The body ended: `None` when the exchange is not in flight, else the whole body's message
    /// (if any). The exchange stays in flight until [`remove`](Self::remove)d.
    #[inline]
    pub fn end(&mut self, key: SendKey) -> Option<Option<Input>> {
        let x = self.get_mut(key)?;
        let Body::Whole(bytes) = &mut x.body else {
            return Some(None);
        };
        let via = (!x.listening).then_some(key);
        let text = body::as_text(std::mem::take(bytes));
        Some(text.map(|body| Input::Message { via, body }))
    }

    /// The earliest deadline the HTTP transport itself needs the timer for.
    #[inline]
    pub fn next_deadline(&self) -> Option<u64> {
        self.deleting.as_ref().map(|x| x.until)
    }

    /// Keeps `then` to run once the session `DELETE` ended; hands it back when none is in flight.
    #[inline]
    pub fn after_delete(&mut self, then: T) -> Option<T> {
        match &mut self.deleting {
            Some(x) => {
                x.then = Some(then);
                None
            }
            None => Some(then),
        }
    }

    /// The session `DELETE` is over (answered, failed or out of time): what was to run after it.
    #[inline]
    pub fn delete_ended(&mut self) -> Option<T> {
        self.deleting.take().and_then(|x| x.then)
    }
}
