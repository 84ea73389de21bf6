//! The engine's inputs and outputs (the str0m pattern): the driver feeds [`Input`]s and user
//! operations in, then drains [`Output`]s until it gets [`Output::Wake`], and sleeps until then.
//! Time is a plain `u64` of milliseconds since the Unix epoch, always passed in.

use crate::json::Value;
use serde::{Deserialize, Serialize};

use crate::protocol::auth::AuthChallenge;
use crate::protocol::dialect::ProtocolError;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, InputRequest, Outcome, Task};

/// The method of an [`Event::Input`] that withdraws the earlier input with the same id
/// (`params.reason` says why: `cancelled`, `expired`, …).
pub const INPUT_WITHDRAWN: &str = "notifications/cancelled";

/// Milliseconds since the Unix epoch, supplied by the caller.
pub type Millis = u64;

/// Handle of one subscription to one task (a JS `TaskHandle`, a watcher, a `listTasks` caller…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SubId(pub u64);

/// Handle of a one-shot operation (plain request, list, cancel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OpId(pub u64);

/// Handle of one outgoing transmission; the driver reports its fate under this key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SendKey(pub u64);

/// Handle of one input request surfaced to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InputId(pub u64);

/// Which dialect to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialectChoice {
    /// Negotiate by evidence: the era in which the server offers tasks (see `negotiate.rs`).
    #[default]
    Auto,
    Modern,
    Legacy,
    Draft,
}

/// Engine configuration; every field has a sensible default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    pub dialect: DialectChoice,
    pub client_name: String,
    pub client_version: String,
    /// Largest message accepted from the server, in bytes.
    pub max_message_bytes: usize,
    /// How long a finished task's result stays retrievable after its last subscriber leaves.
    pub result_gc_ms: u64,
    /// Timeout for one request before it counts as failed.
    pub request_timeout_ms: u64,
    /// The client capabilities declared to the server (what the host can answer: elicitation,
    /// sampling, roots). The modern dialect adds the tasks extension itself.
    pub client_capabilities: Value,
    /// What carries the requests, which sets how many `tasks/result` may be held open at once.
    pub link: Link,
    /// `Http1` is only assumed: the browser did not tell which HTTP version reaches the server
    /// (another origin without `Timing-Allow-Origin`). Answers proving more requests in flight
    /// at once than HTTP/1.1 allows switch the link to `Http2` (see `engine::multiplex`).
    pub link_unseen: bool,
    /// Overrides the link's budget of `tasks/result` requests held open while their tasks still
    /// run (at least 1).
    pub max_blocking_results: Option<usize>,
    /// How a polled task's gap between status requests evolves while the page is visible.
    pub cadence: Cadence,
    /// The era an earlier `Auto` negotiation with this server settled on (the host caches
    /// [`Event::Connected`]'s dialect). `Legacy` skips the `server/discover` probe (`initialize`
    /// first); `Modern` takes a well-formed discover answer as final. A wrong hint costs one
    /// failed attempt, then the full negotiation runs. Ignored unless `dialect` is `Auto`.
    pub known_era: Option<Dialect>,
    /// Subscribe to status pushes where the dialect needs a subscription (modern
    /// `subscriptions/listen`). Off: polling alone, for a server known not to push.
    pub subscribe: bool,
    /// Delete every task once its result was delivered, where the dialect can (draft
    /// `tasks/delete`); elsewhere it does nothing. The per-call option refuses instead.
    pub delete_on_done: bool,
    /// The server's endpoint, named in errors about requests that got no response.
    pub url: String,
    /// The credentials may differ from one request to the next (a header provider asked before
    /// each one, or OAuth): a request refused with 401 is sent once more. Otherwise the same
    /// credentials would be refused again, and the first refusal is final.
    pub renews_credentials: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            dialect: DialectChoice::Auto,
            client_name: "mcp-task-client".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            max_message_bytes: 16 * 1024 * 1024,
            result_gc_ms: 5 * 60 * 1000,
            request_timeout_ms: 60_000,
            client_capabilities: crate::json::json!({ "elicitation": {}, "sampling": {} }),
            link: Link::default(),
            link_unseen: false,
            max_blocking_results: None,
            cadence: Cadence::default(),
            known_era: None,
            subscribe: true,
            delete_on_done: false,
            url: String::new(),
            renews_credentials: false,
        }
    }
}

/// How often a task nothing pushes about is polled while the page is visible (hidden, the gap
/// grows with the task's age either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cadence {
    /// The server's interval after each answer for the task's whole life, counted from the
    /// moment it was created, with no jitter: its end is seen as soon as by a client that
    /// waits the interval after each answer.
    Latency,
    /// The interval while the task is young, then a tenth of its age (capped): fewer requests
    /// for long tasks, a later callback.
    #[default]
    Requests,
}

/// What carries the requests, as far as a request held open costs a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// A browser over HTTP/1.1: 6 connections per origin, each open request holds one.
    #[default]
    Http1,
    /// A browser over HTTP/2 or HTTP/3: about 100 concurrent streams on one connection.
    Http2,
    /// Node or Electron's main process: fetch has no per-origin connection limit.
    Node,
    /// One socket carries every request: an open request costs no connection.
    WebSocket,
}

impl Link {
    /// Requests from a page: subject to CORS.
    pub(super) fn in_page(self) -> bool {
        matches!(self, Link::Http1 | Link::Http2)
    }

    /// Connections a browser opens to one origin when every open request holds one (`None`:
    /// requests share a connection or a socket, no limit worth modelling).
    pub fn connections(self) -> Option<usize> {
        match self {
            Link::Http1 => Some(6),
            Link::Http2 | Link::Node | Link::WebSocket => None,
        }
    }

    /// Most `tasks/result` requests held open at once while their tasks still run. HTTP/1.1
    /// keeps half the browser's 6 connections free for polls and input answers; HTTP/2 keeps a
    /// tenth of the usual 100 streams free; Node bounds its open sockets; WebSocket needs no bound.
    pub fn result_budget(self) -> usize {
        match self {
            Link::Http1 => 3,
            Link::Http2 => 90,
            Link::Node => 256,
            Link::WebSocket => usize::MAX,
        }
    }
}

/// Whether to ask for a task when calling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Augment {
    /// Follow the tool's `taskSupport` (`required`/`optional` → augment, `forbidden` → never).
    #[default]
    Auto,
    /// Ask for a task (refused client-side for `forbidden` tools).
    Always,
    /// Never ask (refused client-side for `required` tools).
    Never,
}

/// Options of one call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CallOptions {
    /// Requested task lifetime from creation (legacy `ttl`, modern `ttlMs`).
    pub ttl_ms: Option<u64>,
    /// Requested retention after the task ended (draft `keepAlive`).
    pub keep_alive_ms: Option<u64>,
    pub augment: Augment,
    /// Delete the task on the server once its result was delivered (draft `tasks/delete`;
    /// refused client-side on dialects without it).
    pub delete_on_done: bool,
}

/// What the driver tells the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// One message body from the server (a JSON text), on the response stream of `via`, or on a
    /// listening stream / WebSocket when `via` is `None`.
    Message { via: Option<SendKey>, body: String },
    /// HTTP response head for a transmission (before its body). WebSocket never sends this.
    Head {
        key: SendKey,
        status: u16,
        session_id: Option<String>,
        retry_after_ms: Option<u64>,
        /// The raw `WWW-Authenticate` header (read on 401 and 403).
        www_authenticate: Option<String>,
    },
    /// An SSE response stream's position moved: its last event id and the server's `retry`
    /// delay (fed as they change, before the messages that follow and before `Ended`).
    Cursor {
        key: SendKey,
        last_event_id: Option<String>,
        retry_ms: Option<u64>,
    },
    /// The response stream of a transmission ended (normally or not).
    Ended { key: SendKey },
    /// The transmission failed at the transport level.
    Failed { key: SendKey, error: TransportError },
    /// The connection (WebSocket, or the network) went down / came back.
    Connection { up: bool },
    /// Page visibility changed.
    Visibility { visible: bool },
    /// The browser reports it is online again.
    Online,
}

/// A transport failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransportError {
    pub message: String,
    pub http_status: Option<u16>,
    pub retry_after_ms: Option<u64>,
    /// A message on the stream exceeded the size limit: the stream is not resumed (it would
    /// bring the same message again).
    #[serde(default)]
    pub over_limit: bool,
    /// The request was never sent: authorizing it failed (after a 401, a refused grant). It
    /// fails as `Unauthorized`, and a handshake is not tried another way.
    #[cfg(feature = "oauth")]
    #[serde(default)]
    pub unauthorized: bool,
    /// No response arrived at all: the request itself failed (the server down or unreachable;
    /// in a browser also a CORS refusal, which the page cannot tell apart).
    #[serde(default)]
    pub unreached: bool,
}

impl TransportError {
    /// A failure without an HTTP status (network, CORS refusal, socket down).
    pub fn network(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            http_status: None,
            retry_after_ms: None,
            over_limit: false,
            #[cfg(feature = "oauth")]
            unauthorized: false,
            unreached: false,
        }
    }
}

/// One message to transmit. HTTP: POST `body` with `headers` and read the response (JSON or SSE)
/// incrementally, feeding every message back as [`Input::Message`] with `via = Some(key)`.
/// WebSocket: send `body` as one text frame (headers ignored).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit {
    pub key: SendKey,
    pub body: String,
    pub headers: Vec<(String, String)>,
    /// A notification or a response: the server answers 202 with no body.
    pub one_way: bool,
    /// A status poll: where connections are few, a request made after it (a `tasks/result`)
    /// may take the next free one first.
    pub background: bool,
}

/// What the engine asks of the driver, and what it tells the host.
#[derive(Debug, Clone, PartialEq)]
// Outputs are handed out one at a time and moved straight on: boxing would only add allocations.
#[allow(clippy::large_enum_variant)]
pub enum Output {
    Transmit(Transmit),
    /// Legacy HTTP: open the GET listening stream (`Accept: text/event-stream`, `Last-Event-ID`
    /// when given) and report it under `key` like a transmission: `Head`, `Cursor`s, then `Ended`
    /// or `Failed` (with its HTTP status when the server answered without an event stream). Its
    /// messages come as `Message { via: None }`. The engine reopens it and gives it up itself.
    Listen {
        key: SendKey,
        headers: Vec<(String, String)>,
        last_event_id: Option<String>,
    },
    /// Legacy HTTP: end the session (`DELETE` with these headers).
    EndSession {
        headers: Vec<(String, String)>,
    },
    /// WebSocket: open a new socket (the last one closed or failed to open) and report
    /// `Connection { up }` for it: `true` once it opens, `false` if it fails.
    Reconnect,
    /// Abort a transmission's response stream (only for streams the engine knows are safe to close).
    Abort {
        key: SendKey,
    },
    /// HTTP: resume a request's response stream with `GET` + `Last-Event-ID`; report it like a
    /// transmission under the new `key` (head, cursor, messages with `via = Some(key)`, end).
    Resume {
        key: SendKey,
        headers: Vec<(String, String)>,
        last_event_id: String,
    },
    Event(Event),
    /// Nothing more to do until this time (or until new input); `u64::MAX`: no timer at all.
    Wake(Millis),
}

/// Something the host (the JS layer) should know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// The session is ready.
    #[serde(rename_all = "camelCase")]
    Connected {
        dialect: Dialect,
        protocol_version: String,
        server_info: Value,
        capabilities: Value,
    },
    /// A subscription's task is known or changed (status, message, ttl, input requests…).
    #[serde(rename_all = "camelCase")]
    Status { sub: SubId, task: Task },
    /// The subscription ended: exactly once per subscription.
    #[serde(rename_all = "camelCase")]
    Done {
        sub: SubId,
        task_id: Option<String>,
        end: End,
    },
    /// The server needs input from the host; answer with `Engine::answer_input`. A second
    /// `Input` with the same id and the method [`INPUT_WITHDRAWN`] withdraws it (its task was
    /// cancelled or expired): the host should stop, and its answer is no longer wanted.
    #[serde(rename_all = "camelCase")]
    Input {
        id: InputId,
        task_id: Option<String>,
        request: InputRequest,
    },
    /// A one-shot operation finished.
    #[serde(rename_all = "camelCase")]
    Reply {
        op: OpId,
        result: Result<Value, ClientError>,
    },
    /// A recoverable problem (poll failed, server sent garbage…); tracking goes on.
    #[serde(rename_all = "camelCase")]
    Warning {
        task_id: Option<String>,
        error: ClientError,
    },
    /// A task changed state (the event log of seed §8.3).
    #[serde(rename_all = "camelCase")]
    Transition {
        task_id: String,
        from: Option<crate::protocol::model::TaskStatus>,
        to: crate::protocol::model::TaskStatus,
        at: Millis,
    },
}

/// How a subscription ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)]
pub enum End {
    /// The task (or plain request) reached a terminal state; `task` is the final snapshot when there was a task.
    #[serde(rename_all = "camelCase")]
    Finished {
        task: Option<Task>,
        outcome: Option<Outcome>,
    },
    /// The caller stopped waiting (AbortSignal / unsubscribe of a call handle); nothing was sent.
    Aborted,
    /// The request could not be made or tracked.
    #[serde(rename_all = "camelCase")]
    Failed { error: ClientError },
}

/// A typed error for the host; `code` is the raw MCP/JSON-RPC code when there is one (never an
/// HTTP status: that is `http_status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientError {
    pub kind: ErrorKind,
    pub message: String,
    pub code: Option<i64>,
    pub data: Option<Value>,
    /// The HTTP status of the response that failed, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// What a 401/403 said about authorization (`Unauthorized` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Box<AuthChallenge>>,
}

/// The class of a [`ClientError`], and of how a task can end without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The server answered with a JSON-RPC error (see `code`).
    Rpc,
    /// Network or HTTP failure.
    Transport,
    /// The server sent something this client could not understand.
    Protocol,
    /// The caller asked for something invalid (bad arguments, forbidden augmentation…).
    InvalidInput,
    /// The request timed out.
    Timeout,
    /// The client was closed.
    Closed,
    /// The caller stopped waiting (AbortSignal / `stop()`).
    Aborted,
    /// The task ended `cancelled`.
    Cancelled,
    /// The task's deadline passed or the server forgot it.
    Expired,
    /// The task ended `failed` (or `unknown`) without a JSON-RPC error.
    TaskFailed,
    /// The task completed but its result cannot be had (the server forgot it, or fetching it
    /// kept failing).
    ResultUnavailable,
    /// The server does not offer what was asked: the forced dialect, tasks, or a method it
    /// lacks (remembered for the session, never retried).
    Unsupported,
    /// HTTP 401 or 403: the credentials were refused (see `http_status`, `httpStatus` in JS, and `auth`).
    Unauthorized,
}

crate::json::wire_names!(ErrorKind {
    Rpc => "rpc",
    Transport => "transport",
    Protocol => "protocol",
    InvalidInput => "invalidInput",
    Timeout => "timeout",
    Closed => "closed",
    Aborted => "aborted",
    Cancelled => "cancelled",
    Expired => "expired",
    TaskFailed => "taskFailed",
    ResultUnavailable => "resultUnavailable",
    Unsupported => "unsupported",
    Unauthorized => "unauthorized",
});

impl ClientError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self::with_message(kind, message.into())
    }

    /// [`ClientError::new`] past the conversion: one constructor for every kind of message
    /// (not inlined: each site would build the whole error itself).
    #[inline(never)]
    fn with_message(kind: ErrorKind, message: String) -> Self {
        Self {
            kind,
            message,
            code: None,
            data: None,
            http_status: None,
            auth: None,
        }
    }
}

/// A server message this client could not understand.
impl From<ProtocolError> for ClientError {
    fn from(e: ProtocolError) -> Self {
        Self::with_message(ErrorKind::Protocol, e.message())
    }
}

impl From<RpcError> for ClientError {
    fn from(e: RpcError) -> Self {
        let mut error = Self::with_message(ErrorKind::Rpc, e.message);
        error.code = Some(e.code);
        error.data = e.data;
        error
    }
}

#[cfg(test)]
mod tests {
    use super::{ClientError, ErrorKind};
    use crate::protocol::dialect::ProtocolError;
    use crate::protocol::jsonrpc::RpcError;

    #[test]
    fn an_rpc_error_keeps_its_code_message_and_data() {
        let mut rpc = RpcError::new(-32602, "bad params");
        rpc.data = Some(crate::json::json!({ "field": "x" }));
        let mut expected = ClientError::new(ErrorKind::Rpc, "bad params");
        expected.code = Some(-32602);
        expected.data = Some(crate::json::json!({ "field": "x" }));
        assert_eq!(ClientError::from(rpc), expected);
    }

    #[test]
    fn a_protocol_error_reads_as_one_the_client_could_not_understand() {
        let error = ClientError::from(ProtocolError::new("`tools` is missing"));
        assert_eq!(
            error,
            ClientError::new(
                ErrorKind::Protocol,
                "unexpected server message: `tools` is missing"
            )
        );
    }

    #[test]
    fn kind_names_are_the_serde_spelling() {
        for kind in ErrorKind::ALL {
            assert_eq!(crate::json::to_value(&kind).unwrap(), kind.name());
            assert_eq!(
                crate::json::from_value::<ErrorKind>(kind.name().into()).unwrap(),
                kind
            );
        }
    }
}
