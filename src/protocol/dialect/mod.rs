//! One module per task dialect, each mapping its wire shapes to the common model in
//! [`crate::protocol::model`] and building its own requests. The engine talks to a dialect only
//! through [`Codec`]; it never branches on the dialect itself.

use std::fmt;

use crate::json::Value;

use super::jsonrpc::{Id, Message, RpcError};
use super::model::{Dialect, InputRequest, Task};

mod common;
pub(crate) use common::{cursor_params, session_headers};
#[cfg(feature = "draft")]
pub mod draft;
pub mod hosted;
pub mod legacy;
pub mod modern;
mod session;
#[cfg(test)]
mod test_support;

/// A server answer the dialect could not map to the common model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    pub what: String,
}

impl ProtocolError {
    pub fn new(what: impl Into<String>) -> Self {
        Self { what: what.into() }
    }

    /// The error in words (the `Display` text).
    pub fn message(&self) -> String {
        ["unexpected server message: ", &self.what].concat()
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for ProtocolError {}

/// What the session knows that every request may need.
#[derive(Debug, Clone)]
pub struct SessionInfo<'a> {
    /// Negotiated protocol version (e.g. `2025-11-25`, `2026-07-28`).
    pub protocol_version: &'a str,
    /// `{ "name": ..., "version": ... }`.
    pub client_info: &'a Value,
    /// The client's capabilities object as the dialect declares them.
    pub client_capabilities: &'a Value,
    /// Legacy session id (`Mcp-Session-Id`), once known.
    pub session_id: Option<&'a str>,
}

/// A request (or notification) a dialect wants sent: method, params and the HTTP headers the
/// dialect requires for it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Session-Id`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub method: String,
    pub params: Value,
    pub headers: Vec<(String, String)>,
    /// `false` for notifications (no id, no response).
    pub expects_response: bool,
}

/// How the server answered a (possibly task-augmented) request.
#[derive(Debug, Clone, PartialEq)]
pub enum CallReply {
    /// The server made a task of it.
    Task(Task),
    /// The server answered at once with the request's own result.
    Complete(Value),
    /// Modern multi-round-trip: the server needs input before it will answer or make a task.
    /// Re-send the request with the answers (see [`Codec::retry_with_input`]).
    InputRequired {
        requests: Vec<InputRequest>,
        request_state: Option<Value>,
    },
}

/// A push from the server that concerns tasks.
#[derive(Debug, Clone, PartialEq)]
// A notice is handled at once and never stored: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum TaskNotice {
    /// A status push with the whole task (legacy `notifications/tasks/status`,
    /// modern `notifications/tasks`).
    Status(Task),
    /// Draft `notifications/tasks/created`: polling may begin for this id.
    Created { task_id: String },
    /// Modern `notifications/subscriptions/acknowledged`: the listen stream `subscription` (the
    /// listen request's id) is open, and the server will push about these tasks.
    Listening {
        subscription: Option<crate::protocol::jsonrpc::Id>,
        task_ids: Vec<String>,
    },
}

/// What the engine asks of a dialect. Every `build_*` returns a ready [`Outgoing`] with the
/// per-request `_meta` and headers of that dialect applied; every `parse_*` maps a wire shape to the
/// common model, never panicking on any input.
pub trait Codec: Send + Sync {
    fn dialect(&self) -> Dialect;

    /// The `initialize` request (legacy/draft), or `None` when the dialect has no handshake (modern).
    fn build_initialize(&self, s: &SessionInfo) -> Option<Outgoing>;

    /// The requestor asks for a task: the `task` of [`Codec::build_request`] changes the request
    /// (legacy, draft). Modern: the server decides alone.
    fn asks_for_tasks(&self) -> bool;

    /// The requestor names the task it asks for (draft): the task exists under that id from the
    /// moment the request goes out, whatever the server streams back.
    fn names_tasks(&self) -> bool {
        false
    }

    /// Wraps any request: adds `_meta` and headers. `task` asks for task augmentation where the
    /// dialect allows the requestor to ask: legacy `params.task = {ttl}`; draft
    /// `_meta["modelcontextprotocol.io/task"] = {taskId, keepAlive}` (the engine supplies the id);
    /// modern declares the extension on every request and leaves the choice to the server.
    fn build_request(
        &self,
        s: &SessionInfo,
        method: &str,
        params: Value,
        task: Option<&TaskAugment>,
    ) -> Outgoing;

    /// Maps the result of the original (possibly augmented) request.
    fn parse_call_reply(&self, result: Value) -> Result<CallReply, ProtocolError>;

    /// Re-sends a modern MRTR request with `inputResponses` (and `requestState`). Other dialects: `None`.
    fn retry_with_input(
        &self,
        _s: &SessionInfo,
        _method: &str,
        _params: Value,
        _responses: Value,
        _request_state: Option<Value>,
    ) -> Option<Outgoing> {
        None
    }

    fn build_get(&self, s: &SessionInfo, task_id: &str) -> Outgoing;
    fn parse_get(&self, result: Value) -> Result<Task, ProtocolError>;

    /// `tasks/result` where the dialect has it (legacy, draft); `None` when the outcome is inline (modern).
    fn build_result(&self, s: &SessionInfo, task_id: &str) -> Option<Outgoing>;

    /// `tasks/list` where the dialect has it.
    fn build_list(&self, s: &SessionInfo, cursor: Option<&str>) -> Option<Outgoing>;
    fn parse_list(&self, result: Value) -> Result<(Vec<Task>, Option<String>), ProtocolError>;

    /// Remote cancel: legacy/modern `tasks/cancel`; draft `notifications/cancelled` for the
    /// original request id (`original`).
    fn build_cancel(&self, s: &SessionInfo, task_id: &str, original: Option<&Id>) -> Outgoing;

    /// Answers one input request. Legacy/draft: a JSON-RPC response to the server's request id
    /// `server_id` with related-task `_meta`; modern: `tasks/update {taskId, inputResponses}`.
    fn build_input_answer(
        &self,
        s: &SessionInfo,
        task_id: Option<&str>,
        request: &InputRequest,
        server_id: Option<&Id>,
        answer: Result<Value, RpcError>,
    ) -> Message;

    /// Interprets a server notification; `None` when it is not about tasks.
    fn parse_notification(&self, method: &str, params: Option<&Value>) -> Option<TaskNotice>;

    /// The related task id in a message's `_meta`, if any.
    fn related_task(&self, params_or_result: &Value) -> Option<String>;

    /// The opt-in for status pushes the dialect needs, if any (modern `subscriptions/listen`).
    fn build_listen(&self, s: &SessionInfo, task_ids: &[String]) -> Option<Outgoing>;

    /// `notifications/initialized` after a successful `initialize` (legacy, draft).
    fn build_initialized(&self, _s: &SessionInfo) -> Option<Outgoing> {
        None
    }

    /// Draft `tasks/delete {taskId}`. Other dialects: `None`.
    fn build_delete(&self, _s: &SessionInfo, _task_id: &str) -> Option<Outgoing> {
        None
    }

    /// The HTTP headers to send with an already-built [`Message`] (an input answer from
    /// [`Codec::build_input_answer`], or any other response or notification): legacy/draft
    /// session headers; modern version plus `Mcp-Method`/`Mcp-Name` for requests.
    fn message_headers(&self, _s: &SessionInfo, _message: &Message) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// What a caller asks for when augmenting a request with a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskAugment {
    /// The retention asked for, in the dialect's own sense: legacy `ttl` and modern `ttlMs`
    /// (lifetime from creation); draft `keepAlive` (retention after the end).
    pub ttl_ms: Option<u64>,
    /// Draft only: the requestor-generated task id.
    pub task_id: Option<String>,
}

/// The modern (2026-07-28) codec.
pub const MODERN: &dyn Codec = &modern::Modern;
/// The legacy (2025-11-25) codec.
pub const LEGACY: &dyn Codec = &legacy::Legacy;

/// The codec for a dialect; `None` for the draft in a build without the `draft` feature.
pub fn codec(d: Dialect) -> Option<&'static dyn Codec> {
    match d {
        Dialect::Modern => Some(MODERN),
        Dialect::Legacy => Some(LEGACY),
        #[cfg(feature = "draft")]
        Dialect::Draft => Some(&draft::Draft),
        #[cfg(not(feature = "draft"))]
        Dialect::Draft => None,
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::Fixture;
    use super::{codec, TaskAugment};
    use crate::protocol::model::Dialect;

    /// A dialect says it asks for tasks exactly when asking changes the request it builds.
    #[test]
    fn asks_for_tasks_is_whether_asking_changes_the_request() {
        let f = Fixture::new("2025-11-25", Some("s-1"));
        let ask = TaskAugment {
            ttl_ms: Some(1),
            task_id: Some("probe".into()),
        };
        for d in [Dialect::Legacy, Dialect::Modern, Dialect::Draft] {
            let Some(c) = codec(d) else {
                assert!(d == Dialect::Draft && cfg!(not(feature = "draft")));
                continue;
            };
            let params = || crate::json::json!({"name": "probe"});
            let asked = c.build_request(&f.s(), "tools/call", params(), Some(&ask));
            let plain = c.build_request(&f.s(), "tools/call", params(), None);
            assert_eq!(c.asks_for_tasks(), asked != plain, "{d:?}");
        }
    }
}
