//! The poll cadence, as pure functions of a task's poll state: under [`Cadence::Requests`] the
//! server's interval while a task is young, then a gap growing with its age (a tenth of it,
//! capped), with a little jitter on top and never below the interval; under
//! [`Cadence::Latency`] the interval exactly, for the task's whole life, while the page is
//! visible (hidden, the gap grows either way); the backoff of every retry. And keeping each task's
//! cadence when the engine's time is disturbed: catch-up polls (visible or online again) and a
//! leap of the clock (the machine slept, the page froze) spread the polls they release over one
//! interval instead of sending them all in one tick, and never sooner than a task's interval
//! after its last poll.

use super::rng::Rng;
use crate::engine::api::{Cadence, Millis};
use crate::engine::scheduler::MaybeAt;

/// A task's poll interval when the server gives no hint.
pub(super) const DEFAULT_POLL_MS: Millis = 1_000;
/// Our own floor under a server's hint: at most 20 status requests per task in any 10 s.
pub(super) const MIN_POLL_MS: Millis = 500;
/// A task's gap grows to this fraction of its age (1/10): the callback for a task that ran for
/// a minute comes at most about 6 s after its end.
pub(super) const AGE_DIVISOR: Millis = 10;
/// Jitter added on top of a gap: up to this fraction of it (1/50 = 2 %), never subtracted. Enough
/// to let the polls of tasks created together drift apart; small enough (1 % on average) that a
/// young task's end is seen as soon as by a client that waits the interval after each answer.
pub(crate) const JITTER_DIVISOR: Millis = 50;
/// Gap ceiling while the page is visible.
pub(crate) const CAP_VISIBLE_MS: Millis = 20_000;
/// Gap ceiling while the page is hidden.
pub(super) const CAP_HIDDEN_MS: Millis = 60_000;
/// Ceiling of the error backoff (before jitter).
pub const ERROR_CAP_MS: Millis = 30_000;
/// Catch-up polls (visible again, online again) at most this often.
pub(crate) const CATCH_UP_THROTTLE_MS: Millis = 5_000;
/// A timer this late in a visible page means the clock leapt (the machine slept, the page
/// froze): the polls it held back are spread over one interval instead of going out at once.
pub(crate) const LEAP_MS: Millis = 2_000;

/// Per-task poll bookkeeping.
#[derive(Debug, Clone, Default)]
pub(crate) struct PollState {
    /// Since when the task has had its current status (as this engine saw it): the cadence's
    /// age counts from here, so a task that just moved on is polled at its interval again.
    pub(crate) since: MaybeAt,
    /// Consecutive failed polls (drives the error backoff).
    pub(crate) errors: u32,
    /// When the last status request went out.
    pub(crate) last_sent: MaybeAt,
    /// When the last status answer came back.
    pub(crate) last_answered: MaybeAt,
    /// A status request is queued or in flight.
    pub(crate) in_flight: bool,
    /// The next poll was already moved once because the clock leapt (never moved twice).
    pub(crate) respaced: bool,
    /// When the last status request got its connection, if it waited for one in the browser's
    /// queue (it reached the server only then).
    reached: MaybeAt,
    /// How far behind its creation's grid the task's polls go out (steady cadence): the longest
    /// way there and back a poll took, so a poll reaches a server as late as its answers come.
    lag: Millis,
}

impl PollState {
    /// The earliest time from `now` that the next status request may go out, `floor` after the
    /// last one was sent or answered, whichever is later: a request that waited in the browser
    /// reached the server late, and the server must still see the spacing it asked for. While
    /// `steady`, `floor` after the last one was sent (the polls keep the grid their task's
    /// creation set, whatever the answers' way back took); a task never polled waits for the
    /// grid's first point (one interval and a hundredth after its creation), no longer: a poll
    /// held back (a `Retry-After`, a probe) goes out as soon as it may.
    pub(crate) fn earliest_next(&self, now: Millis, floor: Millis, steady: bool) -> Millis {
        if !steady {
            let last = self.last_sent.get().max(self.last_answered.get());
            return last.map_or(now, |last| now.max(last.saturating_add(floor)));
        }
        match (self.last_sent.get(), self.since.get()) {
            (Some(last), _) => {
                // A poll that waited for a connection reached the server late: the next one skips
                // the grid's points the server would see sooner than nine tenths of the interval
                // after it (the grid itself stays).
                let floor = floor.max(1);
                let clear =
                    (self.reached.get()).map_or(0, |r| r.saturating_add(floor - floor / 10));
                let next = last.saturating_add(floor);
                let skipped = clear.saturating_sub(next).div_ceil(floor);
                now.max(next.saturating_add(skipped.saturating_mul(floor)))
            }
            (None, Some(since)) => now.max(since.saturating_add(with_grid_margin(floor))),
            (None, None) => now,
        }
    }

    /// The last status request got its connection at `now`: it reached the server only then.
    pub(crate) fn reached_at(&mut self, now: Millis) {
        self.reached = now.into();
    }

    /// When the next poll after a good answer at `now` is due on the steady cadence: `floor`
    /// after the last one went out, later by what the way there and back took beyond the
    /// task's lag so far. The lag grows slowly (a fiftieth of the interval per poll at most, to
    /// half an interval) while answers take longer than it: a server that answers late under
    /// load also ends its tasks late, and a poll on time would just miss the end. An answer
    /// later than the lag moves the grid by all of it: its request may have reached the server
    /// that late (a busy server or browser holds a request on its way there as often as an
    /// answer on its way back), and the next poll goes no sooner than an interval after that,
    /// less the lag (at most a tenth of the interval; also when the request waited for a
    /// connection). The way there and back counts from
    /// when the request got its connection (every status request records it, at once or when
    /// the pool admits it): time spent waiting for one in the browser's queue says nothing of
    /// the server. The first answer sets the lag and leaves the grid: the grid's anchor (the
    /// creation's answer) already came a way there and back after the server's creation, as
    /// long a way as this one; unless it took more than a tenth of the interval.
    /// A task never polled (its result was held) is polled at the next point of the grid its
    /// creation set.
    pub(crate) fn next_on_grid(&mut self, now: Millis, floor: Millis) -> Millis {
        if let (None, Some(since)) = (self.last_sent.get(), self.since.get()) {
            let first = since.saturating_add(with_grid_margin(floor));
            let points = now.saturating_sub(first).div_ceil(floor.max(1));
            return first.saturating_add(points.saturating_mul(floor));
        }
        let step = floor / JITTER_DIVISOR;
        let sent = (self.reached.get().or(self.last_sent.get())).unwrap_or(now);
        let way = now.saturating_sub(sent);
        let first = self.lag == 0;
        let lag = self.lag.max(step);
        let took = way
            .min(if first {
                floor
            } else {
                lag.saturating_add(step)
            })
            .min(floor / 2);
        self.lag = lag.max(took);
        // Reached the server as late as the answer came, less the usual way (the lag; for the
        // first answer its own), at most a tenth of the interval.
        let usual = if first { self.lag } else { lag }.min(floor / 10);
        let next = self.earliest_next(now, floor, true);
        next.max(now.saturating_add(floor).saturating_sub(usual))
    }

    /// The task's polls continue another engine's (a new leader, a reload): the ways there and
    /// back its grid was set with are not known here, so its first answer is not the usual way
    /// either: it moves the grid by what it took beyond a fiftieth of the interval.
    pub(crate) fn continued(&mut self, floor: Millis) {
        self.lag = (floor / JITTER_DIVISOR).max(1);
    }
}

/// The spacing a task's status requests keep: the server's interval (never below
/// [`MIN_POLL_MS`]), or [`DEFAULT_POLL_MS`] without a hint.
pub(crate) fn floor(server_interval: Option<Millis>) -> Millis {
    server_interval.map_or(DEFAULT_POLL_MS, |iv| iv.max(MIN_POLL_MS))
}

fn cap(visible: bool, server_interval: Option<Millis>) -> Millis {
    let cap = if visible {
        CAP_VISIBLE_MS
    } else {
        CAP_HIDDEN_MS
    };
    cap.max(floor(server_interval))
}

/// The gap after a good poll of a task that has had its status for `age` ms: the interval while
/// the task is young, then a tenth of its age (so its end is seen at most ~10 % late), capped at
/// 20 s (60 s hidden); never below the interval.
pub(crate) fn poll_gap(server_interval: Option<Millis>, age: Millis, visible: bool) -> Millis {
    (age / AGE_DIVISOR)
        .min(cap(visible, server_interval))
        .max(floor(server_interval))
}

/// Whether `cadence` keeps a task at its interval exactly, on the grid its creation set (no
/// growth, no jitter): a visible page that asked for [`Cadence::Latency`].
pub(crate) fn steady(cadence: Cadence, visible: bool) -> bool {
    visible && cadence == Cadence::Latency
}

/// The gap after a good poll under `cadence`: the interval while [`steady`], else [`poll_gap`].
pub(crate) fn gap(
    cadence: Cadence,
    server_interval: Option<Millis>,
    age: Millis,
    visible: bool,
) -> Millis {
    if steady(cadence, visible) {
        return floor(server_interval);
    }
    poll_gap(server_interval, age, visible)
}

/// The longest a gap can be drawn to: the gap plus its jitter.
pub(crate) fn with_jitter_bound(gap: Millis) -> Millis {
    gap.saturating_add(gap / JITTER_DIVISOR)
}

/// How far after its creation's interval points a task's grid lies, as a fraction of the
/// interval (1/100): enough for a server whose timer ends a whole-interval task a little late,
/// while the creation's answer and the poll's way there add their own time on top. Every ms of it
/// is latency added to every polled end.
pub(super) const GRID_MARGIN_DIVISOR: Millis = 100;

/// A steady task's grid point: `gap` after the point before, plus the grid's margin.
pub(crate) fn with_grid_margin(gap: Millis) -> Millis {
    gap.saturating_add(gap / GRID_MARGIN_DIVISOR)
}

/// How late, as a fraction of the interval (1/10), a push may come after the one before it
/// without a poll falling due between them. A server's timer or a busy page easily moves a push
/// by tens of ms, and a batch of tasks pushed together would then all be polled at once.
const PUSH_MARGIN_DIVISOR: Millis = 10;

/// The gap after a push on the steady cadence, when pushes bring the ends but maybe not the input
/// requests: the push counts as the poll it makes needless, and the next push, an interval later
/// and maybe a little late, comes before the next poll.
pub(crate) fn after_push(server_interval: Option<Millis>) -> Millis {
    let gap = floor(server_interval);
    gap.saturating_add(gap / PUSH_MARGIN_DIVISOR)
}

/// Delay before the next poll: [`poll_gap`] plus up to 2 % jitter on top (so polls of tasks
/// created together drift apart, and never come sooner than the gap); while [`steady`], the
/// interval exactly (the answers' own spread keeps tasks created together apart).
pub(crate) fn poll_delay(
    rng: &mut Rng,
    server_interval: Option<Millis>,
    age: Millis,
    visible: bool,
    cadence: Cadence,
) -> Millis {
    if steady(cadence, visible) {
        return floor(server_interval);
    }
    let gap = poll_gap(server_interval, age, visible);
    rng.between(gap, with_jitter_bound(gap))
}

/// A task's first poll is spread over at most this many ms on top of its gap: tasks created
/// together fall out of step once (on HTTP/1.1, 20 polls take a few ms each on 6 connections),
/// and keep their cadence after. Bounded in ms, not in a fraction of the gap: every ms of it is
/// latency added to a task that ends before its first poll or on a later one.
pub(crate) const FIRST_SPREAD_MS: Millis = 20;

/// Delay before a task's first poll (just created, or just named): its gap plus up to
/// [`FIRST_SPREAD_MS`]; while [`steady`], its gap and a hundredth of it, which sets the task's grid:
/// a task that works a whole number of intervals ends just before one of its polls reaches the
/// server (the server's own timer may run a little late), not just after.
pub(crate) fn first_poll_delay(
    rng: &mut Rng,
    server_interval: Option<Millis>,
    visible: bool,
    cadence: Cadence,
) -> Millis {
    let gap = poll_gap(server_interval, 0, visible);
    if steady(cadence, visible) {
        return with_grid_margin(gap);
    }
    rng.between(gap, with_first_spread_bound(gap))
}

/// The longest a first gap can be drawn to: the gap plus its spread.
pub(crate) fn with_first_spread_bound(gap: Millis) -> Millis {
    gap.saturating_add(FIRST_SPREAD_MS)
}

/// Base delay of the first retry.
pub const BACKOFF_BASE_MS: Millis = 1_000;

/// The backoff of the `attempt`-th retry (0-based): min(1 s·2ⁿ, 30 s) × U(0.5, 1.5). The one
/// formula for every retry: failed polls here, reconnects in the driver.
pub fn backoff_delay(attempt: u32, rng: &mut Rng) -> Millis {
    let base = BACKOFF_BASE_MS
        .saturating_mul(1 << attempt.min(16))
        .min(ERROR_CAP_MS);
    (base as f64 * (0.5 + rng.unit())) as Millis
}

/// Delay after the `errors`-th consecutive failure (1-based): [`backoff_delay`] of attempt
/// `errors - 1`, never below the server's interval nor a `Retry-After` the server sent.
pub(crate) fn error_delay(
    rng: &mut Rng,
    errors: u32,
    retry_after: Option<Millis>,
    server_interval: Option<Millis>,
) -> Millis {
    backoff_delay(errors.saturating_sub(1), rng)
        .max(floor(server_interval))
        .max(retry_after.unwrap_or(0))
}

/// After a push: the next poll only as a safety net, a tenth later than the longest gap: a server
/// that pushes every 20 s (its interval, or our cap) has its next push in before the poll is due.
pub(crate) fn safety_delay(server_interval: Option<Millis>, visible: bool) -> Millis {
    let gap = cap(visible, server_interval);
    gap.saturating_add(gap / 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_capped_and_jittered() {
        let mut rng = Rng::new(42);
        for attempt in 0..40u32 {
            let base = (BACKOFF_BASE_MS << attempt.min(16)).min(ERROR_CAP_MS);
            let d = backoff_delay(attempt, &mut rng);
            assert!(d >= base / 2 && d <= base * 3 / 2, "attempt {attempt}: {d}");
        }
        let spread: Vec<u64> = (0..20).map(|_| backoff_delay(3, &mut rng)).collect();
        assert!(spread.iter().any(|&d| d != spread[0]), "jitter varies");
    }

    #[test]
    fn cadence_keeps_the_interval_while_young_then_a_tenth_of_the_age() {
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            // No hint: 1 s (+ ≤ 2 %) while young.
            let d0 = poll_delay(&mut rng, None, 0, true, Cadence::Requests);
            assert!((1_000..=1_020).contains(&d0), "{d0}");
            // A 2-minute-old task: 12 s (+ ≤ 2 %).
            let d = poll_delay(&mut rng, None, 120_000, true, Cadence::Requests);
            assert!((12_000..=12_240).contains(&d), "{d}");
            // Old tasks: the ceiling, visible and hidden.
            assert!((20_000..=20_400).contains(&poll_delay(
                &mut rng,
                None,
                3_600_000,
                true,
                Cadence::Requests
            )));
            assert!((60_000..=61_200).contains(&poll_delay(
                &mut rng,
                None,
                3_600_000,
                false,
                Cadence::Requests
            )));
            // Server hint of 5 s: never below it.
            assert!((5_000..=5_100).contains(&poll_delay(
                &mut rng,
                Some(5_000),
                0,
                true,
                Cadence::Requests
            )));
            assert!(poll_delay(&mut rng, Some(5_000), 70_000, true, Cadence::Requests) >= 7_000);
            // A hint above the ceiling wins over the ceiling; a tiny hint meets our floor.
            assert!(
                poll_delay(&mut rng, Some(90_000), 3_600_000, true, Cadence::Requests) >= 90_000
            );
            assert!(poll_delay(&mut rng, Some(10), 0, true, Cadence::Requests) >= MIN_POLL_MS);
        }
        // The jitter does spread.
        let distinct: std::collections::BTreeSet<_> = (0..100)
            .map(|_| poll_delay(&mut rng, None, 0, true, Cadence::Requests))
            .collect();
        assert!(distinct.len() > 10);
    }

    #[test]
    fn error_backoff_is_bounded_and_honours_retry_after() {
        let mut rng = Rng::new(9);
        for _ in 0..200 {
            let d1 = error_delay(&mut rng, 1, None, None);
            assert!((500..=1_500).contains(&d1), "{d1}");
            let d9 = error_delay(&mut rng, 9, None, None);
            assert!((15_000..=45_000).contains(&d9), "{d9}");
            assert!(error_delay(&mut rng, 1, Some(7_000), None) >= 7_000);
            assert!(error_delay(&mut rng, 1, None, Some(4_000)) >= 4_000);
            assert!(error_delay(&mut rng, 1_000, None, None) <= 45_000);
        }
        assert_eq!(safety_delay(None, true), 22_000);
        assert_eq!(safety_delay(Some(90_000), false), 99_000);
    }
}
