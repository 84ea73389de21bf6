//! Time in the engine: one queue of timers ordered by due time, so the driver needs a single
//! `Wake` (the poll cadence that sets most of them is in `cadence.rs`).

pub(super) mod cadence;
pub(super) mod rng;
pub(super) mod socket;

use super::api::Millis;
use super::ids::ReqId;
use super::ids::Slot;
use crate::collections::idmap::IdMap;
use crate::collections::minheap::MinHeap;

/// The timers every task has (keyed by the task's slot number, not its id: cheap to order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum TaskTimer {
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
    /// The `initialized` notification went unanswered too long: the session's requests go.
    Initialized,
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
    pub(super) const INITIALIZED: u32 = 9;
}

/// The due times under one key: a task's poll and deadline, or a single timer's (the first).
type Due = [MaybeAt; 2];

/// The earliest of a key's due times (none when both are unset: an unset time is the largest).
fn first(due: &Due) -> Option<Millis> {
    let [a, b] = due;
    MaybeAt(a.0.min(b.0)).get()
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
            Timer::Initialized => (kept::INITIALIZED, none, 0),
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
            (kept::INITIALIZED, _) => Timer::Initialized,
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
pub(super) struct Timers {
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
    pub(super) fn set_earlier(&mut self, timer: Timer, at: Millis) {
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
        let queued = self.queue.peek().map_or(Millis::MAX, |(at, _)| at);
        let resume = self.first_resume().map_or(Millis::MAX, |(at, _)| at);
        MaybeAt(queued.min(resume)).get()
    }

    /// Removes and returns one timer due at or before `now` (at the same time, a resumption
    /// comes last).
    pub(super) fn pop_due(&mut self, now: Millis) -> Option<Timer> {
        match (self.queue.peek(), self.first_resume()) {
            (Some((at, key)), resume) if at <= now && resume.is_none_or(|(r, _)| at <= r) => {
                // The key's first time when that is the one due, else its second.
                let [first, _] = self.due.get(&key).copied().unwrap_or_default();
                let which = usize::from(first.get() != Some(at));
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
    pub(super) fn due_before(&self, before: Millis) -> Vec<Timer> {
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

    pub(super) fn clear_all(&mut self) {
        *self = Timers::default();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
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
pub(super) struct MaybeAt(Millis);

impl MaybeAt {
    const NONE: MaybeAt = MaybeAt(Millis::MAX);

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
