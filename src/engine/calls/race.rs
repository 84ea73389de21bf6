//! A pushed end while the task's `tasks/result` is held. Some servers notice the end on that
//! stream only at their next internal check (the TS SDK re-reads its store every poll interval)
//! while a fresh request answers at once; others answer the held one at once. Until the server
//! has shown which, a fresh `tasks/result` races the held one: the first to bring the outcome
//! wins and the other is closed. A win of the fresh one teaches that held results lag: from
//! then on a pushed end closes the held stream and asks again at once (one request open per
//! task). A win of the held one teaches that they are prompt: from then on the held stream gets
//! [`RESULT_GRACE_MS`] before the race starts (no second request where none is needed).
//!
//! While both are out, an answer without the outcome is set aside: a server that forgets a task
//! once its result was answered meets the second request with "no such task", maybe before the
//! first one's answer arrives on its own connection. The other request decides. The fresh
//! request needs no slot of the result budget (a finished task's result answers at once), and
//! the held one keeps its slot until it ends.

use crate::protocol::model::TaskStatus;

use crate::engine::api::{Millis, Output};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::TaskTimer;
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

/// How long a held `tasks/result` of a server whose held results were seen prompt may take to
/// bring the outcome after a pushed end before a fresh one races it.
const RESULT_GRACE_MS: Millis = 100;

impl Engine {
    /// A push said the task ended while its `tasks/result` is held.
    pub(crate) fn pushed_end_while_held(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        let outcome_due = e.outcome.is_none()
            && matches!(e.status(), Some(TaskStatus::Completed | TaskStatus::Failed));
        if e.result.req().is_none() || e.result.race().is_some() || !outcome_due {
            return;
        }
        if self.session.quirks.has(Quirk::HeldResultLags) {
            return self.close_held_result(task_id);
        }
        if self.session.quirks.has(Quirk::HeldResultPrompt) && e.result.start_grace() {
            let at = now.saturating_add(RESULT_GRACE_MS);
            return self.set_task_timer(TaskTimer::Result, task_id, at);
        }
        self.race_held_result(now, task_id);
    }

    /// The task's result timer: the grace after a pushed end passed without the outcome (a
    /// fresh request races the held one), or the backoff after a cut hold (see `cut.rs`).
    pub(crate) fn on_result_timer(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        if e.result.take_grace() {
            self.race_held_result(now, task_id);
        } else {
            self.hold_again(now, task_id);
        }
    }

    /// The held stream brought an answer: no grace runs any more.
    pub(crate) fn held_result_answered(&mut self, task_id: &str) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.take_grace();
        }
        if let Some(t) = self.task_timer(TaskTimer::Result, task_id) {
            self.timers.clear(&t);
        }
    }

    /// Sends a fresh `tasks/result` next to the held one, which now must answer within the
    /// request timeout too.
    fn race_held_result(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        let Some(held) = e.result.start_race() else {
            return;
        };
        if !self.reqs.has_timeout(held) {
            let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
            self.reqs.arm_timeout(held, at);
        }
        self.dispatch(now, Purpose::Result(task_id.to_owned()));
    }

    /// Request `n`, one of the task's two racing `tasks/result`, answered `res`. The first
    /// outcome wins, and the other request is closed; an answer without it while the other is
    /// still out is set aside: `true`, nothing more to do with it.
    pub(crate) fn race_answer(&mut self, task_id: &str, n: ReqId, res: &Answer) -> bool {
        let Some(e) = self.tasks.get(task_id) else {
            return false;
        };
        let Some(held) = e.result.race() else {
            return false;
        };
        let held_won = n == held;
        let other = match held_won {
            true => e.result.req(),
            false => Some(held).filter(|h| self.reqs.is_pending(*h)),
        };
        // The held stream's error is the task's own answer, unless it says the task is gone; a
        // fresh request's error may only say the held one took the result.
        let outcome = match res {
            Ok(_) => true,
            Err(f) => match &**f {
                Failure::Rpc(error) => held_won && !self.gone_code(error.code),
                _ => false,
            },
        };
        let over = other.is_none();
        if !outcome && !over {
            return true;
        }
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.end_race();
        }
        if over {
            // The other one ended first without the outcome: this answer counts as any.
            return false;
        }
        let learned = match held_won {
            true => Quirk::HeldResultPrompt,
            false => Quirk::HeldResultLags,
        };
        self.session.quirks.insert(learned);
        if let Some(p) = other.and_then(|o| self.take_pending(o)) {
            self.out.push_back(Output::Abort { key: p.key });
        }
        self.release_lagging_holds(task_id);
        false
    }

    /// Closes the held `tasks/result` of a task, if any: its fetch is idle (settling asks again).
    pub(crate) fn close_held_result(&mut self, task_id: &str) {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        let held = e.result.req();
        e.result.stop();
        if let Some(p) = held.and_then(|n| self.take_pending(n)) {
            self.out.push_back(Output::Abort { key: p.key });
        }
    }
}
