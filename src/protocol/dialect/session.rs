//! What the two session dialects (legacy, draft) share: an `initialize` handshake, the session
//! headers on every message, `{taskId}` requests for `tasks/get` and `tasks/result`, a paged
//! `tasks/list`, input answers as JSON-RPC responses with related-task `_meta`, and no listen
//! opt-in. Each dialect supplies the rest as a [`SessionDialect`]; [`Codec`] follows from it.

use crate::json::Value;

use super::common;
use super::{
    CallReply, Codec, Dialect, Id, InputRequest, Message, Outgoing, ProtocolError, RpcError,
    SessionInfo, Task, TaskAugment, TaskNotice,
};

/// The parts of a session dialect that differ between legacy and draft.
pub(super) trait SessionDialect: Send + Sync {
    const DIALECT: Dialect;
    /// The protocol version `initialize` asks for.
    const PROTOCOL_VERSION: &'static str;
    /// The `_meta` key tying a message to a task.
    const RELATED_TASK: &'static str;
    /// The requestor names the tasks it asks for (see [`Codec::names_tasks`]).
    const NAMES_TASKS: bool = false;
    /// The client may run server→client requests as tasks (declared in `initialize`).
    const HOSTS_TASKS: bool = false;

    /// Request params asking for a task as `task` says (see [`Codec::build_request`]).
    fn augment(params: Value, task: Option<&TaskAugment>) -> Value;
    fn parse_call_reply(result: Value) -> Result<CallReply, ProtocolError>;
    /// A `tasks/get` result.
    fn parse_get(result: &Value) -> Result<Task, ProtocolError>;
    /// One `tasks/list` entry.
    fn parse_list_entry(value: &Value) -> Result<Task, ProtocolError>;
    /// A `{taskId}` request (`tasks/get`, `tasks/result`, …) with the session headers.
    fn task_request(s: &SessionInfo, method: &str, task_id: &str) -> Outgoing;
    fn build_cancel(s: &SessionInfo, task_id: &str, original: Option<&Id>) -> Outgoing;
    fn parse_notification(method: &str, params: Option<&Value>) -> Option<TaskNotice>;
    /// `tasks/delete`, where the dialect has it.
    fn build_delete(_s: &SessionInfo, _task_id: &str) -> Option<Outgoing> {
        None
    }
}

impl<D: SessionDialect> Codec for D {
    fn dialect(&self) -> Dialect {
        D::DIALECT
    }

    fn build_initialize(&self, s: &SessionInfo) -> Option<Outgoing> {
        if !D::HOSTS_TASKS {
            return Some(common::initialize(s, D::PROTOCOL_VERSION));
        }
        let caps = super::hosted::declare(s.client_capabilities);
        let s = SessionInfo {
            client_capabilities: &caps,
            ..*s
        };
        Some(common::initialize(&s, D::PROTOCOL_VERSION))
    }

    fn asks_for_tasks(&self) -> bool {
        true
    }

    fn names_tasks(&self) -> bool {
        D::NAMES_TASKS
    }

    fn build_initialized(&self, s: &SessionInfo) -> Option<Outgoing> {
        Some(common::initialized(s))
    }

    fn build_request(
        &self,
        s: &SessionInfo,
        method: &str,
        params: Value,
        task: Option<&TaskAugment>,
    ) -> Outgoing {
        common::request(method, D::augment(params, task), common::session_headers(s))
    }

    fn parse_call_reply(&self, result: Value) -> Result<CallReply, ProtocolError> {
        D::parse_call_reply(result)
    }

    fn build_get(&self, s: &SessionInfo, task_id: &str) -> Outgoing {
        D::task_request(s, "tasks/get", task_id)
    }

    fn parse_get(&self, result: Value) -> Result<Task, ProtocolError> {
        D::parse_get(&result)
    }

    fn build_result(&self, s: &SessionInfo, task_id: &str) -> Option<Outgoing> {
        Some(D::task_request(s, "tasks/result", task_id))
    }

    fn build_list(&self, s: &SessionInfo, cursor: Option<&str>) -> Option<Outgoing> {
        Some(common::list_request(s, cursor))
    }

    fn parse_list(&self, result: Value) -> Result<(Vec<Task>, Option<String>), ProtocolError> {
        common::parse_task_page(&result, D::parse_list_entry)
    }

    fn build_cancel(&self, s: &SessionInfo, task_id: &str, original: Option<&Id>) -> Outgoing {
        D::build_cancel(s, task_id, original)
    }

    fn build_input_answer(
        &self,
        _s: &SessionInfo,
        task_id: Option<&str>,
        request: &InputRequest,
        server_id: Option<&Id>,
        answer: Result<Value, RpcError>,
    ) -> Message {
        common::answer_response(D::RELATED_TASK, task_id, request, server_id, answer)
    }

    fn parse_notification(&self, method: &str, params: Option<&Value>) -> Option<TaskNotice> {
        D::parse_notification(method, params)
    }

    fn related_task(&self, params_or_result: &Value) -> Option<String> {
        common::related_task_id(params_or_result, D::RELATED_TASK)
    }

    fn build_listen(&self, _s: &SessionInfo, _task_ids: &[String]) -> Option<Outgoing> {
        None
    }

    fn build_delete(&self, s: &SessionInfo, task_id: &str) -> Option<Outgoing> {
        D::build_delete(s, task_id)
    }

    fn message_headers(&self, s: &SessionInfo, _message: &Message) -> Vec<(String, String)> {
        common::session_headers(s)
    }
}
