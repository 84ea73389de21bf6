//! Keeping each task's cadence when the engine's time is disturbed: catch-up polls (visible or
//! online again) and a leap of the clock (the machine slept, the page froze) spread the polls
//! they release over one interval instead of sending them all in one tick, and never sooner than
//! a task's interval after its last poll.

use super::api::Millis;
use super::scheduler::{self, TaskTimer, Timer, LEAP_MS};
use super::Engine;

impl Engine {
    /// A catch-up poll: as soon as the task's interval allows, at a random point of the next
    /// interval (unless its poll is due sooner anyway).
    pub(crate) fn poll_spread(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        if e.subs.is_empty() || e.is_terminal() || e.poll.in_flight {
            return;
        }
        let floor = scheduler::floor(e.server_interval());
        let earliest = e.poll.earliest_next(now, floor);
        let timer = Timer::Task(TaskTimer::Poll, e.slot);
        let at = earliest.max(now.saturating_add(self.rng.between(0, floor)));
        self.timers.set_earlier(timer, at);
    }

    /// The clock leapt past due polls: each poll late by more than [`LEAP_MS`] moves (once) to a
    /// random point of its task's next interval. Only while visible: a hidden page's timers are
    /// late by the browser's choice (throttling), and moving them would only wait for its next
    /// throttled wake.
    pub(crate) fn respace_after_leap(&mut self, now: Millis) {
        let late = now.saturating_sub(LEAP_MS);
        if !self.visible || self.timers.next().is_none_or(|due| due >= late) {
            return;
        }
        for timer in self.timers.due_before(late) {
            let Timer::Task(TaskTimer::Poll, slot) = timer else {
                continue;
            };
            let Some(e) = self.tasks.at_mut(slot) else {
                continue;
            };
            if e.poll.respaced {
                continue;
            }
            e.poll.respaced = true;
            let floor = scheduler::floor(e.server_interval());
            let at = now.saturating_add(self.rng.between(0, floor));
            self.timers.set(timer, at);
        }
    }
}
