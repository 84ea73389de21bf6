//! Blocking `tasks/result` requests. A legacy server holds `tasks/result` open until the task
//! ends and sends the task's input requests on it, so each one may hold a connection. The link's
//! budget ([`Link::result_budget`](crate::engine::api::Link::result_budget), or
//! `Config::max_blocking_results`) bounds how many are open at once; the rest wait, tasks still in
//! `input_required` first, so polls and input answers always find a connection.
//!
//! Where the budget is above [`TIGHT_BUDGET`] (every link, a browser's HTTP/1.1 included), running
//! legacy tasks hold their `tasks/result` from their first interval on: the outcome arrives the
//! moment the task ends, and their polls drop to the safety interval meanwhile; unless the
//! session's server pushes task statuses (see `pushed.rs`; on a browser's HTTP/1.1 link, pushed
//! ends are enough to hold none). Running tasks not waiting for input
//! take all but one slot: the last stays for a task that comes to wait for input (its requests
//! only come on that stream), except while the link's probe holds every connection it can. A task
//! waiting for a slot holds nothing: it is polled at the server's interval. A server that answers
//! it at once with an error, or closes it without a result, while the task runs is remembered:
//! from then on its tasks are polled (no retry loop). On a tight budget only tasks waiting for
//! input hold one.
//!
//! A finished task's result answers at once and takes no slot; once a task is known to be over,
//! its result stream must make progress within the request timeout or it is closed and asked
//! again (see `lifecycle.rs`).

use crate::collections::sorted::SortedSet;
use crate::engine::registry::pushed::PushEvidence;

use crate::engine::api::Millis;

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
    pub(super) pushes: PushEvidence,
}

/// A `tasks/result` ending this soon after it went out, while its task runs, is a refusal.
pub(super) const REFUSAL_WINDOW_MS: Millis = 5_000;

/// A budget at or below this is tight: only tasks waiting for input hold a result. Above it (a
/// browser's HTTP/1.1 budget of 3 included), running tasks hold theirs in all but one slot.
pub(crate) const TIGHT_BUDGET: usize = 2;

impl Blocking {
    /// The free slots are being filled.
    pub(super) fn refilling(&mut self) {
        self.freed = false;
    }

    /// A task came to wait for input: if it waits for a slot, the line is looked at again (the
    /// slot kept for input may be free).
    pub(super) fn asked(&mut self, task_id: &str) {
        self.freed |= self.queue.iter().any(|t| t == task_id);
    }

    /// Whether a slot was freed since the last fill.
    pub(crate) fn freed(&self) -> bool {
        self.freed
    }

    /// Whether a running task's `tasks/result` may go out now, with `cap` slots open for it (all
    /// of them for a task waiting for input, one fewer for the others); queues it when they are
    /// taken.
    pub(super) fn take_slot(&mut self, task_id: &str, cap: usize) -> bool {
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
    pub(super) fn free(&mut self, task_id: &str) {
        if self.open.remove(task_id) {
            self.freed = true;
        }
    }

    /// Takes a task out of the waiting line (where it is once at most); `true` if it was waiting.
    pub(super) fn unqueue(&mut self, task_id: &str) -> bool {
        let Some(at) = self.queue.iter().position(|t| t == task_id) else {
            return false;
        };
        self.queue.remove(at);
        true
    }

    /// The next task to leave the line: the first that `asks` (waits for input) while fewer than
    /// `cap` slots are taken, else the first while fewer than `running` are.
    pub(super) fn next_waiting(
        &mut self,
        cap: usize,
        running: usize,
        asks: impl Fn(&String) -> bool,
    ) -> Option<String> {
        let taken = self.open.len();
        let at = match self.queue.iter().position(asks) {
            Some(at) if taken < cap => at,
            _ if taken < running => 0,
            _ => return None,
        };
        // `at < len` checked: `remove` cannot fail.
        (at < self.queue.len()).then(|| self.queue.remove(at))
    }
}
