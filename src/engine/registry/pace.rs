//! When each task's next status request may go: the engine's pace (its cadence, whether the page
//! is seen) applied to a task's poll state (`cadence.rs`) and its poll timer.

use super::Registry;
use crate::engine::api::{Cadence, Millis};
use crate::engine::calls::no_input;
use crate::engine::scheduler::cadence::{floor, poll_delay, steady, LEAP_MS};
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::{TaskTimer, Timer, Timers};

/// How the engine paces polls: its cadence, and whether the page is seen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pace {
    cadence: Cadence,
    visible: bool,
}

impl Pace {
    pub(crate) fn new(cadence: Cadence, visible: bool) -> Pace {
        Pace { cadence, visible }
    }

    fn steady(self) -> bool {
        steady(self.cadence, self.visible)
    }
}

impl Registry {
    /// The last word on a status request about to go out: sooner than the task's interval after
    /// the one before (a retry after a failed poll, a request sent again in a new session), or
    /// just before a poll can decide that a task's input request did not come
    /// (`no_input::poll_due`; `fetches_results`: the session asks for them with `tasks/result`),
    /// it waits for its time on the task's poll timer instead. Whether it was put off.
    pub(crate) fn poll_too_soon(
        &mut self,
        now: Millis,
        task_id: &str,
        (pace, fetches_results): (Pace, bool),
        timers: &mut Timers,
    ) -> bool {
        let Some(e) = self.get_mut(task_id) else {
            return false;
        };
        let floor = floor(e.server_interval());
        let at = (e.poll).earliest_next(now, floor, pace.steady());
        let at = no_input::poll_due(e, now, at, floor, fetches_results);
        if at <= now {
            return false;
        }
        e.poll.in_flight = false;
        timers.set(Timer::Task(TaskTimer::Poll, e.slot), at);
        true
    }

    /// A status request of the task came back unanswered (its session was gone): the server saw
    /// it, so the next one keeps the interval from now.
    pub(crate) fn poll_came_back(&mut self, now: Millis, task_id: &str) {
        if let Some(e) = self.get_mut(task_id) {
            e.poll.last_answered = now.into();
            e.poll.last_sent = now.into();
        }
    }

    /// When the next poll after a good answer at `now` is due: [`poll_delay`] after it, or while
    /// [`steady`], on the task's grid (`PollState::next_on_grid`).
    pub(super) fn next_poll_at(
        &mut self,
        now: Millis,
        task_id: &str,
        age: Millis,
        pace: Pace,
        rng: &mut Rng,
    ) -> Millis {
        let Some(e) = self.get_mut(task_id) else {
            return now;
        };
        let interval = e.server_interval();
        if pace.steady() {
            return e.poll.next_on_grid(now, floor(interval));
        }
        let delay = poll_delay(rng, interval, age, pace.visible, pace.cadence);
        now.saturating_add(delay)
    }

    /// A catch-up poll: as soon as the task's interval allows, at a random point of the next
    /// interval (unless its poll is due sooner anyway).
    pub(super) fn poll_spread(
        &self,
        now: Millis,
        task_id: &str,
        pace: Pace,
        (rng, timers): (&mut Rng, &mut Timers),
    ) {
        let Some(e) = self.get(task_id) else {
            return;
        };
        if e.subs.is_empty() || e.is_terminal() || e.poll.in_flight {
            return;
        }
        let floor = floor(e.server_interval());
        let earliest = (e.poll).earliest_next(now, floor, pace.steady());
        let timer = Timer::Task(TaskTimer::Poll, e.slot);
        let at = earliest.max(now.saturating_add(rng.between(0, floor)));
        timers.set_earlier(timer, at);
    }

    /// The clock leapt past due polls: each poll late by more than [`LEAP_MS`] moves (once) to a
    /// random point of its task's next interval. Only while `visible`: a hidden page's timers are
    /// late by the browser's choice (throttling), and moving them would only wait for its next
    /// throttled wake.
    pub(crate) fn respace_after_leap(
        &mut self,
        now: Millis,
        visible: bool,
        (rng, timers): (&mut Rng, &mut Timers),
    ) {
        let late = now.saturating_sub(LEAP_MS);
        if !visible || timers.next().is_none_or(|due| due >= late) {
            return;
        }
        for timer in timers.due_before(late) {
            let Timer::Task(TaskTimer::Poll, slot) = timer else {
                continue;
            };
            let Some(e) = self.at_mut(slot) else {
                continue;
            };
            if e.poll.respaced {
                continue;
            }
            e.poll.respaced = true;
            let floor = floor(e.server_interval());
            let at = now.saturating_add(rng.between(0, floor));
            timers.set(timer, at);
        }
    }
}
