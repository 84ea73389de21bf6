//! What the receiver says on the wire: task objects, the related-task `_meta`, and the errors the
//! 2025-11-25 spec names for unknown, expired and already-terminal tasks.

use crate::json::{Map, Value};

use crate::protocol::object;

use crate::protocol::dialect::legacy::RELATED_TASK;
use crate::protocol::jsonrpc::{codes, RpcError};

/// `{taskId}`.
fn task_ref(task_id: &str) -> Value {
    object([("taskId", Value::from(task_id))])
}

/// `_meta` tying a message to task `task_id`.
pub(super) fn related(task_id: &str) -> Value {
    object([(RELATED_TASK, task_ref(task_id))])
}

/// `result` with the related-task `_meta` merged in (other `_meta` entries kept).
pub(super) fn with_related(result: Value, task_id: &str) -> Value {
    let mut obj = match result {
        Value::Object(o) => o,
        other => return other,
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(m) = meta {
        m.insert(RELATED_TASK.into(), task_ref(task_id));
    }
    Value::Object(obj)
}

/// The error for a task id this client never issued (or forgot long ago).
pub(super) fn not_found() -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        "Failed to retrieve task: Task not found",
    )
}

/// The error for a task whose ttl ran out.
pub(super) fn expired() -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        "Failed to retrieve task: Task has expired",
    )
}

/// The error for cancelling a task that already ended.
pub(super) fn already_terminal(status: &str) -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        [
            "Cannot cancel task: already in terminal status '",
            status,
            "'",
        ]
        .concat(),
    )
}

/// What `tasks/result` answers for a task the requestor cancelled.
pub(super) fn cancelled() -> RpcError {
    RpcError::new(codes::INTERNAL_ERROR, "Task was cancelled by the requestor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    #[test]
    fn related_meta_is_merged_into_results() {
        let v = with_related(json!({ "action": "accept", "_meta": { "k": 1 } }), "t1");
        assert_eq!(v["_meta"]["k"], 1);
        assert_eq!(v["_meta"][RELATED_TASK]["taskId"], "t1");
        let v = with_related(json!({ "_meta": 3 }), "t2");
        assert_eq!(v["_meta"][RELATED_TASK]["taskId"], "t2");
        assert_eq!(with_related(json!([1]), "t"), json!([1]));
        assert_eq!(related("x")[RELATED_TASK]["taskId"], "x");
    }
}
