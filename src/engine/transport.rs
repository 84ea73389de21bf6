//! Routing between the requests, the session and the other sub-machines: what each request is
//! sent for, and where a status request's timing is decided from its task's poll state.

use super::api::Millis;
use super::scheduler::cadence::{floor, LEAP_MS};
use super::scheduler::{TaskTimer, Timer};
use super::Engine;

impl Engine {
    /// The last word on a status request about to go out: sooner than the task's interval after
    /// the one before (a retry after a failed poll, a request sent again in a new session), it
    /// waits for its time on the task's poll timer instead. Whether it was put off.
    pub(crate) fn poll_too_soon(&mut self, now: Millis, task_id: &str) -> bool {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return false;
        };
        let at = e.poll.earliest_next(now, floor(e.server_interval()));
        if at <= now {
            return false;
        }
        e.poll.in_flight = false;
        self.timers.set(Timer::Task(TaskTimer::Poll, e.slot), at);
        true
    }

    /// A status request of the task came back unanswered (its session was gone): the server saw
    /// it, so the next one keeps the interval from now.
    pub(crate) fn poll_came_back(&mut self, now: Millis, task_id: &str) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.poll.last_answered = now.into();
        }
    }

    /// A catch-up poll: as soon as the task's interval allows, at a random point of the next
    /// interval (unless its poll is due sooner anyway).
    pub(crate) fn poll_spread(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        if e.subs.is_empty() || e.is_terminal() || e.poll.in_flight {
            return;
        }
        let floor = floor(e.server_interval());
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
            let floor = floor(e.server_interval());
            let at = now.saturating_add(self.rng.between(0, floor));
            self.timers.set(timer, at);
        }
    }
}
