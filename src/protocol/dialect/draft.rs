//! Draft dialect: SEP-1686 as first written. The requestor names the task:
//! `_meta["modelcontextprotocol.io/task"] = {taskId, keepAlive?}` on any request; a receiver that
//! makes a task announces it with `notifications/tasks/created`, and the original response carries
//! the request's own result. `tasks/get` answers `{taskId, status, keepAlive, pollFrequency?,
//! error?}`; `tasks/result`, `tasks/list` and `tasks/delete` follow; cancellation is
//! `notifications/cancelled` for the original request id.

use serde_json::{Map, Value};

use super::common::{self, FieldNames};
use super::{
    CallReply, Codec, Dialect, Id, InputRequest, Message, Outgoing, ProtocolError, RpcError,
    SessionInfo, Task, TaskAugment, TaskNotice,
};
use crate::protocol::jsonrpc::codes;
use crate::protocol::model::{Outcome, TaskStatus};

/// The protocol version draft `initialize` asks for (the era the SEP was written in).
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// The `_meta` key that asks for a task.
pub const TASK: &str = "modelcontextprotocol.io/task";
/// The `_meta` key tying a message to a task.
pub const RELATED_TASK: &str = "modelcontextprotocol.io/related-task";
/// The receiver's announcement that a task exists.
pub const CREATED_NOTIFICATION: &str = "notifications/tasks/created";

const NAMES: FieldNames = FieldNames {
    ttl: &["keepAlive"],
    poll_interval: &["pollFrequency"],
};

/// The draft [`Codec`].
pub struct Draft;

/// Parses a draft task (`tasks/get`, list entries). A `failed` task's `error` (a message string,
/// or tolerated: a JSON-RPC error object) becomes the outcome; a string one gets code -32603 and
/// is also the status message when none was sent.
pub fn parse_task(value: &Value) -> Result<Task, ProtocolError> {
    let mut task = common::parse_task(value, &NAMES)?;
    let obj = common::as_object(value, "task")?;
    let error = match obj.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(message)) => {
            if task.status_message.is_none() {
                task.status_message = Some(message.clone());
            }
            Some(RpcError::new(codes::INTERNAL_ERROR, message.clone()))
        }
        Some(other) => Some(common::parse_rpc_error(other)?),
    };
    if task.status == TaskStatus::Failed {
        task.outcome = error.map(|error| Outcome::Error { error });
    }
    Ok(task)
}

/// Session headers plus related-task `_meta` on a `{taskId}` request, as the SEP shows.
fn task_request(s: &SessionInfo, method: &str, task_id: &str) -> Outgoing {
    let params = related(common::task_id_params(task_id), task_id);
    common::request(method, params, common::session_headers(s))
}

fn related(params: Value, task_id: &str) -> Value {
    common::with_meta(
        params,
        [(RELATED_TASK.to_owned(), common::related_task_meta(task_id))],
    )
}

impl Codec for Draft {
    fn dialect(&self) -> Dialect {
        Dialect::Draft
    }

    fn build_initialize(&self, s: &SessionInfo) -> Option<Outgoing> {
        Some(common::initialize(s, PROTOCOL_VERSION))
    }

    fn build_initialized(&self, s: &SessionInfo) -> Option<Outgoing> {
        Some(common::initialized(s))
    }

    /// Augments only when the engine supplied the task id (`TaskAugment::task_id`).
    fn build_request(
        &self,
        s: &SessionInfo,
        method: &str,
        params: Value,
        task: Option<&TaskAugment>,
    ) -> Outgoing {
        let params = match task.and_then(|t| t.task_id.as_deref().map(|id| (id, t.ttl_ms))) {
            Some((task_id, keep_alive)) => {
                let mut meta = Map::new();
                meta.insert("taskId".into(), Value::from(task_id));
                if let Some(ms) = keep_alive {
                    meta.insert("keepAlive".into(), Value::from(ms));
                }
                common::with_meta(params, [(TASK.to_owned(), Value::Object(meta))])
            }
            None => params,
        };
        common::request(method, params, common::session_headers(s))
    }

    /// The original response is always the request's own result in this dialect.
    fn parse_call_reply(&self, result: Value) -> Result<CallReply, ProtocolError> {
        common::as_object(&result, "result")?;
        Ok(CallReply::Complete(result))
    }

    fn build_get(&self, s: &SessionInfo, task_id: &str) -> Outgoing {
        task_request(s, "tasks/get", task_id)
    }

    fn parse_get(&self, result: Value) -> Result<Task, ProtocolError> {
        parse_task(&result)
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

    /// `notifications/cancelled {requestId}` for the original request; without `original` the
    /// notification carries only the related-task `_meta`.
    fn build_cancel(&self, s: &SessionInfo, task_id: &str, original: Option<&Id>) -> Outgoing {
        let mut params = Map::new();
        if let Some(id) = original {
            params.insert("requestId".into(), Value::from(id));
        }
        let params = related(Value::Object(params), task_id);
        common::notification(
            "notifications/cancelled",
            params,
            common::session_headers(s),
        )
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
            CREATED_NOTIFICATION => {
                let task_id = common::related_task_id(params?, RELATED_TASK)?;
                Some(TaskNotice::Created { task_id })
            }
            _ => None,
        }
    }

    fn related_task(&self, params_or_result: &Value) -> Option<String> {
        common::related_task_id(params_or_result, RELATED_TASK)
    }

    fn build_listen(&self, _s: &SessionInfo, _task_ids: &[String]) -> Option<Outgoing> {
        None
    }

    fn build_delete(&self, s: &SessionInfo, task_id: &str) -> Option<Outgoing> {
        Some(task_request(s, "tasks/delete", task_id))
    }

    fn message_headers(&self, s: &SessionInfo, _message: &Message) -> Vec<(String, String)> {
        common::session_headers(s)
    }
}

#[cfg(test)]
mod tests;
