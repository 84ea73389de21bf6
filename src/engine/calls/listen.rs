//! Push opt-in where the dialect needs one (modern `subscriptions/listen` naming the followed
//! task ids): one listen stream at a time, re-opened at most every few seconds as the set changes.
//! Re-opened only for tasks it does not name yet (pushes about tasks nobody follows any more are
//! harmless), or closed when it names none still followed; both known without scanning the tasks.
//! Make before break: a re-opened stream replaces the old one once the server accepts it, so
//! pushes already on their way on the old stream are not cut off.
//!
//! The tasks the server's acknowledgement names are pushed: a stream carries only what changes
//! after it, so each is read once after the acknowledgement; then, while their stream stays open,
//! their polls are only the safety net; when it ends, their cadence resumes within one interval. The
//! first stream waits for tasks created together to stop arriving, so one request names them all.

use crate::collections::sorted::SortedSet;

use crate::engine::api::Millis;
use crate::engine::ids::ReqId;

/// Re-open the listen stream at most this often.
const LISTEN_THROTTLE_MS: Millis = 1_000;
/// Wait this long after a change so tasks created together share one listen request.
const LISTEN_COALESCE_MS: Millis = 50;
/// Before the first stream, each new task waits this long again for the next (answers to calls
/// made together arrive one by one, tens of ms apart on a busy page)...
const FIRST_LISTEN_QUIET_MS: Millis = 100;
/// ... up to this long after the first.
const FIRST_LISTEN_MAX_WAIT_MS: Millis = 400;
/// Listen requests refused in a row before pushes are given up for the session.
pub(crate) const MAX_LISTEN_REFUSALS: u32 = 3;

#[derive(Debug, Default)]
pub(crate) struct Listen {
    /// The open listen request.
    req: Option<ReqId>,
    /// The one it replaces, kept open until the server accepts `req`.
    retiring: Option<ReqId>,
    /// The task ids it names that are still followed.
    covered: SortedSet<String>,
    /// A followed task it does not name.
    fresh: bool,
    last: Option<Millis>,
    /// Listen requests refused in a row (reset when the server accepts one).
    refusals: u32,
    /// The followed tasks the server agreed to push about (its acknowledgement).
    pushed: SortedSet<String>,
    /// The open stream `pushed` is owed to.
    pushed_by: Option<ReqId>,
    /// Since when the first stream waits for tasks to stop arriving.
    waiting_since: Option<Millis>,
}

impl Listen {
    /// When to (re)open the stream now that the followed set changed, and whether that time may
    /// only move an armed timer earlier (a stream is open or being replaced).
    pub(super) fn next_at(&mut self, now: Millis) -> (Millis, bool) {
        let soon = now.saturating_add(LISTEN_COALESCE_MS);
        let throttled = self.last.map(|l| l.saturating_add(LISTEN_THROTTLE_MS));
        if self.req.is_some() || self.retiring.is_some() {
            return (throttled.map_or(soon, |t| soon.max(t)), true);
        }
        let since = *self.waiting_since.get_or_insert(now);
        let quiet = now.saturating_add(FIRST_LISTEN_QUIET_MS);
        let at = quiet.min(since.saturating_add(FIRST_LISTEN_MAX_WAIT_MS));
        (throttled.map_or(at, |t| at.max(t)), false)
    }

    /// A task started (`followed`) or stopped being followed; `true` when the stream should
    /// change (a task it does not name, or none it names is still followed).
    pub(super) fn follow(&mut self, task_id: &str, followed: bool) -> bool {
        if followed {
            if self.covered.contains(task_id) {
                return false;
            }
            self.fresh = true;
            return true;
        }
        self.pushed.remove(task_id);
        self.covered.remove(task_id) && self.covered.is_empty()
    }

    /// Whether a new listen request is due (the open one misses a followed task or names none).
    pub(super) fn due(&mut self) -> bool {
        if self.req.is_some() && !self.fresh && !self.covered.is_empty() {
            return false;
        }
        self.waiting_since = None;
        true
    }

    /// The open request becomes the one being replaced; nothing is named yet.
    pub(super) fn rotate(&mut self) {
        self.retiring = self.req.take();
        self.covered.clear();
        self.fresh = false;
    }

    /// A new listen request naming `ids` goes out at `now`.
    pub(super) fn cover(&mut self, ids: Vec<String>, now: Millis) {
        self.covered = ids.into_iter().collect();
        self.last = Some(now);
    }

    /// The listen request just sent.
    pub(crate) fn sent(&mut self, req: Option<ReqId>) {
        self.req = req;
    }

    /// Takes the request being replaced. `replaced`: the server accepted its successor, which
    /// pushes about the same tasks.
    pub(super) fn retire(&mut self, replaced: bool) -> Option<ReqId> {
        let n = self.retiring.take()?;
        if replaced && self.pushed_by == Some(n) {
            self.pushed_by = self.req;
        }
        Some(n)
    }

    /// Stream `n` ended: the tasks it pushed about (polled again at their cadence).
    pub(super) fn lost(&mut self, n: ReqId) -> SortedSet<String> {
        if self.pushed_by != Some(n) {
            return SortedSet::default();
        }
        self.pushed_by = None;
        std::mem::take(&mut self.pushed)
    }

    /// The server acknowledged listen request `n`, agreeing to push about `task_ids`: the newly
    /// named tasks (each read once) and the ones named before (their cadence resumes unless
    /// still named). `None` when `n` is not the open request.
    pub(super) fn ack(
        &mut self,
        n: Option<ReqId>,
        task_ids: Vec<String>,
    ) -> Option<(Vec<String>, SortedSet<String>)> {
        if n.is_none() || n != self.req {
            return None;
        }
        let mut named: SortedSet<String> = SortedSet::default();
        for t in task_ids {
            if self.covered.contains(t.as_str()) {
                named.insert(t);
            }
        }
        let before = std::mem::replace(&mut self.pushed, named);
        self.pushed_by = n;
        let mut fresh: Vec<String> = Vec::new();
        for t in self.pushed.iter() {
            if !before.contains(t.as_str()) {
                fresh.push(t.clone());
            }
        }
        Some((fresh, before))
    }

    /// Whether the server agreed to push about task `task_id`.
    pub(crate) fn pushes(&self, task_id: &str) -> bool {
        self.pushed.contains(task_id)
    }

    /// The server answered listen request `n` with an HTTP status; `true` when it accepts the
    /// open one (the stream it replaces can go).
    pub(super) fn accepted(&mut self, n: ReqId, status: u16) -> bool {
        let accepted = status < 400 && self.req == Some(n);
        if accepted {
            self.refusals = 0;
        }
        accepted
    }

    /// Whether `n` is the request being replaced (it is not any more).
    pub(super) fn retired_ended(&mut self, n: ReqId) -> bool {
        let retiring = self.retiring == Some(n);
        if retiring {
            self.retiring = None;
        }
        retiring
    }

    /// The server refused a listen request: how many in a row.
    pub(super) fn refused(&mut self) -> u32 {
        self.refusals = self.refusals.saturating_add(1);
        self.refusals
    }

    /// The open stream ended at `now`.
    pub(super) fn ended(&mut self, now: Millis) {
        self.req = None;
        self.covered.clear();
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    /// Opens a listen request `n` naming `named` at `now`, as the engine does.
    fn open(l: &mut Listen, n: u64, named: &[&str], now: Millis) {
        assert!(l.due());
        l.rotate();
        l.cover(ids(named), now);
        l.sent(Some(ReqId(n)));
    }

    #[test]
    fn a_replacement_the_server_accepts_takes_over_the_pushes() {
        let mut l = Listen::default();
        assert!(l.follow("a", true), "a task the stream does not name");
        open(&mut l, 1, &["a"], 0);
        let (fresh, before) = l.ack(Some(ReqId(1)), ids(&["a", "unnamed"])).unwrap();
        assert_eq!((fresh, before.len()), (ids(&["a"]), 0));
        assert!(l.pushes("a") && !l.pushes("unnamed"));
        assert!(!l.follow("a", true), "already named");
        assert!(l.follow("b", true));
        open(&mut l, 2, &["a", "b"], 10);
        assert!(
            l.ack(Some(ReqId(1)), ids(&["a"])).is_none(),
            "not the open request"
        );
        assert!(l.accepted(ReqId(2), 200));
        assert_eq!(l.retire(true), Some(ReqId(1)));
        let lost = l.lost(ReqId(1));
        assert!(
            lost.is_empty(),
            "the accepted stream pushes about the same tasks"
        );
        assert!(l.pushes("a"));
    }

    #[test]
    fn a_stream_that_ends_gives_its_tasks_back_to_polling_and_reopens_throttled() {
        let mut l = Listen::default();
        l.follow("a", true);
        open(&mut l, 1, &["a"], 1_000);
        l.ack(Some(ReqId(1)), ids(&["a"]));
        assert_eq!(l.refused(), 1);
        let lost = l.lost(ReqId(1));
        l.ended(1_200);
        assert!(lost.contains("a") && !l.pushes("a"));
        let (at, earlier_only) = l.next_at(1_200);
        assert!(!earlier_only);
        assert_eq!(at, 1_200 + LISTEN_THROTTLE_MS);
        assert!(
            !l.accepted(ReqId(1), 200),
            "an ended request is not the open one"
        );
    }

    #[test]
    fn unfollowing_the_last_named_task_closes_the_stream() {
        let mut l = Listen::default();
        l.follow("a", true);
        l.follow("b", true);
        open(&mut l, 1, &["a", "b"], 0);
        assert!(!l.follow("a", false), "b is still named");
        assert!(l.follow("b", false));
        assert!(
            l.due(),
            "an open stream naming no followed task is replaced"
        );
    }
}
