//! A result that cannot tell how its task ended. A task's terminal status comes from its status
//! (a poll or a push), never from the channel its result came on: a `CallToolResult` with
//! `isError` ends a task `failed` on most servers and `completed` on others, and an empty result
//! (nothing but `_meta`) is what some servers answer for a task that failed. Such a result,
//! arriving before any terminal status, is kept and confirmed by one status request (at the
//! task's interval); only when that one cannot tell (the task still looks running, or the server
//! forgot it as it answered) does the result decide: `isError` reads `failed`.

use crate::json::Value;
use crate::protocol::model::{Outcome, TaskStatus};

use crate::engine::api::Millis;
use crate::engine::Engine;

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

impl Engine {
    /// The task's outcome came before its end: one status request confirms the end, as soon as
    /// the task's interval allows. `false`: nobody follows the task, nothing to confirm.
    pub(super) fn confirm_end(&mut self, now: Millis, task_id: &str) -> bool {
        let followed = self.tasks.get(task_id).is_some_and(|e| !e.subs.is_empty());
        if followed {
            self.poll_soon(now, task_id);
        }
        followed
    }

    /// Whether the task holds an outcome its status has not confirmed yet (and no cancel will).
    pub(super) fn awaits_confirmation(&self, task_id: &str) -> bool {
        let pending =
            (self.tasks.get(task_id)).is_some_and(|e| e.outcome.is_some() && !e.is_terminal());
        pending && !self.cancel_on_its_way(task_id)
    }
}
