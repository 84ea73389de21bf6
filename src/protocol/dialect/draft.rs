//! Draft dialect: SEP-1686 as first written. The requestor names the task:
//! `_meta["modelcontextprotocol.io/task"] = {taskId, keepAlive?}` on any request; a receiver that
//! makes a task announces it with `notifications/tasks/created`, and the original response carries
//! the request's own result. `tasks/get` answers `{taskId, status, keepAlive, pollFrequency?,
//! error?}`; `tasks/result`, `tasks/list` and `tasks/delete` follow; cancellation is
//! `notifications/cancelled` for the original request id.

use crate::json::{Map, Value};

use super::common::{self, TaskShape};
use super::session::SessionDialect;
use super::{
    CallReply, Dialect, Id, Outgoing, ProtocolError, RpcError, SessionInfo, Task, TaskAugment,
    TaskNotice,
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

/// The draft has no lifetime from creation: `keepAlive` (retention after the end) is read apart.
const SHAPE: TaskShape = TaskShape {
    ttl: &[],
    poll_interval: &["pollFrequency"],
    rest: keep_alive_and_error,
};

/// The draft [`Codec`](super::Codec).
pub struct Draft;

/// Parses a draft task (`tasks/get`, list entries). A `failed` task's `error` (a message string,
/// or tolerated: a JSON-RPC error object) becomes the outcome; a string one gets code -32603 and
/// is also the status message when none was sent.
pub fn parse_task(value: &Value) -> Result<Task, ProtocolError> {
    common::parse_task(value, &SHAPE)
}

/// The retention after the end, and a failed task's error (see [`parse_task`]).
fn keep_alive_and_error(task: &mut Task, obj: &Map) -> Result<(), ProtocolError> {
    task.keep_alive_ms = common::opt_millis(obj, "keepAlive")?;
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
    Ok(())
}

/// What an `initialize` answer says about the draft (the seed: a receiver that supports tasks
/// declares a `tasks` capability "structured by request category, with boolean properties").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detection {
    /// The answer shows a draft receiver: a `tasks` capability with boolean members or a
    /// `delete` member (2025-11-25 declares `{}` objects and has no `tasks/delete`), or any `tasks`
    /// capability in a protocol version from before 2025-11-25 (when only the draft had tasks).
    Draft,
    /// No `tasks` capability, in a version from before 2025-11-25: a server without tasks, or a
    /// draft receiver that declares nothing (as the draft's first revision allowed). No telling.
    Silent,
    /// Anything else: not the draft.
    Other,
}

/// The first protocol version with core tasks (2025-11-25): before it only the draft had tasks.
const CORE_TASKS_SINCE: &str = "2025-11-25";

/// Reads an `initialize` answer's negotiated version and capabilities for draft signs.
pub fn detect(protocol_version: &str, capabilities: &Value) -> Detection {
    let before_core = !protocol_version.is_empty() && protocol_version < CORE_TASKS_SINCE;
    match capabilities.get("tasks").filter(|t| !t.is_null()) {
        Some(tasks) if tasks.get("delete").is_some() || has_boolean(tasks) || before_core => {
            Detection::Draft
        }
        None if before_core => Detection::Silent,
        _ => Detection::Other,
    }
}

/// Whether a boolean sits anywhere in `v` (bounded depth: capabilities are shallow).
fn has_boolean(v: &Value) -> bool {
    fn walk(v: &Value, depth: u8) -> bool {
        match v {
            Value::Bool(_) => true,
            Value::Object(o) if depth < 4 => o.values().any(|x| walk(x, depth + 1)),
            _ => false,
        }
    }
    walk(v, 0)
}

/// `params` with related-task `_meta` naming `task_id`.
fn related(params: Value, task_id: &str) -> Value {
    common::with_meta(params, |meta| {
        meta.insert(RELATED_TASK.into(), common::related_task_meta(task_id));
    })
}

impl SessionDialect for Draft {
    const DIALECT: Dialect = Dialect::Draft;
    const PROTOCOL_VERSION: &'static str = PROTOCOL_VERSION;
    const RELATED_TASK: &'static str = RELATED_TASK;
    const NAMES_TASKS: bool = true;

    /// Augments only when the engine supplied the task id (`TaskAugment::task_id`).
    fn augment(params: Value, task: Option<&TaskAugment>) -> Value {
        match task.and_then(|t| t.task_id.as_deref().map(|id| (id, t.ttl_ms))) {
            Some((task_id, keep_alive)) => {
                let mut meta = Map::new();
                meta.insert("taskId".into(), Value::from(task_id));
                if let Some(ms) = keep_alive {
                    meta.insert("keepAlive".into(), Value::from(ms));
                }
                common::with_meta(params, |m| {
                    m.insert(TASK.into(), Value::Object(meta));
                })
            }
            None => params,
        }
    }

    /// The original response is always the request's own result in this dialect.
    fn parse_call_reply(result: Value) -> Result<CallReply, ProtocolError> {
        common::as_object(&result, "result")?;
        Ok(CallReply::Complete(result))
    }

    fn parse_get(result: &Value) -> Result<Task, ProtocolError> {
        parse_task(result)
    }

    fn parse_list_entry(value: &Value) -> Result<Task, ProtocolError> {
        parse_task(value)
    }

    /// Session headers plus related-task `_meta`, as the SEP shows.
    fn task_request(s: &SessionInfo, method: &str, task_id: &str) -> Outgoing {
        let params = related(common::task_id_params(task_id), task_id);
        common::request(method, params, common::session_headers(s))
    }

    /// `notifications/cancelled {requestId}` for the original request; without `original` the
    /// notification carries only the related-task `_meta`.
    fn build_cancel(s: &SessionInfo, task_id: &str, original: Option<&Id>) -> Outgoing {
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

    fn parse_notification(method: &str, params: Option<&Value>) -> Option<TaskNotice> {
        match method {
            CREATED_NOTIFICATION => {
                let task_id = common::related_task_id(params?, RELATED_TASK)?;
                Some(TaskNotice::Created { task_id })
            }
            _ => None,
        }
    }

    fn build_delete(s: &SessionInfo, task_id: &str) -> Option<Outgoing> {
        Some(Self::task_request(s, "tasks/delete", task_id))
    }
}

#[cfg(test)]
mod tests;
