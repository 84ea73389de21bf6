//! Outgoing requests: id allocation, what each request is for, queueing until the session is
//! ready, timeouts, and routing of every answer (by JSON-RPC id; by stream for id-less errors).

pub(super) mod accepted;
pub(super) mod backlog;
pub(super) mod encoded;
pub(super) mod multiplex;
pub(super) mod pending;
pub(super) mod pool;
pub(super) mod resume;
pub(super) mod router;
pub(super) mod standalone;
pub(super) mod unreached;
pub(super) mod unreadable;

use super::ids::CallId;
use crate::json::digits::decimal;
use crate::protocol::dialect::{cursor_params, Codec, Outgoing, SessionInfo};
use crate::protocol::jsonrpc::{Id, RpcError};

use super::api::{ClientError, ErrorKind, InputId, Millis, OpId, TransportError};

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
    /// `tasks/result` of a task whose result was fetched, asked again: whether the server keeps
    /// results after answering them (`router.rs`).
    Kept(String),
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

    /// When a request for it sent `now` times out (`after`: the request timeout; `over`: a
    /// result's task is over, so it answers at once and times out like any request).
    fn timeout_at(&self, now: Millis, after: Millis, over: bool) -> Option<Millis> {
        let (times_out, timeout) = match self {
            Purpose::Result(_) => (over, after),
            Purpose::Listen => (false, after),
            Purpose::Probe => (true, PROBE_TIMEOUT_MS.min(after)),
            _ => (true, after),
        };
        times_out.then(|| now.saturating_add(timeout))
    }

    /// Its response stream may be resumed after a break (a listening stream is re-opened instead).
    fn resumable(&self) -> bool {
        !matches!(self, Purpose::Listen)
    }

    /// Closing the response stream is harmless (the server may treat it as a cancellation).
    fn abortable(&self) -> bool {
        matches!(
            self,
            Purpose::Probe | Purpose::Get(_) | Purpose::List { .. } | Purpose::Tools { .. }
        )
    }

    /// This request in dialect `codec` for session `si` (`origin`: the request that created the
    /// task a cancel names): `None` when the dialect has no such request. For the requests the
    /// dialect builds from the purpose alone (not calls, answers, polls, the handshake, `listen`).
    fn build(&self, codec: &dyn Codec, si: &SessionInfo, origin: Option<&Id>) -> Option<Outgoing> {
        match self {
            Purpose::Result(t) | Purpose::Kept(t) => codec.build_result(si, t),
            Purpose::List { cursor, .. } => codec.build_list(si, cursor.as_deref()),
            Purpose::Tools { cursor } => {
                let params = cursor_params(cursor.as_deref());
                Some(codec.build_request(si, "tools/list", params, None))
            }
            Purpose::Cancel { task_id, .. } => Some(codec.build_cancel(si, task_id, origin)),
            Purpose::Delete { task_id, .. } => codec.build_delete(si, task_id),
            _ => None,
        }
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
    /// A transport failure: `error`, with the HTTP status and `Retry-After` it came with.
    pub(crate) fn transport(
        error: ClientError,
        status: Option<u16>,
        retry_after: Option<Millis>,
    ) -> Failure {
        Failure::Transport {
            error,
            status,
            retry_after,
        }
    }

    /// A response stream that ended without its answer: `error` says how it failed (`None`: it
    /// ended cleanly), `status` is the HTTP status it had, `retry_after` its head's;
    /// `unreached` says what the runtime's word means when no response came at all.
    fn stream_ended(
        error: Option<&TransportError>,
        status: Option<u16>,
        retry_after: Option<Millis>,
        unreached: impl FnOnce(&str) -> String,
    ) -> Failure {
        let message = match (error, status) {
            (Some(e), None) if e.unreached => unreached(&e.message),
            (Some(e), _) => e.message.clone(),
            (None, Some(s)) => {
                ["HTTP ", &decimal(s.into()), " without a JSON-RPC response"].concat()
            }
            (None, None) => "the response stream ended without a response".to_owned(),
        };
        #[cfg(feature = "oauth")]
        let kind = match error.is_some_and(|e| e.unauthorized) {
            true => ErrorKind::Unauthorized,
            false => ErrorKind::Transport,
        };
        #[cfg(not(feature = "oauth"))]
        let kind = ErrorKind::Transport;
        let mut client = ClientError::new(kind, message);
        client.http_status = status;
        let retry_after = error.and_then(|e| e.retry_after_ms).or(retry_after);
        Failure::transport(client, status, retry_after)
    }

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
