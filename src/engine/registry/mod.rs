//! The task registry: one entry per task id (one engine talks to one server), with its latest
//! snapshot, its subscribers, poll state and cached outcome.

pub(super) mod confirm;
mod cut;
pub(super) mod early;
mod fetch;
pub(super) mod iso8601;
pub(crate) mod known;
pub(super) mod lifecycle;
pub(super) mod pace;
pub(super) mod phase;
pub(super) mod pushed;
mod race;
pub(super) mod results;
pub(super) mod tasks;

use std::rc::Rc;

use super::ids::ReqId;
use super::ids::Slot;
use crate::collections::idmap::IdMap;
use crate::protocol::model::{Outcome, Task, TaskStatus};

use known::Known;

use super::api::{Millis, SubId};
use super::scheduler::cadence::PollState;
use super::scheduler::MaybeAt;
use crate::collections::sorted::{SortedMap, SortedSet};
use fetch::ResultFetch;
use phase::Phase;

/// One tracked task.
#[derive(Debug, Default)]
pub(super) struct TaskEntry {
    /// The entry's number (its timers are keyed by it).
    pub(crate) slot: Slot,
    /// Latest snapshot (`None` until the server said anything about it), shared with the
    /// handles that show it.
    pub(crate) snapshot: Option<Rc<Known>>,
    /// Subscribers still waiting for `Done`.
    pub(crate) subs: SortedSet<SubId>,
    /// Where the task stands in its life.
    pub(crate) phase: Phase,
    pub(crate) poll: PollState,
    /// Its `tasks/result` fetch.
    pub(crate) result: ResultFetch,
    /// The outcome, once known (inline, fetched, or the original response). Boxed: most tasks
    /// tracked at a time still run.
    pub(crate) outcome: Option<Box<Outcome>>,
    /// JSON-RPC id of the request that created the task (draft cancellation needs it).
    pub(crate) origin: Option<ReqId>,
    /// Delete the task on the server once its end was delivered (a caller asked for it).
    pub(crate) delete_on_done: bool,
    /// Modern `inputRequests` keys already surfaced to the host (each surfaced once).
    pub(crate) input_keys: SortedSet<String>,
    /// createdAt + ttl, when the server gave both.
    pub(crate) deadline: MaybeAt,
}

// The three readers below are asked from dozens of places: kept out of line, each site is a call
// instead of its own copy of the lookup.
impl TaskEntry {
    #[inline(never)]
    pub(crate) fn status(&self) -> Option<TaskStatus> {
        self.snapshot.as_ref().map(|t| t.status)
    }

    #[inline(never)]
    pub(crate) fn is_terminal(&self) -> bool {
        self.status().is_some_and(TaskStatus::is_terminal)
    }

    #[inline(never)]
    pub(super) fn server_interval(&self) -> Option<Millis> {
        self.snapshot.as_ref().and_then(|t| t.poll_interval_ms())
    }
}

impl TaskEntry {
    /// Whether the task waits for input (legacy: its requests come on its held result).
    pub(crate) fn asks(&self) -> bool {
        self.status() == Some(TaskStatus::InputRequired)
    }
}

/// What applying a snapshot changed.
#[derive(Debug, Default)]
pub(super) struct Applied {
    /// `Some((from, to))` when the status changed.
    transition: Option<(Option<TaskStatus>, TaskStatus)>,
    /// Anything a subscriber would see changed (status, message, ttl, interval, outcome, inputs).
    visible_change: bool,
}

/// Merges a new snapshot into the old one: terminal states are final, fields a dialect omits
/// keep their last known value, and `lastUpdatedAt` alone is not a change.
pub(crate) fn apply(entry: &mut TaskEntry, mut new: Task) -> Applied {
    let old = entry.snapshot.as_ref();
    if old.is_some_and(|o| o.status.is_terminal() && new.status != o.status) {
        // Late or contradicting news about a finished task: keep what we had.
        return Applied::default();
    }
    if let Some(old) = old {
        old.fill(&mut new);
    }
    if new.outcome.is_some() && entry.outcome.is_none() {
        entry.outcome = new.outcome.clone().map(Box::new);
    }
    let new = Known::new(new);
    let from = old.map(|o| o.status);
    let applied = Applied {
        transition: (from != Some(new.status)).then_some((from, new.status)),
        visible_change: old.is_none_or(|o| o.differs(&new)),
    };
    if old.is_none_or(|o| o.created_millis() != new.created_millis() || o.ttl_ms() != new.ttl_ms())
    {
        entry.deadline = deadline(&new).into();
    }
    if new.status.is_terminal() {
        entry.phase.end();
    }
    entry.snapshot = Some(Rc::new(new));
    applied
}

/// createdAt + ttl when both are known (draft tasks carry no createdAt: no deadline).
fn deadline(t: &Known) -> Option<Millis> {
    let created = t.created_millis()?;
    created.checked_add(t.ttl_ms()?)
}

/// The tracked tasks by id, each with a slot of its own: the small number its timers are keyed
/// by. A slot names exactly one tracked task, and is freed with it. A task's id is allocated once,
/// shared by both maps (and by the subscriptions that follow the task).
#[derive(Debug)]
pub(super) struct Registry {
    /// In id order; boxed entries: the room a growth leaves free then costs a pointer each, not a
    /// whole entry.
    entries: SortedMap<Rc<str>, Box<TaskEntry>>,
    /// Slot → task id.
    slots: IdMap<Slot, Rc<str>>,
    next_slot: Slot,
}

impl Registry {
    pub(crate) fn new() -> Self {
        Self {
            entries: SortedMap::default(),
            slots: IdMap::default(),
            next_slot: Slot::FIRST,
        }
    }

    pub(crate) fn get(&self, task_id: &str) -> Option<&TaskEntry> {
        self.entries.get(task_id).map(Box::as_ref)
    }

    pub(crate) fn get_mut(&mut self, task_id: &str) -> Option<&mut TaskEntry> {
        self.entries.get_mut(task_id).map(Box::as_mut)
    }

    pub(crate) fn contains_key(&self, task_id: &str) -> bool {
        self.entries.contains_key(task_id)
    }

    /// The entry of a task, created (with a fresh slot) when new: always `Some`.
    pub(crate) fn entry(&mut self, task_id: &str) -> Option<&mut TaskEntry> {
        let (slots, next_slot) = (&mut self.slots, &mut self.next_slot);
        let entry = self.entries.get_or_insert_with(task_id, || {
            let id: Rc<str> = task_id.into();
            let slot = next_slot.take_next();
            slots.insert(slot, id.clone());
            let entry = TaskEntry {
                slot,
                ..TaskEntry::default()
            };
            (id, Box::new(entry))
        });
        entry.map(Box::as_mut)
    }

    /// The slot the next new task gets (slots count up).
    pub(super) fn next_slot(&self) -> Slot {
        self.next_slot
    }

    /// The shared id of a tracked task.
    pub(crate) fn id(&self, task_id: &str) -> Option<Rc<str>> {
        self.entries
            .get_key_value(task_id)
            .map(|(id, _)| id.clone())
    }

    /// Forgets a task; its slot is free.
    fn remove(&mut self, task_id: &str) -> Option<Box<TaskEntry>> {
        let entry = self.entries.remove(task_id)?;
        self.slots.remove(&entry.slot);
        Some(entry)
    }

    /// The id of the task in `slot`.
    pub(super) fn id_at(&self, slot: Slot) -> Option<&str> {
        self.slots.get(&slot).map(|id| &**id)
    }

    /// The entry of the task in `slot`.
    fn at_mut(&mut self, slot: Slot) -> Option<&mut TaskEntry> {
        let id = self.slots.get(&slot)?;
        self.entries.get_mut(&**id).map(Box::as_mut)
    }

    /// The tracked tasks in id order.
    fn iter(&self) -> impl Iterator<Item = (&str, &TaskEntry)> {
        self.entries.iter().map(|(id, e)| (&**id, e.as_ref()))
    }

    /// The ids of the tracked tasks `pick` says yes to, in id order: owned, so that the caller
    /// may change the registry as it goes through them (a `dyn` test: one collecting loop in the
    /// binary for every caller).
    fn ids_where(&self, pick: &dyn Fn(&str, &TaskEntry) -> bool) -> Vec<String> {
        let mut ids = Vec::new();
        for (id, e) in self.iter() {
            if pick(id, e) {
                ids.push(id.to_owned());
            }
        }
        ids
    }

    /// The ids of the running tasks someone follows, in id order.
    pub(crate) fn followed(&self) -> Vec<String> {
        self.ids_where(&|_, e| !e.subs.is_empty() && !e.is_terminal())
    }

    /// Tasks tracked (running or not yet forgotten).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.slots.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn task(status: TaskStatus) -> Task {
        let mut t = Task::new("t1", status);
        t.created_at = Some("2025-01-01T00:00:00Z".into());
        t.ttl_ms = Some(60_000);
        t
    }

    #[test]
    fn first_snapshot_is_a_transition_from_nothing() {
        let mut e = TaskEntry::default();
        let a = apply(&mut e, task(TaskStatus::Working));
        assert_eq!(a.transition, Some((None, TaskStatus::Working)));
        assert!(a.visible_change);
        assert_eq!(e.deadline.get(), Some(1_735_689_600_000 + 60_000));
    }

    #[test]
    fn last_updated_alone_is_not_a_change_and_missing_fields_are_kept() {
        let mut e = TaskEntry::default();
        let mut t = task(TaskStatus::Working);
        t.poll_interval_ms = Some(3_000);
        apply(&mut e, t);
        let mut again = Task::new("t1", TaskStatus::Working);
        again.last_updated_at = Some("2025-01-01T00:00:09Z".into());
        let a = apply(&mut e, again);
        assert!(a.transition.is_none());
        assert!(!a.visible_change);
        let snap = e
            .snapshot
            .as_ref()
            .map(|t| (t.poll_interval_ms(), t.task("t1").created_at));
        assert_eq!(
            snap,
            Some((Some(3_000), Some("2025-01-01T00:00:00Z".into())))
        );
    }

    #[test]
    fn terminal_is_final() {
        let mut e = TaskEntry::default();
        let mut done = task(TaskStatus::Completed);
        done.outcome = Some(Outcome::Result {
            result: json!({"ok": true}),
        });
        apply(&mut e, done);
        assert!(e.outcome.is_some());
        let a = apply(&mut e, task(TaskStatus::Working));
        assert!(a.transition.is_none() && !a.visible_change);
        assert_eq!(e.status(), Some(TaskStatus::Completed));
    }
}
