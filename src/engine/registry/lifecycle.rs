//! The end of a task's life: its outcome (fetched once, or inline, or the original response),
//! handing every subscriber its `Done`, expiry at the deadline, and garbage collection.

use crate::protocol::model::{Outcome, Task, TaskStatus};

use super::confirm;
use super::known::Known;
use super::phase::Phase;
use super::tasks::Source;
use crate::collections::sorted::SortedSet;
use crate::engine::api::{ClientError, End, ErrorKind, Millis, SubId};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::cadence;
use crate::engine::scheduler::{TaskTimer, Timer};
use crate::engine::Engine;

impl Engine {
    /// The `tasks/result` request `n` answered `res`.
    pub(crate) fn on_result(&mut self, now: Millis, task_id: &str, n: ReqId, res: Answer) {
        if self.race_answer(task_id, n, &res) {
            return;
        }
        let rpc = res.as_ref().err().and_then(|f| f.answering());
        let gone = rpc.is_some_and(|e| self.gone_code(e.code));
        let outlived = self.outlived_session(task_id);
        if res.is_ok() || rpc.is_some() {
            self.held_result_answered(task_id);
        }
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.result.stop();
        let terminal = entry.is_terminal();
        let completed = entry.status() == Some(TaskStatus::Completed);
        match res {
            Ok(result) => {
                entry.result.succeeded();
                self.task_outcome(now, task_id, Outcome::Result { result });
            }
            Err(f) => match *f {
                // Completed (or ended before a session it outlived), yet "no such task": the
                // result is gone (consumed, evicted, lost with the session), which is not the
                // task's outcome.
                Failure::Rpc(error) if gone && (completed || (terminal && outlived)) => {
                    self.give_up_outcome(now, task_id, error.into())
                }
                Failure::Rpc(error) if terminal => {
                    self.task_outcome(now, task_id, Outcome::Error { error })
                }
                // Answered with an error before the end was seen: a poll weighs it.
                Failure::Rpc(error) => self.early_result_error(now, task_id, error),
                f if !terminal && self.held_result_cut(now, task_id, &f) => {}
                f => {
                    if !terminal && !f.overloaded() && matches!(f, Failure::Transport { .. }) {
                        // Closed without a result while the task ran: a refusal, or a long hold
                        // dropped on the way, held again.
                        self.result_refused(now, task_id);
                        if self.hold_again(now, task_id) {
                            return;
                        }
                    }
                    let Some(entry) = self.tasks.get_mut(task_id) else {
                        return;
                    };
                    let errors = entry.result.failed();
                    let error = f.client_error();
                    self.warn(Some(task_id.to_owned()), error.clone());
                    if terminal && errors > super::tasks::FINAL_POLL_TRIES {
                        self.give_up_outcome(now, task_id, error);
                    } else if terminal {
                        self.retry_task(now, task_id, errors, &f, None, Some(Purpose::Result));
                    } else {
                        self.poll_soon(now, task_id);
                    }
                }
            },
        }
    }

    /// The dialect has no `tasks/result`: finish with what is known.
    pub(crate) fn result_unavailable(&mut self, now: Millis, task_id: &str) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.stop();
            e.phase.finish(None);
        }
        self.drop_result(task_id);
        self.settle(now, task_id);
    }

    /// The outcome arrived (result fetch, or the original response): it ends the task.
    pub(crate) fn task_outcome(&mut self, now: Millis, task_id: &str, outcome: Outcome) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.outcome.is_none() {
            entry.outcome = Some(Box::new(outcome.clone()));
        }
        if entry.is_terminal() {
            return self.settle(now, task_id);
        }
        if self.cancel_on_its_way(task_id) {
            // The task may have ended by that cancel, and a server may answer a cancelled task's
            // result with an empty one: the cancel's answer says which end it was.
            return;
        }
        if !confirm::tells_status(&outcome) && self.confirm_end(now, task_id) {
            return;
        }
        self.end_from_outcome(now, task_id);
    }

    /// Ends a running task with the end its recorded outcome implies: a result only comes once
    /// the task ended.
    pub(super) fn end_from_outcome(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        let Some(outcome) = entry.outcome.as_deref().cloned() else {
            return;
        };
        let mut task = entry.snapshot.as_ref().map_or_else(
            || Task::new(task_id, TaskStatus::Working),
            |k| k.task(task_id),
        );
        task.status = confirm::implied_status(&outcome);
        task.outcome = Some(outcome);
        task.input_requests.clear();
        self.apply_snapshot(now, task_id, task, Source::Other);
    }

    /// Whether a `tasks/cancel` for the task was sent and is not answered yet.
    pub(super) fn cancel_on_its_way(&self, task_id: &str) -> bool {
        self.reqs
            .purposes()
            .any(|p| matches!(p, Purpose::Cancel { task_id: t, .. } if t == task_id))
    }

    /// The task is terminal: fetch its result once if needed, else hand every subscriber its `Done`.
    pub(crate) fn settle(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if !entry.is_terminal() {
            return;
        }
        self.timers.clear(&Timer::Task(TaskTimer::Poll, entry.slot));
        self.timers
            .clear(&Timer::Task(TaskTimer::Deadline, entry.slot));
        if entry.subs.is_empty() {
            return self.after_membership_change(now, task_id);
        }
        // Only a completed or failed task has an outcome to get.
        let has_outcome = matches!(
            entry.status(),
            Some(TaskStatus::Completed | TaskStatus::Failed)
        );
        match (&entry.phase, entry.outcome.is_none() && has_outcome) {
            (Phase::Ending { .. }, true) if self.session.fetches_results() => {
                self.fetch_outcome(now, task_id)
            }
            (Phase::Ending { .. }, true) => self.final_inline_get(now, task_id),
            _ => self.deliver_end(now, task_id),
        }
    }

    /// A finished task's outcome is fetched with `tasks/result`: once its original request
    /// (draft) had its chance to carry it, the result is asked for, or the one already open
    /// (held while the task ran) must now answer within the request timeout.
    fn fetch_outcome(&mut self, now: Millis, task_id: &str) {
        let original_open = self.calls.values().any(|c| c.became_task(task_id));
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if let (true, Phase::Ending { waited_original }) = (original_open, &mut entry.phase) {
            // The original request is still open (draft): its response is the result — for
            // a while; then `tasks/result` anyway.
            if !*waited_original {
                *waited_original = true;
                let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
                return self
                    .timers
                    .set(Timer::Task(TaskTimer::Poll, entry.slot), at);
            }
        }
        if entry.result.start() {
            self.dispatch(now, Purpose::Result(task_id.to_owned()));
        } else if let Some(n) = entry.result.req() {
            // Opened while the task ran (it blocked); now it must answer, or be asked again.
            if !self.reqs.has_timeout(n) {
                let at = now.saturating_add(self.cfg.request_timeout_ms);
                self.reqs.arm_timeout(n, at);
            }
        } else if self.unqueue_result(task_id) {
            // It waited for a slot: a finished task's result needs none.
            self.dispatch(now, Purpose::Result(task_id.to_owned()));
        }
    }

    /// Inline outcomes (modern): the end was seen without one (create result, push), so one
    /// last `tasks/get`, at the poll cadence, carries it.
    fn final_inline_get(&mut self, now: Millis, task_id: &str) {
        let steady = cadence::steady(self.cfg.cadence, self.visible);
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.poll.in_flight {
            return;
        }
        let floor = cadence::floor(entry.server_interval());
        let at = (entry.poll).earliest_next(now, floor, steady);
        if at > now {
            return self
                .timers
                .set(Timer::Task(TaskTimer::Poll, entry.slot), at);
        }
        entry.phase.finish(None);
        entry.poll.in_flight = true;
        self.dispatch(now, Purpose::Get(task_id.to_owned()));
    }

    /// Hands every subscriber of the ended task its `Done` (the outcome, or why there is none).
    fn deliver_end(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if let Some(snap) = entry.snapshot.as_mut() {
            Known::keep_outcome(snap, entry.outcome.as_deref());
        }
        let end = match &entry.phase {
            Phase::Ended { error: Some(error) } => End::Failed {
                error: ClientError::clone(error),
            },
            _ => End::Finished {
                task: entry.snapshot.as_ref().map(|k| k.task(task_id)),
                outcome: entry.outcome.as_deref().cloned(),
            },
        };
        let subs = std::mem::take(&mut entry.subs);
        self.inputs.drop_task(task_id);
        self.end_all(task_id, subs, &end);
        self.delete_when_delivered(now, task_id, &end);
        self.after_membership_change(now, task_id);
    }

    /// Ends the subscriptions `subs` of task `task_id` with `end`.
    pub(crate) fn end_all(&mut self, task_id: &str, subs: SortedSet<SubId>, end: &End) {
        for sub in subs {
            self.done(sub, Some(task_id.to_owned()), end.clone());
        }
    }

    /// The outcome cannot be had (`cause` says why). A completed task's subscribers end with a
    /// [`ErrorKind::ResultUnavailable`] error (keeping the server's code and HTTP status); others get the end
    /// without an outcome (their status tells how they ended).
    pub(super) fn give_up_outcome(&mut self, now: Millis, task_id: &str, cause: ClientError) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            let unavailable = e.status() == Some(TaskStatus::Completed) && e.outcome.is_none();
            let error = unavailable.then(|| {
                let message = [
                    "the task completed but its result could not be fetched: ",
                    &cause.message,
                ]
                .concat();
                let mut error = ClientError::new(ErrorKind::ResultUnavailable, message);
                error.code = cause.code;
                error.http_status = cause.http_status;
                error.data = cause.data;
                error
            });
            e.phase.finish(error);
        }
        self.settle(now, task_id);
    }

    /// Client-side end: the deadline passed, or the server forgot a task it knew.
    pub(crate) fn expire(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        if entry.is_terminal() {
            return;
        }
        let mut task = entry.snapshot.as_ref().map_or_else(
            || Task::new(task_id, TaskStatus::Expired),
            |k| k.task(task_id),
        );
        task.status = TaskStatus::Expired;
        task.input_requests.clear();
        self.apply_snapshot(now, task_id, task, Source::Other);
    }

    /// createdAt + ttl passed: one last poll (the task may have ended just in time, or the clocks
    /// may disagree), then `expired` unless it ended. A second firing (no answer) expires it.
    pub(crate) fn on_deadline(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        if e.is_terminal() || e.deadline.get().is_none_or(|d| d > now) {
            return;
        }
        if matches!(e.phase, Phase::LastPoll { .. }) {
            return self.expire(now, task_id);
        }
        e.phase.last_poll();
        let slot = e.slot;
        let fallback = now.saturating_add(self.cfg.request_timeout_ms.max(1));
        self.timers
            .set(Timer::Task(TaskTimer::Deadline, slot), fallback);
        self.poll_soon(now, task_id);
    }

    /// Drops a task nobody follows any more. A status request still out (it times out) delays
    /// this; a blocked `tasks/result` is closed (legacy: a disconnect is not a cancellation) and
    /// a draft original request still open is forgotten.
    pub(crate) fn on_gc(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        if !entry.subs.is_empty() {
            return;
        }
        let (polling, results) = (
            entry.poll.in_flight,
            [entry.result.req(), entry.result.race()],
        );
        let ours = |p: &Purpose| matches!(p, Purpose::Get(t) | Purpose::Result(t) if t == task_id);
        let queued_get = self
            .session
            .waiting()
            .any(|p| matches!(p, Purpose::Get(t) if t == task_id));
        if polling && !queued_get {
            // A status request is out (it times out).
            let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
            return self.set_task_timer(TaskTimer::Gc, task_id, at);
        }
        self.session.drop_waiting(ours);
        for n in results {
            if let Some(p) = n.and_then(|n| self.take_pending(n)) {
                self.out
                    .push_back(crate::engine::api::Output::Abort { key: p.key });
            }
        }
        self.forget_calls_of(task_id);
        self.remove_task(task_id);
        self.inputs.drop_task(task_id);
    }
}
