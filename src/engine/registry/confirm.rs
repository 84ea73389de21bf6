//! A result that cannot tell how its task ended. A task's terminal status comes from its status
//! (a poll or a push), never from the channel its result came on: a `CallToolResult` with
//! `isError` ends a task `failed` on most servers and `completed` on others, and an empty result
//! (nothing but `_meta`) is what some servers answer for a task that failed. Such a result,
//! arriving before any terminal status, is kept and confirmed by one status request (at the
//! task's interval); only when that one cannot tell (the task still looks running, or the server
//! forgot it as it answered) does the result decide: `isError` reads `failed`.

use crate::json::Value;
use crate::protocol::model::{Outcome, TaskStatus};

/// Whether `outcome` alone tells how its task ended.
pub(super) fn tells_status(outcome: &Outcome) -> bool {
    !is_tool_error(outcome) && !is_empty(outcome)
}

/// The end `outcome` implies when no status tells it.
pub(super) fn implied_status(outcome: &Outcome) -> TaskStatus {
    match outcome {
        Outcome::Result { .. } if !is_tool_error(outcome) => TaskStatus::Completed,
        _ => TaskStatus::Failed,
    }
}

/// A result carrying nothing but `_meta`.
fn is_empty(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Result { result: Value::Object(m) } if m.iter().all(|(k, _)| k == "_meta"))
}

fn is_tool_error(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Result { result } if result.get("isError") == Some(&Value::Bool(true)))
}
