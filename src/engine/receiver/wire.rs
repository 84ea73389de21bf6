//! What the receiver says on the wire: task objects, the related-task `_meta`, and the errors the
//! 2025-11-25 spec names for unknown, expired and already-terminal tasks.

use serde_json::{json, Map, Value};

use crate::protocol::dialect::legacy::RELATED_TASK;
use crate::protocol::jsonrpc::{codes, RpcError};

use super::super::api::Millis;

/// `millis` since the Unix epoch as ISO 8601 UTC with milliseconds (`2026-12-01T17:05:51.000Z`).
pub(crate) fn iso8601(millis: Millis) -> String {
    let secs = millis / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm, unsigned form).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        millis % 1000
    )
}

/// `_meta` tying a message to task `task_id`.
pub(crate) fn related(task_id: &str) -> Value {
    json!({ RELATED_TASK: { "taskId": task_id } })
}

/// `result` with the related-task `_meta` merged in (other `_meta` entries kept).
pub(crate) fn with_related(result: Value, task_id: &str) -> Value {
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
        m.insert(RELATED_TASK.into(), json!({ "taskId": task_id }));
    }
    Value::Object(obj)
}

/// The error for a task id this client never issued (or forgot long ago).
pub(crate) fn not_found() -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        "Failed to retrieve task: Task not found",
    )
}

/// The error for a task whose ttl ran out.
pub(crate) fn expired() -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        "Failed to retrieve task: Task has expired",
    )
}

/// The error for cancelling a task that already ended.
pub(crate) fn already_terminal(status: &str) -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        format!("Cannot cancel task: already in terminal status '{status}'"),
    )
}

/// What `tasks/result` answers for a task the requestor cancelled.
pub(crate) fn cancelled() -> RpcError {
    RpcError::new(codes::INTERNAL_ERROR, "Task was cancelled by the requestor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::iso8601::parse_millis;

    #[test]
    fn iso8601_round_trips_through_the_parser() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_608_751_123), "2025-12-01T17:05:51.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        for t in [
            1,
            59_999,
            1_709_164_800_000,
            4_102_444_799_999,
            253_402_300_799_999,
        ] {
            assert_eq!(parse_millis(&iso8601(t)), Some(t), "{t}");
        }
    }

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
