//! Outgoing requests: id allocation, what each request is for, queueing until the session is
//! ready, timeouts, and routing of every answer (by JSON-RPC id; by stream for id-less errors).

pub(super) mod accepted;
pub(super) mod backlog;
pub(super) mod encoded;
pub(super) mod multiplex;
pub(super) mod pending;
pub(super) mod pool;
pub(super) mod resume;
pub(super) mod routing;
pub(super) mod standalone;
pub(super) mod unreached;
pub(super) mod unreadable;

use super::ids::CallId;
use super::ids::ReqId;
use crate::protocol::dialect::{cursor_params, Codec, Outgoing};
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use encoded::Encoded;

use super::api::{ClientError, ErrorKind, InputId, Millis, OpId, Output, SendKey, Transmit};
use super::{Engine, DRAFT};

/// Why a request was sent; decides where its answer goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Era detection: a modern `server/discover`.
    Probe,
    Initialize,
    /// The original request of a call (by call number).
    Call(CallId),
    /// A status poll.
    Get(String),
    /// `tasks/result` (may block until the task ends: no timeout while the task runs).
    Result(String),
    List {
        op: OpId,
        cursor: Option<String>,
    },
    Tools {
        cursor: Option<String>,
    },
    Cancel {
        op: OpId,
        task_id: String,
    },
    /// `tasks/delete`: for the caller's operation, or (`None`) after a result was delivered.
    Delete {
        op: Option<OpId>,
        task_id: String,
    },
    /// An input answer that is itself a request (modern `tasks/update`).
    Answer(InputId),
    /// The push subscription (its response stream stays open).
    Listen,
}

impl Purpose {
    /// The caller's operation waiting on this request, if any.
    pub(crate) fn op(&self) -> Option<OpId> {
        match self {
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => Some(*op),
            Purpose::Delete { op, .. } => *op,
            _ => None,
        }
    }

    fn times_out(&self) -> bool {
        !matches!(self, Purpose::Result(_) | Purpose::Listen)
    }

    /// Its response stream may be resumed after a break (a listening stream is re-opened instead).
    pub(crate) fn resumable(&self) -> bool {
        !matches!(self, Purpose::Listen)
    }

    /// Closing the response stream is harmless (the server may treat it as a cancellation).
    pub(crate) fn abortable(&self) -> bool {
        matches!(
            self,
            Purpose::Probe | Purpose::Get(_) | Purpose::List { .. } | Purpose::Tools { .. }
        )
    }
}

/// A request's answer: its result, or why there is none (boxed: an answer moves through several
/// handlers, and a pointer moves for far less code than a whole failure).
pub(crate) type Answer = Result<crate::json::Value, Box<Failure>>;

/// Why a request did not produce a result.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// A JSON-RPC error answering the request (its id).
    Rpc(RpcError),
    /// An id-less JSON-RPC error on the request's stream: the server refused the request without
    /// processing it (bad request, overload…). Says nothing about the request's subject.
    Rejected {
        error: RpcError,
        status: Option<u16>,
        retry_after: Option<Millis>,
    },
    Transport {
        error: ClientError,
        status: Option<u16>,
        retry_after: Option<Millis>,
    },
    Timeout,
}

impl Failure {
    pub(crate) fn client_error(&self) -> ClientError {
        match self {
            Failure::Rpc(e) | Failure::Rejected { error: e, .. } => e.clone().into(),
            Failure::Transport { error, .. } => error.clone(),
            Failure::Timeout => ClientError::new(ErrorKind::Timeout, "the request timed out"),
        }
    }

    pub(crate) fn retry_after(&self) -> Option<Millis> {
        match self {
            Failure::Transport { retry_after, .. } | Failure::Rejected { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }

    /// The JSON-RPC error answering the request (not a refusal on its stream).
    pub(crate) fn answering(&self) -> Option<&RpcError> {
        match self {
            Failure::Rpc(e) => Some(e),
            _ => None,
        }
    }

    /// The JSON-RPC error, whether it answered the request or refused it.
    pub(crate) fn rpc(&self) -> Option<&RpcError> {
        match self {
            Failure::Rpc(e) | Failure::Rejected { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The HTTP status the failure came with, if any.
    pub(crate) fn http_status(&self) -> Option<u16> {
        match self {
            Failure::Transport { status, .. } | Failure::Rejected { status, .. } => *status,
            _ => None,
        }
    }

    /// The server is there but cannot serve now (HTTP 429 or 5xx): worth trying again.
    pub(crate) fn overloaded(&self) -> bool {
        self.http_status()
            .is_some_and(|s| s == 429 || (500..600).contains(&s))
    }

    /// The credentials were refused (401/403 after the one resend): says nothing of the dialect.
    pub(crate) fn unauthorized(&self) -> bool {
        matches!(self, Failure::Transport { error, .. } if error.kind == ErrorKind::Unauthorized)
    }
}
/// How long `server/discover` may go unanswered before `initialize` is tried. A server answers it
/// from what it knows, with no work to do: a live one answers within a round trip, a cold start
/// within a few seconds. A server that drops the unknown method costs the first connect this
/// much instead of the whole request timeout; a slow modern-only server loses nothing (it refuses
/// `initialize` with -32022, which means modern).
pub(crate) const PROBE_TIMEOUT_MS: Millis = 5_000;

impl Engine {
    /// Sends `p` in the ready session's dialect `codec`.
    pub(crate) fn send_ready(&mut self, now: Millis, codec: &'static dyn Codec, p: Purpose) {
        let p = match p {
            Purpose::Get(t) => return self.send_get(now, t),
            Purpose::Result(t) if !self.result_slot(&t) => return,
            other => other,
        };
        let out = {
            let si = self.session.info();
            match &p {
                Purpose::Call(c) => return self.send_call(now, *c),
                Purpose::Answer(i) => return self.send_answer(now, *i),
                Purpose::Listen => return self.send_listen(now),
                Purpose::Probe | Purpose::Initialize => return,
                Purpose::Get(_) => None,
                Purpose::Result(t) => codec.build_result(&si, t),
                Purpose::List { cursor, .. } => codec.build_list(&si, cursor.as_deref()),
                Purpose::Tools { cursor } => {
                    let params = cursor_params(cursor.as_deref());
                    Some(codec.build_request(&si, "tools/list", params, None))
                }
                Purpose::Cancel { task_id, .. } => {
                    // Only the draft's cancel names the request that created the task.
                    let origin = (self.tasks.get(task_id))
                        .and_then(|e| e.origin.filter(|_| DRAFT))
                        .map(|n| Id::Number(n.wire()));
                    Some(codec.build_cancel(&si, task_id, origin.as_ref()))
                }
                Purpose::Delete { task_id, .. } => codec.build_delete(&si, task_id),
            }
        };
        match out {
            Some(o) => {
                self.send(now, p, o);
            }
            None => self.unsupported(now, p),
        }
    }

    /// A status poll. While others wait for the browser it waits as its task's slot (see
    /// `backlog.rs`); it is encoded only once handed to the driver ([`Engine::encode_poll`]).
    fn send_get(&mut self, now: Millis, t: String) {
        if self.poll_too_soon(now, &t) {
            return;
        }
        let Some(entry) = self.tasks.get_mut(&t) else {
            return;
        };
        entry.poll.last_sent = now.into();
        let slot = entry.slot;
        if self.keeps_poll() {
            return self.pool.backlog.push_due(slot);
        }
        let tx = self.open_get(now, t);
        self.out.push_back(Output::Transmit(tx));
    }

    /// Opens a status request for task `t`: its transmission, to be encoded when handed out.
    pub(crate) fn open_get(&mut self, now: Millis, t: String) -> Transmit {
        let id = self.reqs.alloc_id();
        self.open(now, id, Purpose::Get(t), String::new(), Vec::new())
    }

    /// A transmission about to be handed to the driver, its status request encoded now when it
    /// was left unencoded. `None` when there is nothing to send: the request is over, or its
    /// session is gone (it is then sent again in the new one).
    pub(crate) fn encode_poll(&mut self, now: Millis, mut t: Transmit) -> Option<Transmit> {
        if !t.body.is_empty() {
            return Some(t);
        }
        let n = self.reqs.id_of(t.key)?;
        let p = self.reqs.get(n)?;
        if p.epoch != self.session.epoch() {
            self.session_lost(now, n);
            return None;
        }
        let (Purpose::Get(task_id), Some(codec)) = (&p.purpose, self.session.codec_any()) else {
            return Some(t);
        };
        let enc = Encoded::new(codec.build_get(&self.session.info(), task_id));
        t.body = enc.body(Some(n));
        t.headers = enc.headers;
        Some(t)
    }

    /// Transmits a request (or, when the dialect built a notification, a one-way message).
    /// Returns the JSON-RPC id of a request.
    pub(crate) fn send(&mut self, now: Millis, p: Purpose, out: Outgoing) -> Option<ReqId> {
        let mut enc = Encoded::new(out);
        let headers = std::mem::take(&mut enc.headers);
        if !enc.expects_response {
            self.transmit_one_way(enc.body(None), headers);
            self.sent_one_way(now, p);
            return None;
        }
        let id = self.reqs.alloc_id();
        let body = enc.body(Some(id));
        let tx = self.open(now, id, p, body, headers);
        self.out.push_back(Output::Transmit(tx));
        Some(id)
    }

    /// Registers a request being transmitted (pending entry, timeout): its transmission.
    fn open(
        &mut self,
        now: Millis,
        id: ReqId,
        p: Purpose,
        body: String,
        headers: Vec<(String, String)>,
    ) -> Transmit {
        let key = self.reqs.key();
        // A finished task's result answers at once: it times out like any request.
        let times_out = match &p {
            Purpose::Result(t) => self.tasks.get(t).is_some_and(|e| e.is_terminal()),
            other => other.times_out(),
        };
        let timeout = match p {
            Purpose::Probe => PROBE_TIMEOUT_MS.min(self.cfg.request_timeout_ms),
            _ => self.cfg.request_timeout_ms,
        };
        let timeout_at = times_out.then(|| now.saturating_add(timeout));
        self.on_sent(&p, id, now);
        let (epoch, sessioned) = (self.session.epoch(), self.session.session_id().is_some());
        self.reqs.open(id, p, key, (epoch, sessioned), timeout_at);
        Transmit {
            key,
            body,
            headers,
            one_way: false,
        }
    }

    /// Transmits a ready-made one-way message (a response to the server).
    pub(crate) fn send_message(
        &mut self,
        message: &Message,
        headers: Vec<(String, String)>,
    ) -> SendKey {
        self.transmit_one_way(message.encode(), headers)
    }

    /// Transmits a notification the dialect built (no purpose, no answer).
    pub(crate) fn push_one_way(&mut self, out: Outgoing) -> SendKey {
        let enc = Encoded::new(out);
        self.transmit_one_way(enc.body(None), enc.headers)
    }

    /// Transmits a one-way message (a notification or a response): its key.
    fn transmit_one_way(&mut self, body: String, headers: Vec<(String, String)>) -> SendKey {
        let key = self.reqs.key();
        self.out.push_back(Output::Transmit(Transmit {
            key,
            body,
            headers,
            one_way: true,
        }));
        key
    }

    fn on_sent(&mut self, p: &Purpose, id: ReqId, now: Millis) {
        match p {
            Purpose::Call(c) => {
                if let Some(call) = self.calls.get_mut(c) {
                    call.req = Some(id);
                }
            }
            Purpose::Result(t) => {
                if let Some(e) = self.tasks.get_mut(t) {
                    e.result.sent(id, now);
                }
            }
            _ => {}
        }
    }

    fn sent_one_way(&mut self, now: Millis, p: Purpose) {
        match p {
            // The draft's cancel is a notification.
            Purpose::Cancel { op, task_id } if DRAFT => {
                self.reply(op, Ok(crate::json::Value::Null));
                self.poll_soon(now, &task_id);
            }
            Purpose::Call(c) => self.call_failed(
                c,
                ClientError::new(
                    ErrorKind::Protocol,
                    "the request was built as a notification",
                ),
            ),
            _ => {}
        }
    }

    /// The dialect cannot build this request.
    fn unsupported(&mut self, now: Millis, p: Purpose) {
        let error = ClientError::new(
            ErrorKind::Unsupported,
            "the server's dialect has no such request",
        );
        match p {
            Purpose::Result(t) => self.result_unavailable(now, &t),
            Purpose::Delete { op: Some(op), .. } => self.reply(op, Err(self.no_delete())),
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => self.reply(op, Err(error)),
            Purpose::Tools { .. } => self.tools_failed(now, error, true),
            _ => {}
        }
    }
}
