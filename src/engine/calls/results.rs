//! Blocking `tasks/result` requests. A legacy server holds `tasks/result` open until the task
//! ends and sends the task's input requests on it, so each one may hold a connection. The link's
//! budget ([`Link::result_budget`](crate::engine::api::Link::result_budget), or
//! `Config::max_blocking_results`) bounds how many are open at once; the rest wait, tasks still in
//! `input_required` first, so polls and input answers always find a connection.
//!
//! Where the budget is roomy (not a browser's HTTP/1.1), every running legacy task holds its
//! `tasks/result`: the outcome arrives the moment the task ends, and polls drop to the safety
//! interval meanwhile; unless the session's server pushes task statuses (see `pushed.rs`). A
//! server that answers it at once with an error, or closes it without a result, while the task
//! runs is remembered: from then on its tasks are polled (no retry loop). On a tight budget only
//! tasks waiting for input hold one.
//!
//! A finished task's result answers at once and takes no slot; once a task is known to be over,
//! its result stream must make progress within the request timeout or it is closed and asked
//! again (see `lifecycle.rs`).

use crate::collections::sorted::SortedSet;
use crate::engine::ids::ReqId;
use crate::engine::registry::pushed::PushEvidence;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Outcome, TaskStatus};

use crate::protocol::model::Dialect;

use crate::engine::api::Millis;
use crate::engine::requests::Purpose;
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

#[derive(Debug, Default)]
pub(crate) struct Blocking {
    /// Tasks with a blocking `tasks/result` in flight.
    open: SortedSet<String>,
    /// Tasks waiting for a slot, in arrival order. A `Vec`: entries leave from anywhere, one per
    /// freed slot (a `VecDeque<String>` would be a collection's code of its own in the binary).
    queue: Vec<String>,
    /// A slot was freed: fill it before the next output.
    freed: bool,
    /// Whether the session's server pushes task statuses (see `pushed.rs`).
    pub(crate) pushes: PushEvidence,
}

/// A `tasks/result` ending this soon after it went out, while its task runs, is a refusal.
const REFUSAL_WINDOW_MS: Millis = 5_000;

/// A budget at or below this is tight: only tasks waiting for input hold a result.
const TIGHT_BUDGET: usize = 3;

impl Blocking {
    /// The free slots are being filled.
    fn refilling(&mut self) {
        self.freed = false;
    }

    /// Whether a slot was freed since the last fill.
    pub(crate) fn freed(&self) -> bool {
        self.freed
    }

    /// Whether a running task's `tasks/result` may go out now, with `cap` slots in all; queues
    /// it when every slot is taken.
    fn take_slot(&mut self, task_id: &str, cap: usize) -> bool {
        if self.open.contains(task_id) {
            return true;
        }
        if self.open.len() < cap {
            self.open.insert(task_id.to_owned());
            return true;
        }
        if !self.queue.iter().any(|t| t == task_id) {
            self.queue.push(task_id.to_owned());
        }
        false
    }

    /// Frees the task's slot, if it holds one.
    fn free(&mut self, task_id: &str) {
        if self.open.remove(task_id) {
            self.freed = true;
        }
    }

    /// Takes a task out of the waiting line (where it is once at most); `true` if it was waiting.
    pub(crate) fn unqueue(&mut self, task_id: &str) -> bool {
        let Some(at) = self.queue.iter().position(|t| t == task_id) else {
            return false;
        };
        self.queue.remove(at);
        true
    }

    /// The next task to leave the line while fewer than `cap` slots are taken: the first that
    /// `asks` (waits for input), else the first.
    fn next_waiting(&mut self, cap: usize, asks: impl Fn(&String) -> bool) -> Option<String> {
        if self.open.len() >= cap {
            return None;
        }
        let at = self.queue.iter().position(asks).unwrap_or(0);
        // `at < len` checked: `remove` cannot fail.
        (at < self.queue.len()).then(|| self.queue.remove(at))
    }
}

impl Engine {
    fn result_cap(&self) -> usize {
        self.cfg
            .max_blocking_results
            .unwrap_or_else(|| self.link_budget())
            .max(1)
    }

    /// Whether running tasks hold a blocking `tasks/result`: a legacy server that has not
    /// refused and whose pushes do not bring both the end and the input requests, on a link
    /// whose budget is not tight.
    pub(crate) fn holds_running(&self) -> bool {
        self.session.dialect() == Some(Dialect::Legacy)
            && !self.session.quirks.has(Quirk::NoHeldResult)
            && self.result_cap() > TIGHT_BUDGET
            && !self.leaves_all_to_pushes()
    }

    /// A `tasks/result` of `task_id` ended without the outcome while the task still ran. Soon
    /// after it went out, the server does not hold results; a stream dropped after a long hold
    /// (an idle timeout on the way) or with the connection says nothing about the server.
    pub(crate) fn result_refused(&mut self, now: Millis, task_id: &str) {
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
    pub(crate) fn early_result_error(&mut self, now: Millis, task_id: &str, error: RpcError) {
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
    pub(crate) fn weigh_early_error(
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
    pub(crate) fn release_result(&mut self, task_id: &str) {
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
    pub(crate) fn rehold(&mut self, now: Millis, task_id: &str) {
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

    /// Whether the `tasks/result` of `task_id` may go out now; queues it when every slot is taken.
    pub(crate) fn result_slot(&mut self, task_id: &str) -> bool {
        let running = self.tasks.get(task_id).is_some_and(|e| !e.is_terminal());
        !running || self.blocking.take_slot(task_id, self.result_cap())
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
            let cap = self.result_cap();
            let tasks = &self.tasks;
            let asking = |t: &String| {
                (tasks.get(t)).is_some_and(|e| e.status() == Some(TaskStatus::InputRequired))
            };
            // One waiting for input jumps the line.
            let Some(t) = self.blocking.next_waiting(cap, asking) else {
                return;
            };
            let Some(e) = self.tasks.get_mut(&t) else {
                continue;
            };
            if e.result.is_idle() {
                continue;
            }
            let wanted = e.is_terminal()
                || (!e.subs.is_empty()
                    && (hold_running || e.status() == Some(TaskStatus::InputRequired)));
            if wanted {
                self.dispatch(now, Purpose::Result(t));
            } else {
                e.result.stop();
            }
        }
    }
}
