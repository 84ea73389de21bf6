//! Time in the engine: one queue of timers ordered by due time (so the driver needs a single
//! `Wake`), and the poll cadence of design.md as pure functions of a task's poll state.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::api::Millis;
use super::rng::Rng;

/// A fast hasher for the engine's own integer keys (ids it allocated itself; never keys chosen by
/// a server). Multiplicative mixing, in the spirit of FxHash.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHash;

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

#[derive(Debug)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    fn mix(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.mix(u64::from(*b));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// First poll never earlier than this when the server gives an interval below it.
pub(crate) const MIN_FIRST_POLL_MS: Millis = 1_000;
/// First poll when the server gives no interval.
pub(crate) const DEFAULT_POLL_MS: Millis = 2_000;
/// Backoff ceiling while the page is visible.
pub(crate) const CAP_VISIBLE_MS: Millis = 20_000;
/// Backoff ceiling while the page is hidden.
pub(crate) const CAP_HIDDEN_MS: Millis = 60_000;
/// Ceiling of the error backoff (before jitter).
pub(crate) const ERROR_CAP_MS: Millis = 30_000;
/// Catch-up polls (visible again, online again) at most this often.
pub(crate) const CATCH_UP_THROTTLE_MS: Millis = 5_000;

/// The timers every task has (keyed by the task's slot number, not its id: cheap to hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TaskTimer {
    /// Next status poll (or result fetch).
    Poll,
    /// The task's createdAt + ttl.
    Deadline,
    /// Drop a task nobody watches any more.
    Gc,
}

/// Everything the engine waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Timer {
    /// A task's timer, by slot.
    Task(TaskTimer, u64),
    /// Retry establishing the session.
    Connect,
    /// (Re)open the push subscription for the tracked tasks.
    Listen,
    /// The server's `Retry-After` passed: send what was held back.
    Hold,
    /// Retry a failed `tools/list`.
    Tools,
    /// Resume a request's response stream, by request id.
    Resume(i64),
}

/// Timers ordered by due time; setting a timer again moves it.
///
/// A binary heap with lazy deletion (far less wasm than a `BTreeSet`): setting or clearing a
/// timer leaves its old entry behind, dropped once it reaches the top, or all at once when stale
/// entries outnumber live ones. The top entry is always live, so [`Timers::next`] is exact.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    queue: BinaryHeap<Reverse<(Millis, Timer)>>,
    due: HashMap<Timer, Millis, IdHash>,
}

impl Timers {
    pub(crate) fn set(&mut self, timer: Timer, at: Millis) {
        self.due.insert(timer, at);
        self.queue.push(Reverse((at, timer)));
        self.tidy();
    }

    /// Sets the timer unless it is already due earlier.
    pub(crate) fn set_earlier(&mut self, timer: Timer, at: Millis) {
        match self.due.get(&timer) {
            Some(&old) if old <= at => {}
            _ => self.set(timer, at),
        }
    }

    pub(crate) fn clear(&mut self, timer: &Timer) {
        if self.due.remove(timer).is_some() {
            self.tidy();
        }
    }

    pub(crate) fn get(&self, timer: &Timer) -> Option<Millis> {
        self.due.get(timer).copied()
    }

    /// The earliest due time.
    pub(crate) fn next(&self) -> Option<Millis> {
        self.queue.peek().map(|Reverse((at, _))| *at)
    }

    /// Removes and returns one timer due at or before `now`.
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Timer> {
        let Reverse((at, timer)) = *self.queue.peek()?;
        if at > now {
            return None;
        }
        self.queue.pop();
        self.due.remove(&timer);
        self.tidy();
        Some(timer)
    }

    pub(crate) fn clear_all(&mut self) {
        self.queue.clear();
        self.due.clear();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.due.len()
    }

    /// Drops stale entries from the top (a timer set again or cleared since), so the top is a
    /// live timer; rebuilds the queue from the live timers when stale entries outnumber them.
    fn tidy(&mut self) {
        if self.queue.len() > 2 * self.due.len() + 16 {
            self.queue = self.due.iter().map(|(t, at)| Reverse((*at, *t))).collect();
        }
        while let Some(Reverse((at, timer))) = self.queue.peek() {
            if self.due.get(timer) == Some(at) {
                break;
            }
            self.queue.pop();
        }
    }
}

/// Per-task poll bookkeeping.
#[derive(Debug, Clone, Default)]
pub(crate) struct PollState {
    /// Successful polls since the status last changed (drives the ×1.5 backoff).
    pub(crate) step: u32,
    /// Consecutive failed polls (drives the error backoff).
    pub(crate) errors: u32,
    /// When the last status request went out.
    pub(crate) last_sent: Option<Millis>,
    /// When the last status answer came back.
    pub(crate) last_answered: Option<Millis>,
    /// A status request is queued or in flight.
    pub(crate) in_flight: bool,
}

impl PollState {
    /// The earliest time from `now` that the next status request may go out, `floor` after the
    /// last one was sent or answered, whichever is later: a request that waited in the browser
    /// reached the server late, and the server must still see the spacing it asked for.
    pub(crate) fn earliest_next(&self, now: Millis, floor: Millis) -> Millis {
        let last = self.last_sent.max(self.last_answered);
        last.map_or(now, |last| now.max(last.saturating_add(floor)))
    }
}

/// The server's minimum spacing, or ours when it gives none.
pub(crate) fn floor(server_interval: Option<Millis>) -> Millis {
    server_interval.unwrap_or(MIN_FIRST_POLL_MS)
}

fn cap(visible: bool, server_interval: Option<Millis>) -> Millis {
    let cap = if visible {
        CAP_VISIBLE_MS
    } else {
        CAP_HIDDEN_MS
    };
    cap.max(floor(server_interval))
}

/// Delay before the next poll after `step` successful polls: starts at max(server interval, 1 s)
/// (2 s without a hint), ×1.5 per step up to the visible/hidden ceiling, jittered uniformly
/// between the server floor and that value; never below the server's interval.
pub(crate) fn poll_delay(
    rng: &mut Rng,
    server_interval: Option<Millis>,
    step: u32,
    visible: bool,
) -> Millis {
    let lo = floor(server_interval);
    let start = server_interval.map_or(DEFAULT_POLL_MS, |iv| iv.max(MIN_FIRST_POLL_MS));
    let grown = start as f64 * 1.5f64.powi(step.min(64) as i32);
    let computed = (grown.min(cap(visible, server_interval) as f64) as Millis).max(lo);
    rng.between(lo, computed)
}

/// Delay after the `errors`-th consecutive failure (1-based): min(1 s·2ⁿ⁻¹, 30 s) × U(0.5, 1.5),
/// never below the server's interval nor a `Retry-After` the server sent.
pub(crate) fn error_delay(
    rng: &mut Rng,
    errors: u32,
    retry_after: Option<Millis>,
    server_interval: Option<Millis>,
) -> Millis {
    let exp = errors.saturating_sub(1).min(16);
    let base = (1_000u64 << exp).min(ERROR_CAP_MS);
    let jittered = (base as f64 * (0.5 + rng.unit())) as Millis;
    jittered
        .max(floor(server_interval))
        .max(retry_after.unwrap_or(0))
}

/// After a push: the next poll only as a safety net.
pub(crate) fn safety_delay(server_interval: Option<Millis>, visible: bool) -> Millis {
    cap(visible, server_interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_order_move_and_pop() {
        let mut t = Timers::default();
        let (a, b) = (
            Timer::Task(TaskTimer::Poll, 1),
            Timer::Task(TaskTimer::Poll, 2),
        );
        t.set(a, 50);
        t.set(b, 10);
        t.set(a, 5);
        t.set_earlier(b, 40);
        assert_eq!(t.next(), Some(5));
        assert_eq!(t.get(&b), Some(10));
        assert_eq!(t.pop_due(4), None);
        assert_eq!(t.pop_due(100), Some(a));
        t.clear(&b);
        assert_eq!(t.pop_due(100), None);
        assert_eq!(t.len(), 0);
    }

    proptest::proptest! {
        /// The heap reads like the ordered set it replaced: a map of live timers, popped in
        /// (due time, timer) order.
        #[test]
        fn timers_behave_like_an_ordered_set(
            ops in proptest::collection::vec((0u8..4, 0u64..6, 0u64..100), 0..200),
        ) {
            let mut t = Timers::default();
            let mut model: std::collections::BTreeMap<Timer, Millis> = Default::default();
            for (op, slot, at) in ops {
                let timer = Timer::Task(TaskTimer::Poll, slot);
                match op {
                    0 => {
                        t.set(timer, at);
                        model.insert(timer, at);
                    }
                    1 => {
                        t.set_earlier(timer, at);
                        let e = model.entry(timer).or_insert(at);
                        *e = (*e).min(at);
                    }
                    2 => {
                        t.clear(&timer);
                        model.remove(&timer);
                    }
                    _ => {
                        let first = model.iter().map(|(t, at)| (*at, *t)).min();
                        let want = first.filter(|(due, _)| *due <= at).map(|(_, t)| t);
                        if let Some(w) = want {
                            model.remove(&w);
                        }
                        proptest::prop_assert_eq!(t.pop_due(at), want);
                    }
                }
                let first = model.values().copied().min();
                proptest::prop_assert_eq!(t.next(), first);
                proptest::prop_assert_eq!(t.len(), model.len());
                proptest::prop_assert_eq!(t.get(&timer), model.get(&timer).copied());
            }
        }
    }

    #[test]
    fn first_poll_and_backoff_follow_design() {
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            // No hint: first poll between 1 s and 2 s, then growing ×1.5 up to 20 s / 60 s.
            let d0 = poll_delay(&mut rng, None, 0, true);
            assert!((1_000..=2_000).contains(&d0));
            let d20 = poll_delay(&mut rng, None, 20, true);
            assert!((1_000..=20_000).contains(&d20));
            let h20 = poll_delay(&mut rng, None, 20, false);
            assert!(h20 <= 60_000);
            // Server hint of 5 s: first poll exactly 5 s, never below 5 s.
            assert_eq!(poll_delay(&mut rng, Some(5_000), 0, true), 5_000);
            assert!(poll_delay(&mut rng, Some(5_000), 3, true) >= 5_000);
            // A hint above the ceiling wins over the ceiling.
            assert_eq!(poll_delay(&mut rng, Some(90_000), 10, true), 90_000);
        }
        // The upper bound does reach the ceiling.
        let max = (0..500)
            .map(|_| poll_delay(&mut rng, None, 30, true))
            .max()
            .unwrap_or(0);
        assert!(max > 15_000);
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
        assert_eq!(safety_delay(None, true), 20_000);
        assert_eq!(safety_delay(Some(90_000), false), 90_000);
    }
}
