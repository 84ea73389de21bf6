//! A held `tasks/result` cut on the way: a proxy between client and server answers 502 or 504
//! once its read timeout passes (nginx: 60 s), however long the task runs. Such a cut says
//! nothing about the task nor the server: the result is held again at once, with one warning per
//! task. A hold cut within [`QUICK_CUT_MS`] is held again only after the error
//! backoff (the one formula, never sooner than the task's interval), so a gateway that fails at
//! once meets a few requests, not a loop.

use crate::protocol::model::TaskStatus;

use crate::engine::api::Millis;
use crate::engine::requests::Failure;
use crate::engine::scheduler::cadence;
use crate::engine::scheduler::TaskTimer;
use crate::engine::Engine;

/// A hold cut sooner than this after it went out is held again only after the backoff.
const QUICK_CUT_MS: Millis = 1_000;

/// Whether `f` is a gateway giving up on a held request (HTTP 502 or 504).
fn cut_on_the_way(f: &Failure) -> bool {
    matches!(f, Failure::Transport { .. }) && matches!(f.http_status(), Some(502 | 504))
}

impl Engine {
    /// The held `tasks/result` of running task `task_id` failed with `f`. A cut on the way is
    /// held again (at once, or after the backoff when quick): `true`. Anything else: `false`,
    /// for the caller to weigh.
    pub(crate) fn held_result_cut(&mut self, now: Millis, task_id: &str, f: &Failure) -> bool {
        if !cut_on_the_way(f) {
            return false;
        }
        let Some(e) = self.tasks.get_mut(task_id) else {
            return false;
        };
        let quick = (e.result.sent_at()).is_some_and(|at| now.saturating_sub(at) < QUICK_CUT_MS);
        let cuts = e.result.cut();
        let interval = e.server_interval();
        if cuts == 1 {
            self.warn(Some(task_id.to_owned()), f.client_error());
        }
        if !quick && self.hold_again(now, task_id) {
            return true;
        }
        let delay = cadence::error_delay(&mut self.rng, cuts, None, interval);
        self.set_task_timer(TaskTimer::Result, task_id, now.saturating_add(delay));
        self.poll_soon(now, task_id);
        true
    }

    /// Whether a running task's result may be held: running tasks hold theirs, or it waits
    /// for input (its requests come on that stream).
    pub(crate) fn may_hold(&self, task_id: &str) -> bool {
        self.holds_running()
            || (self.tasks.get(task_id))
                .is_some_and(|e| e.status() == Some(TaskStatus::InputRequired))
    }
}
