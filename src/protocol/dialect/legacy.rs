//! Legacy dialect: protocol `2025-11-25` core tasks over a session (`initialize`,
//! `Mcp-Session-Id`). The requestor asks for a task with `params.task = {ttl}`; the server answers
//! a nested `CreateTaskResult {task}`; `tasks/get|result|list|cancel` follow; input answers are
//! JSON-RPC responses carrying related-task `_meta`.

use serde_json::{Map, Value};

use super::common::{self, FieldNames};
use super::{
    CallReply, Codec, Dialect, Id, InputRequest, Message, Outgoing, ProtocolError, RpcError,
    SessionInfo, Task, TaskAugment, TaskNotice,
};

/// The protocol version legacy `initialize` asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The `_meta` key tying a message to a task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// The status push (params = the whole task).
pub const STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// Legacy wire names first; the modern spellings are read too (hybrid servers).
const NAMES: FieldNames = FieldNames {
    ttl: &["ttl", "ttlMs"],
    poll_interval: &["pollInterval", "pollIntervalMs"],
};

/// The legacy [`Codec`].
pub struct Legacy;

/// Parses a legacy task object (`tasks/get`, `tasks/cancel`, list entries, status pushes).
pub fn parse_task(value: &Value) -> Result<Task, ProtocolError> {
    common::parse_task(value, &NAMES)
}

/// A `tasks/get` style result: the task flat, or (tolerated) nested under `task`.
fn parse_task_result(result: &Value) -> Result<Task, ProtocolError> {
    let obj = common::as_object(result, "task result")?;
    match obj.get("task") {
        Some(nested @ Value::Object(_)) if !obj.contains_key("taskId") => parse_task(nested),
        _ => parse_task(result),
    }
}

fn task_request(s: &SessionInfo, method: &str, task_id: &str) -> Outgoing {
    common::request(
        method,
        common::task_id_params(task_id),
        common::session_headers(s),
    )
}

impl Codec for Legacy {
    fn dialect(&self) -> Dialect {
        Dialect::Legacy
    }

    fn build_initialize(&self, s: &SessionInfo) -> Option<Outgoing> {
        Some(common::initialize(s, PROTOCOL_VERSION))
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
        let params = match (task, common::params_object(params)) {
            (Some(augment), Ok(mut obj)) => {
                let mut meta = Map::new();
                if let Some(ttl) = augment.ttl_ms {
                    meta.insert("ttl".into(), Value::from(ttl));
                }
                obj.insert("task".into(), Value::Object(meta));
                Value::Object(obj)
            }
            (_, Ok(obj)) => Value::Object(obj),
            (_, Err(other)) => other,
        };
        common::request(method, params, common::session_headers(s))
    }

    fn parse_call_reply(&self, result: Value) -> Result<CallReply, ProtocolError> {
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

    fn build_get(&self, s: &SessionInfo, task_id: &str) -> Outgoing {
        task_request(s, "tasks/get", task_id)
    }

    fn parse_get(&self, result: Value) -> Result<Task, ProtocolError> {
        parse_task_result(&result)
    }

    fn build_result(&self, s: &SessionInfo, task_id: &str) -> Option<Outgoing> {
        Some(task_request(s, "tasks/result", task_id))
    }

    fn build_list(&self, s: &SessionInfo, cursor: Option<&str>) -> Option<Outgoing> {
        Some(common::list_request(s, cursor))
    }

    fn parse_list(&self, result: Value) -> Result<(Vec<Task>, Option<String>), ProtocolError> {
        common::parse_task_page(&result, parse_task)
    }

    fn build_cancel(&self, s: &SessionInfo, task_id: &str, _original: Option<&Id>) -> Outgoing {
        task_request(s, "tasks/cancel", task_id)
    }

    fn build_input_answer(
        &self,
        _s: &SessionInfo,
        task_id: Option<&str>,
        request: &InputRequest,
        server_id: Option<&Id>,
        answer: Result<Value, RpcError>,
    ) -> Message {
        common::answer_response(RELATED_TASK, task_id, request, server_id, answer)
    }

    fn parse_notification(&self, method: &str, params: Option<&Value>) -> Option<TaskNotice> {
        match method {
            STATUS_NOTIFICATION => parse_task(params?).ok().map(TaskNotice::Status),
            _ => None,
        }
    }

    fn related_task(&self, params_or_result: &Value) -> Option<String> {
        common::related_task_id(params_or_result, RELATED_TASK)
    }

    fn build_listen(&self, _s: &SessionInfo, _task_ids: &[String]) -> Option<Outgoing> {
        None
    }

    fn message_headers(&self, s: &SessionInfo, _message: &Message) -> Vec<(String, String)> {
        common::session_headers(s)
    }
}

#[cfg(test)]
mod tests;
