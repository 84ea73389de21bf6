//! A task that reports `input_required` while its input request never comes. The client asks for
//! it every way the dialect offers (2025-11-25: a `tasks/result`, on whose stream or any other the
//! request comes; 2026-07-28: `tasks/get`, whose answer carries `inputRequests`); a poll that still
//! finds the task waiting [`NO_INPUT_MS`] after that, with no input request open and none come or
//! answered meanwhile, ends its subscribers with a typed error naming the deviation: nothing the
//! client can do moves the task, and a caller must not wait forever. The entry stays until its GC
//! like any task nobody follows, so a later `watch` of the id joins it at its cadence.

use crate::engine::api::{ClientError, End, ErrorKind, Millis};
use crate::engine::Engine;
use crate::protocol::model::TaskStatus;

/// How long after being asked a server may leave a task `input_required` with no input request.
pub(crate) const NO_INPUT_MS: Millis = 5_000;

const NO_INPUT: &str =
    "the server reports the task input_required but sent no input request within 5 s of being asked";

impl Engine {
    /// A poll found task `task_id` as it is now: when it waits for an input request that did not
    /// come in time, its subscribers fail and it is no longer polled.
    pub(crate) fn input_never_came(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        let Some(snapshot) = e
            .snapshot
            .as_ref()
            .filter(|k| k.status == TaskStatus::InputRequired)
        else {
            return;
        };
        // Asked: since it became `input_required`, and (2025-11-25) since its result was asked.
        let since = e.poll.since.get().unwrap_or(now);
        let asked = match self.session.fetches_results() {
            true => e.result.sent_at().map(|s| s.max(since)),
            false => Some(since),
        };
        let late = asked.is_some_and(|at| now >= at.saturating_add(NO_INPUT_MS));
        if !late
            || e.subs.is_empty()
            || !snapshot.input_requests().is_empty()
            || self.inputs.heard_within(now, NO_INPUT_MS)
        {
            return;
        }
        let error = ClientError::new(ErrorKind::Protocol, NO_INPUT);
        let subs = self
            .tasks
            .get_mut(task_id)
            .map(|e| std::mem::take(&mut e.subs));
        self.end_all(task_id, subs.unwrap_or_default(), &End::Failed { error });
        self.after_membership_change(now, task_id);
    }
}
