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

use crate::engine::api::{Millis, Output};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Failure, Purpose};
use crate::engine::scheduler::Timer;
use crate::engine::Engine;

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
    pub(crate) pushed: SortedSet<String>,
    /// The open stream `pushed` is owed to.
    pushed_by: Option<ReqId>,
    /// Since when the first stream waits for tasks to stop arriving.
    waiting_since: Option<Millis>,
}

impl Engine {
    /// The set of followed tasks may have changed.
    pub(crate) fn listen_changed(&mut self, now: Millis) {
        if !self.session.listens() || !self.session.is_ready() {
            return;
        }
        let soon = now.saturating_add(LISTEN_COALESCE_MS);
        let throttled = self
            .listen
            .last
            .map(|l| l.saturating_add(LISTEN_THROTTLE_MS));
        if self.listen.req.is_some() || self.listen.retiring.is_some() {
            let at = throttled.map_or(soon, |t| soon.max(t));
            return self.timers.set_earlier(Timer::Listen, at);
        }
        let since = *self.listen.waiting_since.get_or_insert(now);
        let quiet = now.saturating_add(FIRST_LISTEN_QUIET_MS);
        let at = quiet.min(since.saturating_add(FIRST_LISTEN_MAX_WAIT_MS));
        self.timers
            .set(Timer::Listen, throttled.map_or(at, |t| at.max(t)));
    }

    /// A task started (`followed`) or stopped being followed.
    pub(crate) fn listen_follow(&mut self, now: Millis, task_id: &str, followed: bool) {
        if !self.session.listens() {
            return;
        }
        if followed {
            if !self.listen.covered.contains(task_id) {
                self.listen.fresh = true;
                self.listen_changed(now);
            }
        } else {
            self.listen.pushed.remove(task_id);
            if self.listen.covered.remove(task_id) && self.listen.covered.is_empty() {
                self.listen_changed(now);
            }
        }
    }

    pub(crate) fn send_listen(&mut self, now: Millis) {
        let Some(codec) = self
            .session
            .ready_codec()
            .filter(|_| self.session.listens())
        else {
            return;
        };
        if self.session.gated() {
            // Asked again when the hold is over.
            return;
        }
        if self.listen.req.is_some() && !self.listen.fresh && !self.listen.covered.is_empty() {
            return;
        }
        self.listen.waiting_since = None;
        self.retire_listen(now, false);
        self.listen.retiring = self.listen.req.take();
        self.listen.covered.clear();
        self.listen.fresh = false;
        let ids = self.tasks.followed();
        if ids.is_empty() {
            return;
        }
        let Some(out) = codec.build_listen(&self.session.info(), &ids) else {
            return;
        };
        self.listen.covered = ids.into_iter().collect();
        self.listen.last = Some(now);
        self.listen.req = self.send(now, Purpose::Listen, out);
    }

    /// Closes the stream being replaced, if any. `replaced`: the server accepted its successor,
    /// which pushes about the same tasks.
    fn retire_listen(&mut self, now: Millis, replaced: bool) {
        let Some(n) = self.listen.retiring.take() else {
            return;
        };
        if let Some(old) = self.take_pending(n) {
            self.out.push_back(Output::Abort { key: old.key });
        }
        if replaced && self.listen.pushed_by == Some(n) {
            self.listen.pushed_by = self.listen.req;
        }
        self.pushes_lost(now, n);
    }

    /// The server acknowledged listen request `n`, agreeing to push about `task_ids`: each newly
    /// named task is read once, then its polls become the safety net; tasks it no longer names
    /// resume their cadence.
    pub(super) fn on_listen_ack(&mut self, now: Millis, n: Option<ReqId>, task_ids: Vec<String>) {
        if n.is_none() || n != self.listen.req {
            return;
        }
        let mut named: SortedSet<String> = SortedSet::default();
        for t in task_ids {
            if self.listen.covered.contains(t.as_str()) {
                named.insert(t);
            }
        }
        let before = std::mem::replace(&mut self.listen.pushed, named);
        self.listen.pushed_by = n;
        let mut fresh: Vec<String> = Vec::new();
        for t in self.listen.pushed.iter() {
            if !before.contains(t.as_str()) {
                fresh.push(t.clone());
            }
        }
        // A stream carries only what changes after it: one status request (as soon as the
        // interval allows) reads what changed before, then polls are the safety net.
        for t in fresh {
            self.poll_soon(now, &t);
        }
        self.resume_polls(now, before);
    }

    /// Stream `n` ended: the tasks it pushed about are polled again at their cadence.
    fn pushes_lost(&mut self, now: Millis, n: ReqId) {
        if self.listen.pushed_by == Some(n) {
            self.listen.pushed_by = None;
            let lost = std::mem::take(&mut self.listen.pushed);
            self.resume_polls(now, lost);
        }
    }

    /// The next poll of each of `tasks` not pushed any more, within one interval (spread over
    /// it, never sooner than the interval after the last poll).
    fn resume_polls(&mut self, now: Millis, tasks: SortedSet<String>) {
        for t in tasks.iter() {
            if !self.listen.pushed.contains(t.as_str()) {
                self.poll_spread(now, t);
            }
        }
    }

    /// The server answered listen request `n` with an HTTP status: once it accepts the current
    /// one, the stream it replaces goes.
    pub(crate) fn on_listen_head(&mut self, now: Millis, n: ReqId, status: u16) {
        if status < 400 && self.listen.req == Some(n) {
            self.listen.refusals = 0;
            self.retire_listen(now, true);
        }
    }

    /// Listen request `n` ended (`failure`: refused). The stream being replaced just goes; when
    /// the current one ends (the one it replaces with it), it is opened again later if tasks are
    /// still followed, unless the server lacks the method or keeps refusing it.
    pub(crate) fn on_listen_end(&mut self, now: Millis, n: ReqId, failure: Option<Box<Failure>>) {
        if self.listen.retiring == Some(n) {
            self.listen.retiring = None;
            return self.pushes_lost(now, n);
        }
        // Refused by the server (not lost on the way: that says nothing about the method).
        if let Some(f) = failure.filter(|f| f.rpc().is_some() || f.http_status() >= Some(400)) {
            self.listen.refusals = self.listen.refusals.saturating_add(1);
            self.listen_refused(&f, self.listen.refusals);
        }
        self.retire_listen(now, false);
        self.pushes_lost(now, n);
        self.listen.req = None;
        self.listen.covered.clear();
        self.listen.last = Some(now);
        self.listen_changed(now);
    }
}
