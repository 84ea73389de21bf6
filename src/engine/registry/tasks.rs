//! Task tracking: subscribing and leaving, applying snapshots (polls, pushes, create results),
//! the poll loop (one status request in flight per task), result fetching, expiry, and GC; a
//! task's export and import.

use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Outcome, Task, TaskStatus};

use super::phase::Phase;
use crate::engine::api::{ClientError, End, Event, Millis, Output, SubId};
use crate::engine::calls::inputs::Origin;
use crate::engine::calls::no_input;
use crate::engine::ids::ReqId;
use crate::engine::registry::TaskEntry;
use crate::engine::registry::{self, Applied};
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::cadence::{self, CATCH_UP_THROTTLE_MS};
use crate::engine::scheduler::{TaskTimer, Timer};
use crate::engine::session::quirks::TaskMethod;
use crate::engine::snapshot::TaskSnapshot;
use crate::engine::Engine;

/// Tries of the final poll that fetches a terminal task's inline outcome.
pub(super) const FINAL_POLL_TRIES: u32 = 3;

/// JSON-RPC codes servers use for "no such task" (match on meaning; the raw code is kept).
pub(crate) const GONE_CODES: [i64; 3] = [-32602, -32002, -32010];
/// Also "no such task" from a legacy server; from a sessionless (modern) server it means a
/// malformed request, which says nothing about the task.
pub(crate) const LEGACY_GONE_CODE: i64 = -32600;

/// Where a snapshot came from (decides the next poll).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The create result (or a draft `created`): schedule the first poll.
    Create,
    /// A task the requestor named as its request went out (draft), not yet confirmed by the
    /// server: schedule the first poll.
    Named,
    /// A status poll: schedule the next one with backoff.
    Poll,
    /// A push: the next poll becomes a safety net.
    Push,
    /// Anything else (a cancel answer, a synthesized end): no rescheduling.
    Other,
}

impl Engine {
    /// The entry of a task, created (with a fresh slot) when new: always `Some`.
    pub(in crate::engine) fn task_entry(&mut self, task_id: &str) -> Option<&mut TaskEntry> {
        self.tasks.entry(task_id)
    }

    /// Whether a JSON-RPC error code answering a request about a task means "no such task".
    pub(super) fn gone_code(&self, code: i64) -> bool {
        GONE_CODES.contains(&code)
            || (code == LEGACY_GONE_CODE
                && self.session.dialect() != Some(crate::protocol::model::Dialect::Modern))
    }

    /// Forgets a task entirely: entry, slot, timers.
    pub(super) fn remove_task(&mut self, task_id: &str) -> Option<Box<TaskEntry>> {
        let entry = self.tasks.remove(task_id)?;
        self.drop_result(task_id);
        for kind in [
            TaskTimer::Poll,
            TaskTimer::Deadline,
            TaskTimer::Gc,
            TaskTimer::Result,
        ] {
            self.timers.clear(&Timer::Task(kind, entry.slot));
        }
        Some(entry)
    }

    /// A task's timer, when the task is known.
    pub(super) fn task_timer(&self, kind: TaskTimer, task_id: &str) -> Option<Timer> {
        self.tasks.get(task_id).map(|e| Timer::Task(kind, e.slot))
    }

    pub(super) fn set_task_timer(&mut self, kind: TaskTimer, task_id: &str, at: Millis) {
        if let Some(t) = self.task_timer(kind, task_id) {
            self.timers.set(t, at);
        }
    }

    /// Adds a subscriber to a task (creating the entry), replaying what is known.
    pub(crate) fn subscribe(&mut self, now: Millis, task_id: &str, sub: SubId) {
        let Some(entry) = self.task_entry(task_id) else {
            return;
        };
        entry.subs.insert(sub);
        let snapshot = entry.snapshot.as_ref().map(|k| k.task(task_id));
        let terminal = entry.is_terminal();
        let unknown = snapshot.is_none();
        let slot = entry.slot;
        let polling = entry.poll.in_flight;
        if let Some(task) = snapshot {
            self.emit(Event::Status { sub, task });
        }
        if terminal {
            self.settle(now, task_id);
        } else if unknown && !polling {
            self.poll_now(now, task_id);
        } else if !polling
            && self
                .timers
                .get(&Timer::Task(TaskTimer::Poll, slot))
                .is_none()
        {
            // Polling had stopped (nobody followed the task): resume.
            self.poll_soon(now, task_id);
        }
        if !terminal && !unknown {
            self.rehold(now, task_id);
        }
        self.after_membership_change(now, task_id);
    }

    /// A subscriber left (its `Done` was already emitted).
    pub(crate) fn leave(&mut self, now: Millis, task_id: &str, sub: SubId) {
        if let Some(entry) = self.tasks.get_mut(task_id) {
            entry.subs.remove(&sub);
        }
        self.after_membership_change(now, task_id);
    }

    /// Stops polling a task nobody follows (closing its held result, scheduling its GC), or
    /// cancels a pending GC.
    pub(crate) fn after_membership_change(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        let slot = entry.slot;
        let followed = !entry.subs.is_empty() && !entry.is_terminal();
        self.listen_follow(now, task_id, followed);
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        if entry.subs.is_empty() {
            self.release_result(task_id);
            self.timers.clear(&Timer::Task(TaskTimer::Poll, slot));
            self.timers.clear(&Timer::Task(TaskTimer::Deadline, slot));
            let gc = Timer::Task(TaskTimer::Gc, slot);
            if self.timers.get(&gc).is_none() {
                self.timers
                    .set(gc, now.saturating_add(self.cfg.result_gc_ms));
            }
        } else {
            self.timers.clear(&Timer::Task(TaskTimer::Gc, slot));
            if let Some(d) = entry.deadline.get().filter(|_| !entry.is_terminal()) {
                self.timers.set(Timer::Task(TaskTimer::Deadline, slot), d);
            }
        }
    }

    /// Merges a snapshot and does what it implies: events, inputs, deadline, next poll, the end.
    pub(crate) fn apply_snapshot(&mut self, now: Millis, task_id: &str, task: Task, src: Source) {
        let Some(applied) = self.merge_snapshot(task_id, task, src) else {
            return;
        };
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        let Some(status) = entry.status() else {
            return;
        };
        let has_subs = !entry.subs.is_empty();
        self.publish(now, task_id, &applied);
        if status.is_terminal() {
            match src {
                Source::Push => self.pushed_end_while_held(now, task_id),
                Source::Poll => self.end_not_pushed(now, task_id),
                _ => {}
            }
            return self.settle(now, task_id);
        }
        if self.keep_deadline(now, task_id, src, has_subs) {
            self.schedule_poll(now, task_id, src);
        }
    }

    /// Merges `task` into the task's entry: news from the server confirms the task. `None` when
    /// the task is not tracked.
    fn merge_snapshot(&mut self, task_id: &str, task: Task, src: Source) -> Option<Applied> {
        let entry = self.tasks.get_mut(task_id)?;
        if src != Source::Named && entry.phase.confirm() {
            if let Some(n) = entry.origin {
                // The original request now runs as long as the task: no timeout.
                self.reqs.no_timeout(n);
            }
        }
        let applied = registry::apply(entry, task);
        if src == Source::Poll && !self.session.fetches_results() {
            // Inline outcomes: a poll that saw the end carried whatever outcome there is.
            entry.phase.finish(None);
        }
        Some(applied)
    }

    /// Tells what a merged snapshot changed: the transition, each subscriber's new status, the
    /// task's input requests; and opens the legacy `tasks/result` stream when it carries them
    /// (input required) or holds the outcome (where connections are free; one interval later
    /// while the session's pushes are unknown).
    fn publish(&mut self, now: Millis, task_id: &str, applied: &Applied) {
        let hold_running = self.holds_running();
        let defer = self.defers_hold();
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        let Some(snap) = entry.snapshot.as_ref() else {
            return;
        };
        // Clone only when someone will see it (most polls change nothing).
        let shown =
            (applied.visible_change && !entry.subs.is_empty()) || !snap.input_requests().is_empty();
        let snapshot = shown.then(|| snap.task(task_id));
        let has_subs = !entry.subs.is_empty();
        let mut fetch = false;
        // Events go straight to the output queue (a field apart from the entry borrowed here).
        let out = &mut self.out;
        if let Some((from, to)) = applied.transition {
            entry.poll.since = now.into();
            let asks = to == TaskStatus::InputRequired;
            if asks {
                self.blocking.asked(task_id);
            }
            fetch = (asks || (hold_running && !to.is_terminal()))
                && self.session.fetches_results()
                && entry.result.is_idle()
                && has_subs;
            entry.result.hold_deferred = fetch && !asks && defer;
            fetch &= !entry.result.hold_deferred;
            if fetch {
                entry.result.start();
            }
            out.push_back(Output::Event(Event::Transition {
                task_id: task_id.to_owned(),
                from,
                to,
                at: now,
            }));
        }
        if let (true, Some(snapshot)) = (applied.visible_change, &snapshot) {
            for &sub in entry.subs.iter() {
                out.push_back(Output::Event(Event::Status {
                    sub,
                    task: snapshot.clone(),
                }));
            }
        }
        if fetch {
            self.dispatch(now, Purpose::Result(task_id.to_owned()));
        }
        if applied.transition.is_some_and(|(from, _)| from.is_none()) {
            self.probe_start(now);
        }
        if let Some(snapshot) = &snapshot {
            self.surface_task_inputs(now, task_id, snapshot);
        }
    }

    /// A running task's deadline after news from `src`: the last poll past it (still running)
    /// expires the task, a later deadline lifts the last-poll state, and the deadline timer runs
    /// while someone follows the task. `false` when the task expired.
    fn keep_deadline(&mut self, now: Millis, task_id: &str, src: Source, has_subs: bool) -> bool {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return false;
        };
        let passed = entry.deadline.get().is_none_or(|d| d <= now);
        match (&entry.phase, passed) {
            (Phase::LastPoll { .. }, true) if src == Source::Poll => {
                // The last poll after the deadline: still not ended.
                self.expire(now, task_id);
                return false;
            }
            // The deadline moved on: the task runs again.
            (Phase::LastPoll { .. }, false) => entry.phase.resume(),
            _ => {}
        }
        let deadline = Timer::Task(TaskTimer::Deadline, entry.slot);
        match (entry.deadline.get(), &entry.phase) {
            // The last poll's own timer runs.
            (_, Phase::LastPoll { .. }) => {}
            (Some(d), _) if has_subs => {
                if self.timers.get(&deadline) != Some(d) {
                    self.timers.set(deadline, d);
                }
            }
            _ => self.timers.clear(&deadline),
        }
        true
    }

    /// The next poll after news from `src` (polls follow the cadence, pushes postpone).
    pub(super) fn schedule_poll(&mut self, now: Millis, task_id: &str, src: Source) {
        if src != Source::Poll && self.inputs_untold(task_id) {
            return self.poll_soon(now, task_id);
        }
        let pushed = self.leaves_all_to_pushes();
        let relied = self.relies_on_pushes();
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.subs.is_empty() || entry.poll.in_flight {
            return;
        }
        let interval = entry.server_interval();
        let timer = Timer::Task(TaskTimer::Poll, entry.slot);
        // A held `tasks/result`, a listen stream or the session's pushes bring the end: polls
        // are only the safety net meanwhile.
        let held = (entry.result.req().is_some() || pushed || self.listen.pushes(task_id))
            && !entry.is_terminal();
        // Pushes bring the ends but maybe not the input requests: they postpone no poll, but
        // on a steady cadence a push is as fresh as a poll's answer: the task's next poll comes
        // an interval (and a tenth: the next push, one interval later, comes first) after it.
        let partly = relied && !held;
        let steady = cadence::steady(self.cfg.cadence, self.visible);
        let delay = match src {
            Source::Create | Source::Named | Source::Poll | Source::Push if held => {
                cadence::safety_delay(interval, self.visible)
            }
            // The deferred hold goes out one interval after the task started, to the
            // millisecond: a server that re-reads its store each interval of a held request's
            // life then notices the end as soon as it can.
            Source::Create | Source::Named | Source::Poll if entry.result.hold_deferred => {
                cadence::floor(interval)
            }
            Source::Create | Source::Named => {
                cadence::first_poll_delay(&mut self.rng, interval, self.visible, self.cfg.cadence)
            }
            Source::Push if !partly => cadence::safety_delay(interval, self.visible),
            Source::Push if steady => cadence::after_push(interval),
            Source::Poll | Source::Push => {
                let age = now.saturating_sub(entry.poll.since.get().unwrap_or(now));
                let pace = self.pace();
                let at = (self.tasks).next_poll_at(now, task_id, age, pace, &mut self.rng);
                at.saturating_sub(now)
            }
            Source::Other => return,
        };
        let at = now.saturating_add(delay);
        match src {
            Source::Push if partly && !steady => self.timers.set_earlier(timer, at),
            _ => self.timers.set(timer, at),
        }
    }

    /// Modern `inputRequests`: each key surfaced once per task.
    fn surface_task_inputs(&mut self, now: Millis, task_id: &str, snapshot: &Task) {
        if snapshot.input_requests.is_empty() {
            return;
        }
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.subs.is_empty() {
            return;
        }
        let mut fresh = Vec::new();
        for r in &snapshot.input_requests {
            if entry.input_keys.insert(r.key.clone()) {
                fresh.push(r.clone());
            }
        }
        for request in fresh {
            self.surface_input(now, Some(task_id.to_owned()), request, Origin::Task);
        }
    }

    /// The server said the task exists (draft `created` after the task was named).
    pub(crate) fn confirm_task(&mut self, task_id: &str) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.phase.confirm();
        if let Some(n) = entry.origin {
            self.reqs.no_timeout(n);
        }
    }

    /// A poll is due now (first poll of a watched id).
    fn poll_now(&mut self, now: Millis, task_id: &str) {
        self.set_task_timer(TaskTimer::Poll, task_id, now);
    }

    /// A poll as soon as the server's interval allows (catch-up, after an answer or a cancel).
    pub(crate) fn poll_soon(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        if e.subs.is_empty() || e.is_terminal() || e.poll.in_flight {
            return;
        }
        let steady = cadence::steady(self.cfg.cadence, self.visible);
        let at = (e.poll).earliest_next(now, cadence::floor(e.server_interval()), steady);
        self.timers
            .set_earlier(Timer::Task(TaskTimer::Poll, e.slot), at);
    }

    /// A catch-up poll, spread over the task's next interval (see `Registry::poll_spread`).
    pub(crate) fn poll_spread(&mut self, now: Millis, task_id: &str) {
        let pace = self.pace();
        (self.tasks).poll_spread(now, task_id, pace, (&mut self.rng, &mut self.timers));
    }

    /// One catch-up poll for every followed task (visible again, online again), spread over one
    /// interval: at most every 5 s.
    pub(crate) fn catch_up(&mut self, now: Millis) {
        if !self.session.is_ready() {
            return self.connect(now);
        }
        if self
            .last_catch_up
            .is_some_and(|t| now < t.saturating_add(CATCH_UP_THROTTLE_MS))
        {
            return;
        }
        self.last_catch_up = Some(now);
        for t in self.tasks.followed() {
            self.poll_spread(now, &t);
        }
    }

    pub(crate) fn on_poll_timer(&mut self, now: Millis, task_id: String) {
        let Some(entry) = self.tasks.get_mut(&task_id) else {
            return;
        };
        if entry.subs.is_empty() {
            return;
        }
        if entry.is_terminal() {
            return self.settle(now, &task_id);
        }
        if entry.poll.in_flight {
            return;
        }
        if std::mem::take(&mut entry.result.hold_deferred) && self.deferred_hold_due(now, &task_id)
        {
            return;
        }
        self.poll_unpushed(now, &task_id);
        let Some(entry) = self.tasks.get_mut(&task_id) else {
            return;
        };
        entry.poll.in_flight = true;
        entry.poll.respaced = false;
        self.dispatch(now, Purpose::Get(task_id));
    }

    /// A status answer.
    pub(crate) fn on_get(&mut self, now: Millis, task_id: &str, res: Answer) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.poll.in_flight = false;
        entry.poll.last_answered = now.into();
        // Past the deadline an unknown task has expired: nothing to wait for.
        let held_result = entry.result.req().filter(|_| entry.phase.runs_in_time());
        let task = match res {
            Ok(v) => match self.session.codec_any().map(|c| c.parse_get(v)) {
                Some(Ok(task)) => task,
                Some(Err(e)) => {
                    let f = Failure::transport(e.into(), None, None);
                    return self.poll_failed(now, task_id, &f);
                }
                None => return,
            },
            Err(f) => {
                return match *f {
                    Failure::Rpc(e) if self.gone_code(e.code) => {
                        self.status_gone(now, task_id, e, held_result)
                    }
                    f if self.session.method_missing(&f) => {
                        let error = self.session.remember_absent(TaskMethod::Get);
                        self.no_status(now, task_id, error);
                    }
                    f => self.poll_failed(now, task_id, &f),
                }
            }
        };
        self.weigh_early_error(task_id, Some(task.status));
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.poll.errors = 0;
        }
        let confirming = self.awaits_confirmation(task_id);
        self.apply_snapshot(now, task_id, task, Source::Poll);
        self.input_never_came(now, task_id);
        if confirming && self.awaits_confirmation(task_id) {
            // The status cannot tell the end its outcome came with: the outcome decides.
            self.end_from_outcome(now, task_id);
        }
    }

    /// A status request answered that the task does not exist (`error`), with a `tasks/result`
    /// held while the task ran (`held`).
    fn status_gone(&mut self, now: Millis, task_id: &str, error: RpcError, held: Option<ReqId>) {
        // Forgotten with a session it outlived: `expired`, whatever an early error said.
        let running = self.tasks.get(task_id).is_some_and(|e| !e.is_terminal());
        if running && held.is_none() && self.outlived_session(task_id) {
            self.weigh_early_error(task_id, None);
            return self.expire(now, task_id);
        }
        if let Some(error) = self.weigh_early_error(task_id, None) {
            return self.task_outcome(now, task_id, Outcome::Error { error });
        }
        if self.awaits_confirmation(task_id) {
            // Forgotten as it answered the outcome (rmcp consumes a task with its result).
            return self.end_from_outcome(now, task_id);
        }
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        match (&entry.phase, held) {
            (_, Some(n)) => {
                // The held `tasks/result` may have taken the task (a server that forgets a
                // task once its result is read): its answer decides, within a timeout.
                if !self.reqs.has_timeout(n) {
                    let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
                    self.reqs.arm_timeout(n, at);
                }
            }
            // The final poll for an inline outcome: the server already forgot the task.
            (Phase::Ending { .. } | Phase::Ended { .. }, None) => {
                self.give_up_outcome(now, task_id, error.into())
            }
            (phase, None) if phase.confirmed() => self.expire(now, task_id),
            // Named by us, not (yet) made by the server: its original response tells.
            _ if self.calls.values().any(|c| c.became_task(task_id)) => {
                self.schedule_poll(now, task_id, Source::Poll)
            }
            _ => self.drop_task_failing(now, task_id, error.into()),
        }
    }

    /// A poll failed: say so, and try again with backoff (until the deadline).
    fn poll_failed(&mut self, now: Millis, task_id: &str, f: &Failure) {
        self.warn(Some(task_id.to_owned()), f.client_error());
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        if matches!(e.phase, Phase::LastPoll { .. }) {
            return self.expire(now, task_id);
        }
        e.poll.errors = e.poll.errors.saturating_add(1);
        let (errors, interval) = (e.poll.errors, e.server_interval());
        if e.is_terminal() {
            // The final poll for an inline outcome failed: a few more tries, then end without it.
            if errors > FINAL_POLL_TRIES {
                return self.give_up_outcome(now, task_id, f.client_error());
            }
            e.phase.reopen();
            return self.retry_task(now, task_id, errors, f, interval, None);
        }
        if !e.subs.is_empty() {
            self.retry_task(now, task_id, errors, f, interval, Some(Purpose::Get));
        }
    }

    /// A task's request failed for the `errors`-th time in a row: the task's poll timer asks
    /// again after the error backoff, unless the request (`again`, when it may) goes first once
    /// the server's hold passes.
    pub(super) fn retry_task(
        &mut self,
        now: Millis,
        task_id: &str,
        errors: u32,
        f: &Failure,
        interval: Option<Millis>,
        again: Option<fn(String) -> Purpose>,
    ) {
        let delay = cadence::error_delay(&mut self.rng, errors, f.retry_after(), interval);
        let first = again
            .is_some_and(|p| self.retry_first(now, p(task_id.to_owned()), f.retry_after(), delay));
        if !first {
            self.set_task_timer(TaskTimer::Poll, task_id, now.saturating_add(delay));
        }
    }

    /// Forgets a task, its watchers failing with `error` (a watched id the server never knew, a
    /// task whose input request never comes), and a draft call that became it stops waiting.
    pub(crate) fn drop_task_failing(&mut self, now: Millis, task_id: &str, error: ClientError) {
        let Some(entry) = self.remove_task(task_id) else {
            return;
        };
        self.forget_calls_of(task_id);
        self.listen_follow(now, task_id, false);
        self.end_all(task_id, entry.subs, &End::Failed { error });
    }

    /// A poll found task `task_id` as it is now: when it waits for an input request that did
    /// not come in time, its subscribers fail and it is no longer polled.
    pub(super) fn input_never_came(&mut self, now: Millis, task_id: &str) {
        let fetches = self.session.fetches_results();
        let Some(error) = (self.tasks.get(task_id))
            .and_then(|e| no_input::never_came(e, now, fetches, &self.inputs))
        else {
            return;
        };
        let subs = self
            .tasks
            .get_mut(task_id)
            .map(|e| std::mem::take(&mut e.subs));
        self.end_all(task_id, subs.unwrap_or_default(), &End::Failed { error });
        self.after_membership_change(now, task_id);
    }

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

    /// A status push about a task no one follows: kept while a call may still name it.
    pub(crate) fn keep_early_push(&mut self, now: Millis, task: Task) {
        if !self.calls.is_empty() {
            self.early.keep(now, task);
        }
    }

    /// `task_id` just became known from a call: a push about it that came first applies now.
    /// The answer that named it is no older than the request timeout.
    pub(crate) fn apply_early_push(&mut self, now: Millis, task_id: &str) {
        let max_age = self.cfg.request_timeout_ms;
        if let Some(task) = self.early.take(task_id, now, max_age) {
            self.apply_snapshot(now, task_id, task, Source::Push);
        }
    }

    /// A tracked task's state, for persisting (`None` until the server said anything about it).
    pub fn export_task(&self, task_id: &str) -> Option<TaskSnapshot> {
        let e = self.tasks.get(task_id)?;
        let mut task = e.snapshot.as_ref()?.task(task_id);
        if task.outcome.is_none() {
            task.outcome = e.outcome.as_deref().cloned();
        }
        let input_keys: Vec<String> = e.input_keys.iter().cloned().collect();
        Some(TaskSnapshot {
            task,
            known: e.phase.confirmed(),
            last_polled_at: e.poll.last_sent.get(),
            status_since: e.poll.since.get(),
            next_poll_at: self.timers.get(&Timer::Task(TaskTimer::Poll, e.slot)),
            deadline: e.deadline.get(),
            input_keys,
        })
    }

    /// Seeds a task this engine does not know yet (before `watch`), so polling continues where
    /// the exporting engine left off: its cadence keeps the task's age, and since that engine may
    /// have polled until just now, the first poll waits at least one interval. It comes when the
    /// exporter's next poll would have (its last poll plus the task's gap), if that is no sooner
    /// (a live hand-over keeps each task's phase, and a poll the exporter sent just now is
    /// followed a gap later, not two); else one interval plus a random part of the task's gap
    /// (overdue imports spread instead of polling in one tick). An unknown id later means
    /// `expired`; answered input keys stay answered. A persisted `input_required` is imported as
    /// `working`, so the next poll surfaces the input again.
    /// Returns `false` (and changes nothing) when the engine already has a snapshot of the task.
    pub fn import_task(&mut self, now: Millis, snap: TaskSnapshot) -> bool {
        if self.closed {
            return false;
        }
        let id = snap.task.task_id.clone();
        let interval = snap.task.poll_interval_ms;
        // Without a time from the exporting engine the task counts as young (polled at its
        // interval): the server's `createdAt` is on another clock.
        let since = snap.status_since.map_or(now, |t| t.min(now));
        let gap = cadence::gap(self.cfg.cadence, interval, now - since, self.visible);
        let floor = cadence::floor(interval);
        let spread = self.rng.between(0, gap);
        // Counted as sent one interval before the first poll.
        let phase = (snap.last_polled_at.filter(|&last| last <= now))
            .map(|last| last.saturating_add(gap))
            .filter(|&due| due >= now.saturating_add(floor));
        let sent = phase.map_or(now.saturating_add(spread), |due| due - floor);
        let Some(entry) = self.task_entry(&id) else {
            return false;
        };
        if entry.snapshot.is_some() {
            return false;
        }
        let mut task = snap.task;
        if task.status == TaskStatus::InputRequired {
            task.status = TaskStatus::Working;
        }
        task.input_requests.clear();
        registry::apply(entry, task);
        if entry.deadline.get().is_none() {
            entry.deadline = snap.deadline.into();
        }
        if snap.known {
            entry.phase.confirm();
        }
        entry.poll.since = since.into();
        entry.poll.last_sent = sent.into();
        entry.poll.continued(floor);
        entry.input_keys.extend(snap.input_keys);
        // No subscriber yet: collected after the GC delay unless someone watches it.
        self.after_membership_change(now, &id);
        true
    }
}
