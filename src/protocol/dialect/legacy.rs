//! Legacy dialect: protocol `2025-11-25` core tasks over a session (`initialize`,
//! `Mcp-Session-Id`). The requestor asks for a task with `params.task = {ttl}`; the server answers
//! a nested `CreateTaskResult {task}`; `tasks/get|result|list|cancel` follow; input answers are
//! JSON-RPC responses carrying related-task `_meta`.

use crate::json::{Map, Value};

use super::common::{self, TaskShape};
use super::session::SessionDialect;
use super::{
    CallReply, Dialect, Id, Outgoing, ProtocolError, SessionInfo, Task, TaskAugment, TaskNotice,
};

/// The protocol version legacy `initialize` asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The `_meta` key tying a message to a task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// The status push (params = the whole task).
pub const STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// Legacy wire names first; the modern spellings are read too (hybrid servers). Nothing else.
const SHAPE: TaskShape = TaskShape {
    ttl: &["ttl", "ttlMs"],
    poll_interval: &["pollInterval", "pollIntervalMs"],
    rest: |_, _| Ok(()),
};

/// The legacy [`Codec`](super::Codec).
pub struct Legacy;

/// Parses a legacy task object (`tasks/get`, `tasks/cancel`, list entries, status pushes).
pub fn parse_task(value: &Value) -> Result<Task, ProtocolError> {
    common::parse_task(value, &SHAPE)
}

impl SessionDialect for Legacy {
    const DIALECT: Dialect = Dialect::Legacy;
    const PROTOCOL_VERSION: &'static str = PROTOCOL_VERSION;
    const RELATED_TASK: &'static str = RELATED_TASK;
    const HOSTS_TASKS: bool = true;

    /// `params.task = {ttl?}`; non-task params only lose a `null` (sent as `{}`).
    fn augment(params: Value, task: Option<&TaskAugment>) -> Value {
        match (task, common::params_object(params)) {
            (Some(augment), Ok(mut obj)) => {
                let task = match augment.ttl_ms {
                    Some(ttl) => crate::protocol::object([("ttl", ttl.into())]),
                    None => Value::Object(Map::new()),
                };
                obj.insert("task".into(), task);
                Value::Object(obj)
            }
            (_, Ok(obj)) => Value::Object(obj),
            (_, Err(other)) => other,
        }
    }

    fn parse_call_reply(result: Value) -> Result<CallReply, ProtocolError> {
        let obj = common::as_object(&result, "result")?;
        if obj.get("resultType").and_then(Value::as_str) == Some("task") {
            // A hybrid server answering with the modern flat shape.
            return parse_task(&result).map(CallReply::Task);
        }
        match obj.get("task") {
            Some(task @ Value::Object(_)) => parse_task(task).map(CallReply::Task),
            _ => Ok(CallReply::Complete(result)),
        }
    }

    /// The task flat, or (tolerated) nested under `task`.
    fn parse_get(result: &Value) -> Result<Task, ProtocolError> {
        let obj = common::as_object(result, "task result")?;
        match obj.get("task") {
            Some(nested @ Value::Object(_)) if !obj.contains_key("taskId") => parse_task(nested),
            _ => parse_task(result),
        }
    }

    fn parse_list_entry(value: &Value) -> Result<Task, ProtocolError> {
        parse_task(value)
    }

    fn task_request(s: &SessionInfo, method: &str, task_id: &str) -> Outgoing {
        common::request(
            method,
            common::task_id_params(task_id),
            common::session_headers(s),
        )
    }

    fn build_cancel(s: &SessionInfo, task_id: &str, _original: Option<&Id>) -> Outgoing {
        Self::task_request(s, "tasks/cancel", task_id)
    }

    fn parse_notification(method: &str, params: Option<&Value>) -> Option<TaskNotice> {
        match method {
            STATUS_NOTIFICATION => parse_task(params?).ok().map(TaskNotice::Status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
