//! Task tracking: subscribing and leaving, applying snapshots (polls, pushes, create results),
//! the poll loop (one status request in flight per task), result fetching, expiry, and GC.

use serde_json::{json, Value};

use crate::protocol::dialect::TaskNotice;
use crate::protocol::model::{Outcome, Task, TaskStatus};

use super::api::{ClientError, End, ErrorKind, Event, Millis, OpId, SubId};
use super::inputs::Origin;
use super::registry::TaskEntry;
use super::registry::{self, Fetch};
use super::requests::{Failure, Purpose};
use super::scheduler::{self, TaskTimer, Timer, CATCH_UP_THROTTLE_MS};
use super::Engine;

/// JSON-RPC codes servers use for "no such task" (match on meaning; the raw code is kept).
const GONE_CODES: [i64; 4] = [-32602, -32002, -32600, -32010];

/// Where a snapshot came from (decides the next poll).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The create result (or a draft `created`): schedule the first poll.
    Create,
    /// A status poll: schedule the next one with backoff.
    Poll,
    /// A push: the next poll becomes a safety net.
    Push,
    /// Anything else (a cancel answer, a synthesized end): no rescheduling.
    Other,
}

impl Engine {
    /// The entry of a task, created (with a fresh slot) when new.
    pub(crate) fn task_entry(&mut self, task_id: &str) -> &mut TaskEntry {
        if !self.tasks.contains_key(task_id) {
            let slot = self.next_slot;
            self.next_slot += 1;
            self.slots.insert(slot, task_id.to_owned());
            self.tasks.insert(
                task_id.to_owned(),
                TaskEntry {
                    slot,
                    ..TaskEntry::default()
                },
            );
        }
        self.tasks.entry(task_id.to_owned()).or_default()
    }

    /// Forgets a task entirely: entry, slot, timers.
    fn remove_task(&mut self, task_id: &str) -> Option<TaskEntry> {
        let entry = self.tasks.remove(task_id)?;
        self.slots.remove(&entry.slot);
        for kind in [TaskTimer::Poll, TaskTimer::Deadline, TaskTimer::Gc] {
            self.timers.clear(&Timer::Task(kind, entry.slot));
        }
        Some(entry)
    }

    /// A task's timer, when the task is known.
    pub(crate) fn task_timer(&self, kind: TaskTimer, task_id: &str) -> Option<Timer> {
        self.tasks.get(task_id).map(|e| Timer::Task(kind, e.slot))
    }

    fn set_task_timer(&mut self, kind: TaskTimer, task_id: &str, at: Millis) {
        if let Some(t) = self.task_timer(kind, task_id) {
            self.timers.set(t, at);
        }
    }

    /// Adds a subscriber to a task (creating the entry), replaying what is known.
    pub(crate) fn subscribe(&mut self, now: Millis, task_id: &str, sub: SubId) {
        let entry = self.task_entry(task_id);
        entry.subs.insert(sub);
        let snapshot = entry.snapshot.clone();
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
        self.after_membership_change(now, task_id);
    }

    /// A subscriber left (its `Done` was already emitted).
    pub(crate) fn leave(&mut self, now: Millis, task_id: &str, sub: SubId) {
        if let Some(entry) = self.tasks.get_mut(task_id) {
            entry.subs.remove(&sub);
        }
        self.after_membership_change(now, task_id);
    }

    /// Stops polling a task nobody follows (and schedules its GC), or cancels a pending GC.
    pub(crate) fn after_membership_change(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        let slot = entry.slot;
        if entry.subs.is_empty() {
            self.timers.clear(&Timer::Task(TaskTimer::Poll, slot));
            self.timers.clear(&Timer::Task(TaskTimer::Deadline, slot));
            let gc = Timer::Task(TaskTimer::Gc, slot);
            if self.timers.get(&gc).is_none() {
                self.timers
                    .set(gc, now.saturating_add(self.cfg.result_gc_ms));
            }
        } else {
            self.timers.clear(&Timer::Task(TaskTimer::Gc, slot));
            if let Some(d) = entry.deadline.filter(|_| !entry.is_terminal()) {
                self.timers.set(Timer::Task(TaskTimer::Deadline, slot), d);
            }
        }
        self.listen_changed(now);
    }

    /// Merges a snapshot and does what it implies: events, inputs, deadline, next poll, the end.
    pub(crate) fn apply_snapshot(
        &mut self,
        now: Millis,
        task_id: &str,
        mut task: Task,
        src: Source,
    ) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        task.task_id = task_id.to_owned();
        entry.known = true;
        let applied = registry::apply(entry, task);
        if src == Source::Poll {
            entry.final_get |= entry.is_terminal();
        }
        let Some(snap) = entry.snapshot.as_ref() else {
            return;
        };
        let status = snap.status;
        // Clone only when someone will see it (most polls change nothing).
        let shown =
            (applied.visible_change && !entry.subs.is_empty()) || !snap.input_requests.is_empty();
        let snapshot = shown.then(|| snap.clone());
        let has_subs = !entry.subs.is_empty();
        let subs: Vec<SubId> = if shown {
            entry.subs.iter().copied().collect()
        } else {
            Vec::new()
        };
        let mut fetch = false;
        if let Some((_, to)) = applied.transition {
            entry.poll.step = 0;
            // Legacy: the server sends its input requests on the `tasks/result` stream.
            fetch = to == TaskStatus::InputRequired
                && self.session.fetches_results
                && entry.result == Fetch::Idle
                && has_subs;
            if fetch {
                entry.result = Fetch::Busy;
            }
        }
        if let Some((from, to)) = applied.transition {
            self.emit(Event::Transition {
                task_id: task_id.to_owned(),
                from,
                to,
                at: now,
            });
        }
        if let (true, Some(snapshot)) = (applied.visible_change, &snapshot) {
            for sub in &subs {
                self.emit(Event::Status {
                    sub: *sub,
                    task: snapshot.clone(),
                });
            }
        }
        if fetch {
            self.dispatch(now, Purpose::Result(task_id.to_owned()));
        }
        if let Some(snapshot) = &snapshot {
            self.surface_task_inputs(task_id, snapshot);
        }
        if status.is_terminal() {
            return self.settle(now, task_id);
        }
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.past_deadline {
            if src == Source::Poll && entry.deadline.is_none_or(|d| d <= now) {
                // The last poll after the deadline: still not ended.
                return self.expire(now, task_id);
            }
            if entry.deadline.is_some_and(|d| d > now) {
                entry.past_deadline = false;
            }
        }
        let deadline = Timer::Task(TaskTimer::Deadline, entry.slot);
        match entry.deadline {
            Some(d) if has_subs && !entry.past_deadline => {
                if self.timers.get(&deadline) != Some(d) {
                    self.timers.set(deadline, d);
                }
            }
            _ if entry.past_deadline => {}
            _ => self.timers.clear(&deadline),
        }
        if !has_subs || entry.poll.in_flight {
            return;
        }
        let interval = entry.server_interval();
        let delay = match src {
            Source::Create | Source::Poll => {
                let d =
                    scheduler::poll_delay(&mut self.rng, interval, entry.poll.step, self.visible);
                entry.poll.step = entry.poll.step.saturating_add(1);
                d
            }
            Source::Push => scheduler::safety_delay(interval, self.visible),
            Source::Other => return,
        };
        self.timers.set(
            Timer::Task(TaskTimer::Poll, entry.slot),
            now.saturating_add(delay),
        );
    }

    /// Modern `inputRequests`: each key surfaced once per task.
    fn surface_task_inputs(&mut self, task_id: &str, snapshot: &Task) {
        if snapshot.input_requests.is_empty() {
            return;
        }
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.subs.is_empty() {
            return;
        }
        let fresh: Vec<_> = snapshot
            .input_requests
            .iter()
            .filter(|r| entry.input_keys.insert(r.key.clone()))
            .cloned()
            .collect();
        for request in fresh {
            self.surface_input(Some(task_id.to_owned()), request, Origin::Task);
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
        let floor = scheduler::floor(e.server_interval());
        let at = e
            .poll
            .last_sent
            .map_or(now, |last| now.max(last.saturating_add(floor)));
        self.timers
            .set_earlier(Timer::Task(TaskTimer::Poll, e.slot), at);
    }

    /// One catch-up poll for every followed task (visible again, online again): at most every 5 s.
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
        let mut ids: Vec<String> = self
            .tasks
            .iter()
            .filter(|(_, e)| !e.subs.is_empty() && !e.is_terminal())
            .map(|(k, _)| k.clone())
            .collect();
        ids.sort();
        for t in ids {
            self.poll_soon(now, &t);
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
        entry.poll.in_flight = true;
        self.dispatch(now, Purpose::Get(task_id));
    }

    pub(crate) fn on_get(&mut self, now: Millis, task_id: &str, res: Result<Value, Failure>) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.poll.in_flight = false;
        let known = entry.known;
        let parsed = match res {
            Ok(v) => match self.session.codec_any().map(|c| c.parse_get(v)) {
                Some(Ok(task)) => Ok(task),
                Some(Err(e)) => Err(Failure::Transport {
                    error: ClientError::new(ErrorKind::Protocol, e.to_string()),
                    status: None,
                    retry_after: None,
                }),
                None => return,
            },
            Err(f) => Err(f),
        };
        match parsed {
            Ok(task) => {
                if let Some(e) = self.tasks.get_mut(task_id) {
                    e.poll.errors = 0;
                }
                self.apply_snapshot(now, task_id, task, Source::Poll);
            }
            Err(Failure::Rpc(e)) if GONE_CODES.contains(&e.code) => {
                if known {
                    self.expire(now, task_id);
                } else {
                    self.unknown_task(task_id, e.into());
                }
            }
            Err(f) => self.poll_failed(now, task_id, f),
        }
    }

    /// A poll failed: say so, and try again with backoff (until the deadline).
    fn poll_failed(&mut self, now: Millis, task_id: &str, f: Failure) {
        self.warn(Some(task_id.to_owned()), f.client_error());
        let Some(e) = self.tasks.get_mut(task_id) else {
            return;
        };
        if e.past_deadline {
            return self.expire(now, task_id);
        }
        e.poll.errors = e.poll.errors.saturating_add(1);
        if e.subs.is_empty() || e.is_terminal() {
            return;
        }
        let delay = scheduler::error_delay(
            &mut self.rng,
            e.poll.errors,
            f.retry_after(),
            e.server_interval(),
        );
        self.timers.set(
            Timer::Task(TaskTimer::Poll, e.slot),
            now.saturating_add(delay),
        );
    }

    /// A watched id the server never knew: its watchers fail.
    fn unknown_task(&mut self, task_id: &str, error: ClientError) {
        let Some(entry) = self.remove_task(task_id) else {
            return;
        };
        for sub in entry.subs {
            self.done(
                sub,
                Some(task_id.to_owned()),
                End::Failed {
                    error: error.clone(),
                },
            );
        }
    }

    pub(crate) fn on_result(&mut self, now: Millis, task_id: &str, res: Result<Value, Failure>) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.result = Fetch::Idle;
        let terminal = entry.is_terminal();
        match res {
            Ok(result) => {
                entry.result_errors = 0;
                self.task_outcome(now, task_id, Outcome::Result { result });
            }
            Err(Failure::Rpc(error)) if terminal => {
                self.task_outcome(now, task_id, Outcome::Error { error })
            }
            // Answered early (not ready yet): polling goes on and fetches again at the end.
            Err(Failure::Rpc(_)) => self.poll_soon(now, task_id),
            Err(f) => {
                entry.result_errors = entry.result_errors.saturating_add(1);
                let errors = entry.result_errors;
                self.warn(Some(task_id.to_owned()), f.client_error());
                if terminal {
                    let delay =
                        scheduler::error_delay(&mut self.rng, errors, f.retry_after(), None);
                    self.set_task_timer(TaskTimer::Poll, task_id, now.saturating_add(delay));
                } else {
                    self.poll_soon(now, task_id);
                }
            }
        }
    }

    /// The dialect has no `tasks/result`: finish with what is known.
    pub(crate) fn result_unavailable(&mut self, now: Millis, task_id: &str) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result = Fetch::Idle;
        }
        self.settle(now, task_id);
    }

    /// The outcome arrived (result fetch, or the original response): it ends the task.
    pub(crate) fn task_outcome(&mut self, now: Millis, task_id: &str, outcome: Outcome) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        if entry.outcome.is_none() {
            entry.outcome = Some(outcome.clone());
        }
        if entry.is_terminal() {
            return self.settle(now, task_id);
        }
        // A result only comes once the task ended: record the end we can infer.
        let mut task = entry
            .snapshot
            .clone()
            .unwrap_or_else(|| Task::new(task_id, TaskStatus::Working));
        task.status = match outcome {
            Outcome::Result { .. } => TaskStatus::Completed,
            Outcome::Error { .. } => TaskStatus::Failed,
        };
        task.outcome = Some(outcome);
        task.input_requests.clear();
        self.apply_snapshot(now, task_id, task, Source::Other);
    }

    /// The task is terminal: fetch its result once if needed, else hand every subscriber its `Done`.
    pub(crate) fn settle(&mut self, now: Millis, task_id: &str) {
        let fetches = self.session.fetches_results;
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
        let status = entry.status();
        let wants_outcome = entry.outcome.is_none()
            && matches!(
                status,
                Some(TaskStatus::Completed) | Some(TaskStatus::Failed)
            );
        if wants_outcome && fetches {
            // The original request is still open (draft): its response is the result.
            let original_open = self.calls.values().any(|c| c.became_task(task_id));
            if !original_open && entry.result == Fetch::Idle {
                entry.result = Fetch::Busy;
                self.dispatch(now, Purpose::Result(task_id.to_owned()));
            }
            return;
        }
        if wants_outcome && !entry.final_get {
            // Inline outcomes (modern): the end was seen without one (create result, push).
            if entry.poll.in_flight {
                return;
            }
            let floor = scheduler::floor(entry.server_interval());
            let at = entry
                .poll
                .last_sent
                .map_or(now, |last| now.max(last.saturating_add(floor)));
            if at > now {
                return self
                    .timers
                    .set(Timer::Task(TaskTimer::Poll, entry.slot), at);
            }
            entry.final_get = true;
            entry.poll.in_flight = true;
            return self.dispatch(now, Purpose::Get(task_id.to_owned()));
        }
        if let Some(snap) = entry.snapshot.as_mut() {
            if snap.outcome.is_none() {
                snap.outcome = entry.outcome.clone();
            }
        }
        let task = entry.snapshot.clone();
        let outcome = entry.outcome.clone();
        let subs = std::mem::take(&mut entry.subs);
        self.inputs.drop_task(task_id);
        for sub in subs {
            let end = End::Finished {
                task: task.clone(),
                outcome: outcome.clone(),
            };
            self.done(sub, Some(task_id.to_owned()), end);
        }
        self.after_membership_change(now, task_id);
    }

    /// Client-side end: the deadline passed, or the server forgot a task it knew.
    fn expire(&mut self, now: Millis, task_id: &str) {
        let Some(entry) = self.tasks.get(task_id) else {
            return;
        };
        if entry.is_terminal() {
            return;
        }
        let mut task = entry
            .snapshot
            .clone()
            .unwrap_or_else(|| Task::new(task_id, TaskStatus::Expired));
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
        if e.is_terminal() || !e.deadline.is_some_and(|d| d <= now) {
            return;
        }
        if e.past_deadline {
            return self.expire(now, task_id);
        }
        e.past_deadline = true;
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
        let is_get = |p: &Purpose| matches!(p, Purpose::Get(t) if t == task_id);
        if self.reqs.pending.values().any(|p| is_get(&p.purpose)) {
            let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
            return self.set_task_timer(TaskTimer::Gc, task_id, at);
        }
        self.session
            .queue
            .retain(|p| !is_get(p) && *p != Purpose::Result(task_id.to_owned()));
        let results: Vec<i64> = self
            .reqs
            .pending
            .iter()
            .filter(|(_, p)| p.purpose == Purpose::Result(task_id.to_owned()))
            .map(|(n, _)| *n)
            .collect();
        for n in results {
            if let Some(p) = self.take_pending(n) {
                self.out.push_back(super::api::Output::Abort { key: p.key });
            }
        }
        self.forget_calls_of(task_id);
        self.remove_task(task_id);
        self.inputs.drop_task(task_id);
    }

    /// A server notification: task pushes of every dialect, tools-list changes.
    pub(crate) fn on_notification(&mut self, now: Millis, method: &str, params: Option<&Value>) {
        if method == "notifications/tools/list_changed" {
            return self.tools.invalidate();
        }
        let Some(codec) = self.session.codec_any() else {
            return;
        };
        match codec.parse_notification(method, params) {
            Some(TaskNotice::Status(task)) => {
                let id = task.task_id.clone();
                if self.tasks.contains_key(&id) {
                    self.apply_snapshot(now, &id, task, Source::Push);
                }
            }
            Some(TaskNotice::Created { task_id }) => self.on_created(now, &task_id),
            None => {}
        }
    }

    pub(crate) fn on_cancel(
        &mut self,
        now: Millis,
        op: OpId,
        task_id: &str,
        res: Result<Value, Failure>,
    ) {
        match res {
            Ok(v) => {
                let snapshot = self
                    .session
                    .codec_any()
                    .and_then(|c| c.parse_get(v.clone()).ok());
                self.reply(op, Ok(v));
                if let Some(task) = snapshot.filter(|t| t.task_id == task_id) {
                    if self.tasks.contains_key(task_id) {
                        self.apply_snapshot(now, task_id, task, Source::Other);
                    }
                }
                self.poll_soon(now, task_id);
            }
            Err(f) => self.reply(op, Err(f.client_error())),
        }
    }

    pub(crate) fn on_list(&mut self, op: OpId, res: Result<Value, Failure>) {
        let page = match res {
            Ok(v) => self.session.codec_any().map(|c| c.parse_list(v)),
            Err(f) => return self.reply(op, Err(f.client_error())),
        };
        match page {
            Some(Ok((tasks, next))) => {
                let tasks = serde_json::to_value(&tasks).unwrap_or_default();
                let mut reply = json!({ "tasks": tasks });
                if let (Some(c), Some(obj)) = (next, reply.as_object_mut()) {
                    obj.insert("nextCursor".into(), Value::from(c));
                }
                self.reply(op, Ok(reply));
            }
            Some(Err(e)) => self.reply(
                op,
                Err(ClientError::new(ErrorKind::Protocol, e.to_string())),
            ),
            None => self.reply(op, Err(ClientError::new(ErrorKind::Protocol, "no dialect"))),
        }
    }
}
