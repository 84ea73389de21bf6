//! Time in the engine: one queue of timers ordered by due time (so the driver needs a single
//! `Wake`), and the poll cadence as pure functions of a task's poll state: the server's interval
//! while a task is young, then a gap growing with its age (a tenth of it, capped), with a little
//! jitter on top and never below the interval.

use super::api::Millis;
use super::idmap::IdMap;
use super::ids::ReqId;
use super::ids::Slot;
use super::minheap::MinHeap;
use super::rng::Rng;

/// A task's poll interval when the server gives no hint.
pub(crate) const DEFAULT_POLL_MS: Millis = 1_000;
/// Our own floor under a server's hint: at most 20 status requests per task in any 10 s.
pub(crate) const MIN_POLL_MS: Millis = 500;
/// A task's gap grows to this fraction of its age (1/10): the callback for a task that ran for
/// a minute comes at most about 6 s after its end.
pub(crate) const AGE_DIVISOR: Millis = 10;
/// Jitter added on top of a gap: up to this fraction of it (1/50 = 2 %), never subtracted. Enough
/// to let the polls of tasks created together drift apart; small enough (1 % on average) that a
/// young task's end is seen as soon as by a client that waits the interval after each answer.
pub(crate) const JITTER_DIVISOR: Millis = 50;
/// Gap ceiling while the page is visible.
pub(crate) const CAP_VISIBLE_MS: Millis = 20_000;
/// Gap ceiling while the page is hidden.
pub(crate) const CAP_HIDDEN_MS: Millis = 60_000;
/// Ceiling of the error backoff (before jitter).
pub const ERROR_CAP_MS: Millis = 30_000;
/// Catch-up polls (visible again, online again) at most this often.
pub(crate) const CATCH_UP_THROTTLE_MS: Millis = 5_000;
/// A timer this late in a visible page means the clock leapt (the machine slept, the page
/// froze): the polls it held back are spread over one interval instead of going out at once.
pub(crate) const LEAP_MS: Millis = 2_000;

/// The timers every task has (keyed by the task's slot number, not its id: cheap to order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TaskTimer {
    /// Next status poll (or result fetch).
    Poll,
    /// The task's createdAt + ttl.
    Deadline,
    /// Drop a task nobody watches any more.
    Gc,
    /// A pushed end's grace for the held `tasks/result` to bring the outcome.
    Result,
}

/// Everything the engine waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Timer {
    /// A task's timer, by slot.
    Task(TaskTimer, Slot),
    /// Retry establishing the session.
    Connect,
    /// (Re)open the push subscription for the tracked tasks.
    Listen,
    /// Reopen the legacy GET listening stream.
    Standalone,
    /// Open a new WebSocket.
    Reconnect,
    /// The server's `Retry-After` passed: send what was held back.
    Hold,
    /// Retry a failed `tools/list`.
    Tools,
    /// Resume a request's response stream, by request id.
    Resume(ReqId),
}

/// Where a [`Timer`] other than a stream's resumption is kept: a key in 8 bytes, what it keeps
/// (one of [`kept`]) in its high half and the task's slot (none: 0) in its low half, so that keys
/// compare as plain numbers; and which of the key's two due times is the timer's own. A task's
/// poll and deadline timers share one key (a running task has both set: one queue entry and one
/// map entry for the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u64);

/// What a [`Key`] keeps the due times of.
mod kept {
    /// A task's poll (first) and deadline (second) timers.
    pub(super) const RUNNING: u32 = 0;
    pub(super) const GC: u32 = 1;
    pub(super) const RESULT: u32 = 2;
    pub(super) const CONNECT: u32 = 3;
    pub(super) const LISTEN: u32 = 4;
    pub(super) const STANDALONE: u32 = 5;
    pub(super) const RECONNECT: u32 = 6;
    pub(super) const HOLD: u32 = 7;
    pub(super) const TOOLS: u32 = 8;
}

/// The due times under one key: a task's poll and deadline, or a single timer's (the first).
type Due = [MaybeAt; 2];

/// The earliest of a key's due times (none when both are unset).
fn first(due: &Due) -> Option<Millis> {
    due.iter().filter_map(|at| at.get()).min()
}

impl Key {
    fn new(kept: u32, slot: Slot) -> Key {
        Key(u64::from(kept) << 32 | u64::from(slot.0))
    }

    /// The key of `timer` and which of its due times is the timer's, or the request whose
    /// stream it resumes.
    fn of(timer: Timer) -> Result<(Key, usize), ReqId> {
        let none = Slot(0);
        let (kept, slot, which) = match timer {
            Timer::Task(TaskTimer::Poll, slot) => (kept::RUNNING, slot, 0),
            Timer::Task(TaskTimer::Deadline, slot) => (kept::RUNNING, slot, 1),
            Timer::Task(TaskTimer::Gc, slot) => (kept::GC, slot, 0),
            Timer::Task(TaskTimer::Result, slot) => (kept::RESULT, slot, 0),
            Timer::Connect => (kept::CONNECT, none, 0),
            Timer::Listen => (kept::LISTEN, none, 0),
            Timer::Standalone => (kept::STANDALONE, none, 0),
            Timer::Reconnect => (kept::RECONNECT, none, 0),
            Timer::Hold => (kept::HOLD, none, 0),
            Timer::Tools => (kept::TOOLS, none, 0),
            Timer::Resume(n) => return Err(n),
        };
        Ok((Key::new(kept, slot), which))
    }

    /// The timer kept as due time `which` of this key.
    fn timer(self, which: usize) -> Timer {
        let (kept, slot) = ((self.0 >> 32) as u32, Slot(self.0 as u32));
        let task = |kind| Timer::Task(kind, slot);
        match (kept, which) {
            (kept::RUNNING, 0) => task(TaskTimer::Poll),
            (kept::RUNNING, _) => task(TaskTimer::Deadline),
            (kept::GC, _) => task(TaskTimer::Gc),
            (kept::RESULT, _) => task(TaskTimer::Result),
            (kept::CONNECT, _) => Timer::Connect,
            (kept::LISTEN, _) => Timer::Listen,
            (kept::STANDALONE, _) => Timer::Standalone,
            (kept::RECONNECT, _) => Timer::Reconnect,
            (kept::HOLD, _) => Timer::Hold,
            _ => Timer::Tools,
        }
    }
}

/// Timers ordered by due time; setting a timer again moves it.
///
/// A binary min-heap with lazy deletion (far less wasm than a `BTreeSet`): each key is queued at
/// the earliest of its due times; setting or clearing a timer that moves it leaves the old
/// entry behind, dropped once it reaches the top, or all at once when stale entries reach half
/// the live ones. The top entry is always live, so [`Timers::next`] is exact. Timers due at the same
/// time pop in no particular order (a task's poll before its deadline). Streams' resumptions
/// (few, and keyed by a request id too wide for a key) wait in a list beside it.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    queue: MinHeap<(Millis, Key)>,
    due: IdMap<Key, Due>,
    resumes: Vec<(ReqId, Millis)>,
}

impl Timers {
    pub(crate) fn set(&mut self, timer: Timer, at: Millis) {
        match Key::of(timer) {
            Ok((key, which)) => self.put(key, which, at.into()),
            Err(n) => {
                self.drop_resume(n);
                self.resumes.push((n, at));
            }
        }
    }

    /// Sets the timer unless it is already due earlier.
    pub(crate) fn set_earlier(&mut self, timer: Timer, at: Millis) {
        match self.get(&timer) {
            Some(old) if old <= at => {}
            _ => self.set(timer, at),
        }
    }

    pub(crate) fn clear(&mut self, timer: &Timer) {
        match Key::of(*timer) {
            Ok((key, which)) => self.put(key, which, MaybeAt::NONE),
            Err(n) => self.drop_resume(n),
        }
    }

    /// Sets (or with `NONE` clears) due time `which` of `key`, queueing the key again when its
    /// earliest due time moved.
    fn put(&mut self, key: Key, which: usize, at: MaybeAt) {
        let due = self.due.get(&key).copied().unwrap_or_default();
        let mut now_due = due;
        if let Some(slot) = now_due.get_mut(which) {
            *slot = at;
        }
        if now_due == due {
            return;
        }
        let earliest = first(&now_due);
        if earliest.is_none() {
            self.due.remove(&key);
        } else {
            self.due.insert(key, now_due);
        }
        if let Some(at) = earliest.filter(|at| first(&due) != Some(*at)) {
            self.queue.push((at, key));
        }
        self.tidy();
    }

    fn drop_resume(&mut self, n: ReqId) {
        if let Some(i) = self.resumes.iter().position(|(r, _)| *r == n) {
            self.resumes.swap_remove(i);
        }
    }

    pub(crate) fn get(&self, timer: &Timer) -> Option<Millis> {
        match Key::of(*timer) {
            Ok((key, which)) => self.due.get(&key)?.get(which)?.get(),
            Err(n) => self
                .resumes
                .iter()
                .find(|(r, _)| *r == n)
                .map(|(_, at)| *at),
        }
    }

    /// The earliest resumption: (due time, request).
    fn first_resume(&self) -> Option<(Millis, ReqId)> {
        self.resumes.iter().map(|(n, at)| (*at, *n)).min()
    }

    /// The earliest due time.
    pub(crate) fn next(&self) -> Option<Millis> {
        let queued = self.queue.peek().map(|(at, _)| at);
        let resume = self.first_resume().map(|(at, _)| at);
        match (queued, resume) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Removes and returns one timer due at or before `now` (at the same time, a resumption
    /// comes last).
    pub(crate) fn pop_due(&mut self, now: Millis) -> Option<Timer> {
        match (self.queue.peek(), self.first_resume()) {
            (Some((at, key)), resume) if at <= now && resume.is_none_or(|(r, _)| at <= r) => {
                let due = self.due.get(&key).copied().unwrap_or_default();
                let which = due.iter().position(|d| d.get() == Some(at)).unwrap_or(0);
                self.put(key, which, MaybeAt::NONE);
                Some(key.timer(which))
            }
            (_, Some((at, n))) if at <= now => {
                self.drop_resume(n);
                Some(Timer::Resume(n))
            }
            _ => None,
        }
    }

    /// The timers due before `before`: the tasks' polls (and deadlines) first, by slot.
    pub(crate) fn due_before(&self, before: Millis) -> Vec<Timer> {
        let mut due: Vec<Timer> = Vec::new();
        for (key, times) in self.due.iter() {
            for (which, at) in times.iter().enumerate() {
                if at.get().is_some_and(|at| at < before) {
                    due.push(key.timer(which));
                }
            }
        }
        for (n, at) in &self.resumes {
            if *at < before {
                due.push(Timer::Resume(*n));
            }
        }
        due
    }

    pub(crate) fn clear_all(&mut self) {
        *self = Timers::default();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let queued = self.due.values().flatten().filter(|at| at.get().is_some());
        queued.count() + self.resumes.len()
    }

    /// Drops stale entries from the top (a key whose earliest due time moved since, or that was
    /// cleared), so the top is live; rebuilds the queue from the live keys, in its own buffer,
    /// once stale entries are half as many as they. Each poll of a running task leaves one
    /// stale entry (its deadline's): allowing as many stale entries as live ones would double
    /// the queue's capacity, and a second buffer alongside it would raise the peak further.
    fn tidy(&mut self) {
        if self.queue.len() > self.due.len() + self.due.len() / 2 + 16 {
            let mut entries = std::mem::take(&mut self.queue).into_vec();
            entries.clear();
            let live = self.due.iter().filter_map(|(k, d)| Some((first(d)?, *k)));
            entries.extend(live);
            self.queue = MinHeap::from_vec(entries);
        }
        while let Some((at, key)) = self.queue.peek() {
            if self.due.get(&key).and_then(first) == Some(at) {
                break;
            }
            self.queue.pop();
        }
    }
}

/// An optional instant in 8 bytes (an `Option<Millis>` takes 16, its tag padded to the number's
/// alignment): `Millis::MAX`, an instant no clock reaches, stands for none. Every tracked task
/// keeps a few.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct MaybeAt(Millis);

impl MaybeAt {
    pub(crate) const NONE: MaybeAt = MaybeAt(Millis::MAX);

    pub(crate) fn get(self) -> Option<Millis> {
        (self != Self::NONE).then_some(self.0)
    }
}

impl Default for MaybeAt {
    fn default() -> Self {
        Self::NONE
    }
}

impl From<Option<Millis>> for MaybeAt {
    fn from(at: Option<Millis>) -> Self {
        at.map_or(Self::NONE, MaybeAt)
    }
}

impl From<Millis> for MaybeAt {
    fn from(at: Millis) -> Self {
        MaybeAt(at)
    }
}

impl std::fmt::Debug for MaybeAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

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
}

impl PollState {
    /// The earliest time from `now` that the next status request may go out, `floor` after the
    /// last one was sent or answered, whichever is later: a request that waited in the browser
    /// reached the server late, and the server must still see the spacing it asked for.
    pub(crate) fn earliest_next(&self, now: Millis, floor: Millis) -> Millis {
        let last = self.last_sent.get().max(self.last_answered.get());
        last.map_or(now, |last| now.max(last.saturating_add(floor)))
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

/// The longest a gap can be drawn to: the gap plus its jitter.
pub(crate) fn with_jitter_bound(gap: Millis) -> Millis {
    gap.saturating_add(gap / JITTER_DIVISOR)
}

/// Delay before the next poll: [`poll_gap`] plus up to 2 % jitter on top (so polls of tasks
/// created together drift apart, and never come sooner than the gap).
pub(crate) fn poll_delay(
    rng: &mut Rng,
    server_interval: Option<Millis>,
    age: Millis,
    visible: bool,
) -> Millis {
    let gap = poll_gap(server_interval, age, visible);
    rng.between(gap, with_jitter_bound(gap))
}

/// A task's first poll is spread over this fraction of its gap (1/10 = 10 %) on top of it: tasks
/// created together fall out of step once, and keep their cadence (and their latency) after.
pub(crate) const FIRST_SPREAD_DIVISOR: Millis = 10;

/// Delay before a task's first poll (just created, or just named): its gap plus up to 10 %.
pub(crate) fn first_poll_delay(
    rng: &mut Rng,
    server_interval: Option<Millis>,
    visible: bool,
) -> Millis {
    let gap = poll_gap(server_interval, 0, visible);
    rng.between(gap, with_first_spread_bound(gap))
}

/// The longest a first gap can be drawn to: the gap plus its spread.
pub(crate) fn with_first_spread_bound(gap: Millis) -> Millis {
    gap.saturating_add(gap / FIRST_SPREAD_DIVISOR)
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
    fn timers_order_move_and_pop() {
        let mut t = Timers::default();
        let (a, b) = (
            Timer::Task(TaskTimer::Poll, Slot(1)),
            Timer::Task(TaskTimer::Poll, Slot(2)),
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
        /// The heap (and the resumptions beside it) reads like the ordered set it replaced: a
        /// map of live timers, popped earliest first (at the same time, a task's poll before its
        /// deadline and a resumption last).
        #[test]
        fn timers_behave_like_an_ordered_set(
            ops in proptest::collection::vec((0u8..4, 0u32..8, 0u64..100), 0..200),
        ) {
            let mut t = Timers::default();
            let mut model: std::collections::BTreeMap<Timer, Millis> = Default::default();
            for (op, n, at) in ops {
                // Three tasks' polls and deadlines (sharing a key per task), one task's GC, and
                // a stream's resumption (kept beside the queue).
                let timer = match n {
                    0..=2 => Timer::Task(TaskTimer::Poll, Slot(n)),
                    3..=5 => Timer::Task(TaskTimer::Deadline, Slot(n - 3)),
                    6 => Timer::Task(TaskTimer::Gc, Slot(0)),
                    _ => Timer::Resume(ReqId(u64::from(n))),
                };
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
                        let earliest = model.values().copied().min().filter(|due| *due <= at);
                        let popped = t.pop_due(at);
                        match (earliest, popped) {
                            (Some(due), Some(p)) => {
                                proptest::prop_assert_eq!(model.remove(&p), Some(due));
                                if let Timer::Task(TaskTimer::Deadline, slot) = p {
                                    let poll = Timer::Task(TaskTimer::Poll, slot);
                                    proptest::prop_assert_ne!(model.get(&poll), Some(&due));
                                }
                                if matches!(p, Timer::Resume(_)) {
                                    let queued = model.iter().filter(|(t, _)| !matches!(t, Timer::Resume(_)));
                                    proptest::prop_assert!(queued.map(|(_, at)| *at).all(|at| at > due));
                                }
                            }
                            (earliest, popped) => {
                                proptest::prop_assert_eq!((earliest, popped), (None, None));
                            }
                        }
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
    fn cadence_keeps_the_interval_while_young_then_a_tenth_of_the_age() {
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            // No hint: 1 s (+ ≤ 2 %) while young.
            let d0 = poll_delay(&mut rng, None, 0, true);
            assert!((1_000..=1_020).contains(&d0), "{d0}");
            // A 2-minute-old task: 12 s (+ ≤ 2 %).
            let d = poll_delay(&mut rng, None, 120_000, true);
            assert!((12_000..=12_240).contains(&d), "{d}");
            // Old tasks: the ceiling, visible and hidden.
            assert!((20_000..=20_400).contains(&poll_delay(&mut rng, None, 3_600_000, true)));
            assert!((60_000..=61_200).contains(&poll_delay(&mut rng, None, 3_600_000, false)));
            // Server hint of 5 s: never below it.
            assert!((5_000..=5_100).contains(&poll_delay(&mut rng, Some(5_000), 0, true)));
            assert!(poll_delay(&mut rng, Some(5_000), 70_000, true) >= 7_000);
            // A hint above the ceiling wins over the ceiling; a tiny hint meets our floor.
            assert!(poll_delay(&mut rng, Some(90_000), 3_600_000, true) >= 90_000);
            assert!(poll_delay(&mut rng, Some(10), 0, true) >= MIN_POLL_MS);
        }
        // The jitter does spread.
        let distinct: std::collections::BTreeSet<_> = (0..100)
            .map(|_| poll_delay(&mut rng, None, 0, true))
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
