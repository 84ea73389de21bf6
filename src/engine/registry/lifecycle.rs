//! The end of a task's life: its outcome (fetched once, or inline, or the original response),
//! handing every subscriber its `Done`, expiry at the deadline, and garbage collection.

use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Outcome, Task, TaskStatus};

use super::confirm;
use super::cut::{cut_on_the_way, QUICK_CUT_MS};
use super::known::Known;
use super::phase::Phase;
use super::race::RESULT_GRACE_MS;
use super::results::{REFUSAL_WINDOW_MS, TIGHT_BUDGET};
use super::tasks::Source;
use super::TaskEntry;
use crate::collections::sorted::SortedSet;
use crate::engine::api::{ClientError, End, ErrorKind, Millis, Output, SendKey, SubId};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::cadence;
use crate::engine::scheduler::{TaskTimer, Timer};
use crate::engine::session::quirks::Quirk;
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
                self.result_fetched(now, task_id);
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
        } else if self.blocking.unqueue(task_id) {
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
    pub(super) fn end_all(&mut self, task_id: &str, subs: SortedSet<SubId>, end: &End) {
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
    pub(super) fn expire(&mut self, now: Millis, task_id: &str) {
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

    /// A push said the task ended while its `tasks/result` is held.
    pub(super) fn pushed_end_while_held(&mut self, now: Millis, task_id: &str) {
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
    pub(super) fn held_result_answered(&mut self, task_id: &str) {
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
    pub(super) fn race_answer(&mut self, task_id: &str, n: ReqId, res: &Answer) -> bool {
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

    /// The running task `task_id` holds its result no more: the request closes, its slot frees,
    /// and its polls go on the grid its creation set (it may never have been polled).
    pub(crate) fn unhold(&mut self, now: Millis, task_id: &str) {
        self.close_held_result(task_id);
        self.drop_result(task_id);
        self.schedule_poll(now, task_id, Source::Poll);
    }

    /// The held `tasks/result` of running task `task_id` failed with `f`. A cut on the way is
    /// held again (at once, or after the backoff when quick): `true`. Anything else: `false`,
    /// for the caller to weigh.
    pub(super) fn held_result_cut(&mut self, now: Millis, task_id: &str, f: &Failure) -> bool {
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
        self.holds_running() || (self.tasks.get(task_id)).is_some_and(TaskEntry::asks)
    }

    fn result_cap(&self) -> usize {
        self.cfg
            .max_blocking_results
            .unwrap_or_else(|| self.link_budget())
            .max(1)
    }

    /// Slots a running task not waiting for input may hold: all but one, kept for a task that
    /// comes to wait for input (its requests only come on a held result: it must not wait for a
    /// long task's end); all of them while the link's probe makes its witnesses. Once made, a
    /// witness that ends proves nothing: holding every connection again would make each poll
    /// made after it wait in the browser for the next task's end.
    pub(crate) fn running_cap(&self) -> usize {
        let cap = self.result_cap();
        match self.probe_fills() {
            true => cap,
            false => cap - 1,
        }
    }

    /// Whether running tasks hold a blocking `tasks/result`: a legacy server that has not
    /// refused and whose pushes do not bring both the end and the input requests, on a link
    /// whose budget is not tight (a browser's HTTP/1.1 budget is not: two running tasks hold
    /// theirs, a third slot stays for input). On a browser's HTTP/1.1 link, not in a session
    /// whose pushes bring the ends: a held result would only take a connection a pushed end's
    /// `tasks/result` needs (the polls that keep their cadence tell a task waiting for input).
    pub(crate) fn holds_running(&self) -> bool {
        self.session.dialect() == Some(Dialect::Legacy)
            && !self.session.quirks.has(Quirk::NoHeldResult)
            && self.result_cap() > TIGHT_BUDGET
            && !self.leaves_all_to_pushes()
            && (self.cfg.link.connections().is_none() || !self.relies_on_pushes())
    }

    /// A `tasks/result` of `task_id` ended without the outcome while the task still ran. Soon
    /// after it went out, the server does not hold results; a stream dropped after a long hold
    /// (an idle timeout on the way) or with the connection says nothing about the server.
    pub(super) fn result_refused(&mut self, now: Millis, task_id: &str) {
        if self.result_ended_soon(now, task_id) && !self.session.link_down() {
            self.session.quirks.insert(Quirk::NoHeldResult);
        }
    }

    fn result_ended_soon(&self, now: Millis, task_id: &str) -> bool {
        let sent = self.tasks.get(task_id).and_then(|e| e.result.sent_at());
        sent.is_some_and(|at| now.saturating_sub(at) < REFUSAL_WINDOW_MS)
    }

    /// A `tasks/result` answered with an error while its task looked running: the task failed
    /// with it (held to its end), or the server refuses to hold. A poll tells which.
    pub(super) fn early_result_error(&mut self, now: Millis, task_id: &str, error: RpcError) {
        let soon = self.result_ended_soon(now, task_id);
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.set_early_error(error, soon);
        }
        self.poll_soon(now, task_id);
    }

    /// The poll after an early error says `status` (`None`: the task is gone). Running: a
    /// refusal, if the error came soon. Failed: the error is its outcome. Gone: the server
    /// forgot the task as it answered (rmcp consumes a task with its result): the error is
    /// returned, to end the task with.
    pub(super) fn weigh_early_error(
        &mut self,
        task_id: &str,
        status: Option<TaskStatus>,
    ) -> Option<RpcError> {
        let link_down = self.session.link_down();
        let e = self.tasks.get_mut(task_id)?;
        let (error, soon) = e.result.take_early_error()?;
        match status {
            Some(s) if !s.is_terminal() => {
                if soon && !link_down {
                    self.session.quirks.insert(Quirk::NoHeldResult);
                }
                None
            }
            Some(TaskStatus::Failed) => {
                e.outcome
                    .get_or_insert_with(|| Box::new(Outcome::Error { error }));
                None
            }
            Some(_) => None,
            None => Some(error),
        }
    }

    /// Nobody follows the running task `task_id` any more: its held (or waiting) `tasks/result`
    /// is closed at once, freeing its connection and its slot, rather than kept until the task
    /// is dropped. Whoever still needs the end holds a subscription (a handle, `onTaskDoneOnce`
    /// through one, another tab through the leader's), so none needs this one; the task stays
    /// known until its GC and a later watch holds again. A finished task's fetch is kept: it
    /// answers at once, and its outcome waits for a late watcher.
    pub(super) fn release_result(&mut self, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        if !e.subs.is_empty() || e.is_terminal() || e.result.is_idle() {
            return;
        }
        self.close_held_result(task_id);
        self.blocking.unqueue(task_id);
        (self.session).drop_waiting(|p| matches!(p, Purpose::Result(t) if t == task_id));
    }

    /// A watch came back to a running task whose result is not held: it holds again (unless
    /// its first hold still waits for its time, see `pushed.rs`).
    pub(super) fn rehold(&mut self, now: Millis, task_id: &str) {
        let deferred = (self.tasks.get(task_id)).is_none_or(|e| e.result.hold_deferred);
        if self.session.fetches_results() && !deferred {
            self.hold_again(now, task_id);
        }
    }

    /// Holds the `tasks/result` of a running task again after its stream dropped (an idle
    /// timeout on the way, the WebSocket reconnecting: it waits for the session) or its
    /// watchers came back, unless the server refuses to hold or the task need not hold one. At most one per [`REFUSAL_WINDOW_MS`] per task: a quicker drop
    /// is a refusal. `false`: not held again.
    pub(crate) fn hold_again(&mut self, now: Millis, task_id: &str) -> bool {
        if !self.may_hold(task_id) {
            return false;
        }
        let Some(e) = self.tasks.get_mut(task_id) else {
            return false;
        };
        if e.subs.is_empty() || e.is_terminal() || !e.result.is_idle() {
            return false;
        }
        e.result.hold_deferred = false;
        e.result.start();
        self.dispatch(now, Purpose::Result(task_id.to_owned()));
        true
    }

    /// A status poll of `task_id` waited (a server's `Retry-After`) beside its held result, and
    /// the result just went out (`now`, released with it): the result brings the task's news, so
    /// the poll goes back to the task's cadence rather than reaching the server right behind it.
    /// Whether it did.
    pub(crate) fn poll_moot_beside_result(&mut self, now: Millis, task_id: &str) -> bool {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return false;
        };
        let just_sent = e.result.req().is_some() && e.result.sent_at() == Some(now);
        if e.is_terminal() || e.asks() || !just_sent {
            return false;
        }
        e.poll.in_flight = false;
        self.schedule_poll(now, task_id, Source::Poll);
        true
    }

    /// Whether the `tasks/result` of `task_id` may go out now; queues it when every slot is taken.
    pub(crate) fn result_slot(&mut self, task_id: &str) -> bool {
        let Some(e) = self.tasks.get(task_id).filter(|e| !e.is_terminal()) else {
            return true;
        };
        let cap = match e.asks() {
            true => self.result_cap(),
            false => self.running_cap(),
        };
        self.blocking.take_slot(task_id, cap)
    }

    /// The `tasks/result` request `n` of a task is over (answered, failed, closed). The task's
    /// slot is free unless its held request still races a fresh one (see `race.rs`).
    pub(crate) fn result_ended(&mut self, task_id: &str, n: ReqId) {
        let mut held_out = false;
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.ended(n);
            held_out = (e.result.race()).is_some_and(|h| h != n && self.reqs.is_pending(h));
        }
        if !held_out {
            self.blocking.free(task_id);
        }
    }

    /// The task is forgotten: its slot or place in line goes.
    pub(crate) fn drop_result(&mut self, task_id: &str) {
        self.blocking.unqueue(task_id);
        self.blocking.free(task_id);
    }

    /// Sends waiting results into free slots: tasks waiting for input first. A waiting task that
    /// ended goes out at once; one that runs again without needing input no longer waits, unless
    /// running tasks hold their results.
    pub(crate) fn fill_result_slots(&mut self, now: Millis) {
        self.blocking.refilling();
        let hold_running = self.holds_running();
        loop {
            let (cap, running) = (self.result_cap(), self.running_cap());
            let tasks = &self.tasks;
            let asking = |t: &String| (tasks.get(t)).is_some_and(TaskEntry::asks);
            // One waiting for input jumps the line.
            let Some(t) = self.blocking.next_waiting(cap, running, asking) else {
                return;
            };
            let Some(e) = self.tasks.get_mut(&t) else {
                continue;
            };
            if e.result.is_idle() {
                continue;
            }
            let wanted = e.is_terminal() || (!e.subs.is_empty() && (hold_running || e.asks()));
            if wanted {
                self.dispatch(now, Purpose::Result(t));
            } else {
                e.result.stop();
            }
        }
    }

    /// Whether running tasks rely on this session's status pushes instead of held results.
    pub(crate) fn relies_on_pushes(&self) -> bool {
        let legacy = self.session.dialect() == Some(Dialect::Legacy);
        (self.blocking.pushes).relied_on(self.session.epoch(), legacy)
    }

    /// Whether running tasks leave everything to this session's pushes: their ends, and their
    /// input requests. A server seen pushing some statuses may never push `input_required`
    /// (its requests come on a held result): until it was seen doing so, results are held where
    /// the link allows, else young tasks' polls keep their cadence.
    pub(super) fn leaves_all_to_pushes(&self) -> bool {
        self.relies_on_pushes() && self.blocking.pushes.pushes_inputs(self.session.epoch())
    }

    /// Whether a task that starts running waits one interval before holding its result: the
    /// session has not shown yet whether its server pushes.
    pub(crate) fn defers_hold(&self) -> bool {
        self.blocking.pushes.undecided(self.session.epoch())
    }

    /// A status push about `task_id` (now `status`) arrived on `via`: evidence, unless it came
    /// on a `tasks/result` stream. The task's deferred hold is decided: pushes. A running task
    /// whose server is not known to push its input requests holds its result now where the
    /// link allows, as the tasks made from now on do; but not on a link with few connections,
    /// where the pushed ends' results need every one.
    pub(crate) fn note_status_push(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        task_id: &str,
        status: TaskStatus,
    ) {
        let on_result = (via.and_then(|k| self.reqs.id_of(k)))
            .is_some_and(|n| matches!(self.reqs.purpose(n), Some(Purpose::Result(_))));
        if on_result || !self.session.fetches_results() {
            return;
        }
        let relied = self.leaves_all_to_pushes();
        self.blocking.pushes.seen(self.session.epoch(), status);
        let deferred = (self.tasks.get_mut(task_id))
            .is_some_and(|e| std::mem::take(&mut e.result.hold_deferred));
        let roomy = self.cfg.link.connections().is_none();
        if deferred && roomy && status == TaskStatus::Working && self.holds_running() {
            self.hold_again(now, task_id);
        }
        if !relied {
            self.release_lagging_holds(task_id);
        }
    }

    /// Once the session's pushes bring the ends and its held results were seen to lag behind
    /// them (see `race.rs`), a held result only costs a request and a connection: running tasks
    /// that held theirs before close them, except `except` (its push may be its end) and tasks
    /// waiting for input (their requests come on that stream).
    pub(super) fn release_lagging_holds(&mut self, except: &str) {
        if !self.leaves_all_to_pushes() || !self.session.quirks.has(Quirk::HeldResultLags) {
            return;
        }
        let held = self.tasks.ids_where(&|id, e| {
            id != except
                && !e.is_terminal()
                && e.status() != Some(TaskStatus::InputRequired)
                && e.result.req().is_some()
                && e.result.race().is_none()
        });
        for t in held {
            self.close_held_result(&t);
        }
    }

    /// A deferred hold's interval passed (in place of the task's first poll): with pushes seen,
    /// the next poll is the safety net; without, the session holds results from now on and this
    /// task's goes out. `false`: no result went out (not held, or it waits for a slot), the poll
    /// goes out as usual: a task waiting for a slot keeps the server's interval.
    pub(super) fn deferred_hold_due(&mut self, now: Millis, task_id: &str) -> bool {
        if self.leaves_all_to_pushes() {
            self.schedule_poll(now, task_id, Source::Push);
            return true;
        }
        if !self.relies_on_pushes() {
            // Silent: the link's probe may start (it may hold this task's result).
            self.blocking.pushes.silent(self.session.epoch());
            self.probe_start(now);
        }
        self.hold_again(now, task_id);
        if !self.result_held(task_id) {
            return false;
        }
        self.schedule_poll(now, task_id, Source::Poll);
        true
    }

    /// Whether the task's `tasks/result` is on its way (not waiting for a slot or the session).
    fn result_held(&self, task_id: &str) -> bool {
        (self.tasks.get(task_id)).is_some_and(|e| e.result.req().is_some())
    }

    /// A poll of `task_id` is due a whole interval after its status last changed, and the
    /// session has not shown yet whether its server pushes: it is silent, and the link's probe
    /// may start.
    pub(super) fn poll_unpushed(&mut self, now: Millis, task_id: &str) {
        let quiet = self.tasks.get(task_id).is_some_and(|e| {
            let interval = cadence::floor(e.server_interval());
            (e.poll.since.get()).is_some_and(|at| now.saturating_sub(at) >= interval)
        });
        if quiet && self.defers_hold() {
            self.blocking.pushes.silent(self.session.epoch());
            self.probe_start(now);
        }
    }

    /// A poll saw `task_id` end while its end was left to a push: the session's pushes are not
    /// relied on any more, and every running task holds its result again.
    pub(super) fn end_not_pushed(&mut self, now: Millis, task_id: &str) {
        if self.result_held(task_id) || !self.relies_on_pushes() {
            return;
        }
        self.blocking.pushes.missed(self.session.epoch());
        let running = self
            .tasks
            .ids_where(&|_, e| !e.subs.is_empty() && !e.is_terminal() && e.result.is_idle());
        for t in running {
            self.hold_again(now, &t);
        }
    }
}
