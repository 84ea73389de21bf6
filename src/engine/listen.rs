//! Push opt-in where the dialect needs one (modern `subscriptions/listen` naming the followed
//! task ids): one listen stream at a time, re-opened at most every few seconds as the set changes.
//! Re-opened only for tasks it does not name yet (pushes about tasks nobody follows any more are
//! harmless), or closed when it names none still followed; both known without scanning the tasks.
//! Make before break: a re-opened stream replaces the old one once the server accepts it, so
//! pushes already on their way on the old stream are not cut off.

use std::collections::HashSet;

use super::api::{Millis, Output};
use super::ids::ReqId;
use super::requests::{Failure, Purpose};
use super::scheduler::Timer;
use super::Engine;

/// Re-open the listen stream at most this often.
const LISTEN_THROTTLE_MS: Millis = 1_000;
/// Wait this long after a change so tasks created together share one listen request.
const LISTEN_COALESCE_MS: Millis = 50;
/// Listen requests refused in a row before pushes are given up for the session.
pub(crate) const MAX_LISTEN_REFUSALS: u32 = 3;

#[derive(Debug, Default)]
pub(crate) struct Listen {
    /// The open listen request.
    req: Option<ReqId>,
    /// The one it replaces, kept open until the server accepts `req`.
    retiring: Option<ReqId>,
    /// The task ids it names that are still followed.
    covered: HashSet<String>,
    /// A followed task it does not name.
    fresh: bool,
    last: Option<Millis>,
    /// Listen requests refused in a row (reset when the server accepts one).
    refusals: u32,
}

impl Engine {
    /// The set of followed tasks may have changed.
    pub(crate) fn listen_changed(&mut self, now: Millis) {
        if !self.session.listens() || !self.session.is_ready() {
            return;
        }
        let soon = now.saturating_add(LISTEN_COALESCE_MS);
        let at = self
            .listen
            .last
            .map_or(soon, |l| soon.max(l.saturating_add(LISTEN_THROTTLE_MS)));
        self.timers.set_earlier(Timer::Listen, at);
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
        } else if self.listen.covered.remove(task_id) && self.listen.covered.is_empty() {
            self.listen_changed(now);
        }
    }

    fn followed(&self) -> impl Iterator<Item = &String> {
        self.tasks
            .iter()
            .filter(|(_, e)| !e.subs.is_empty() && !e.is_terminal())
            .map(|(k, _)| k)
    }

    pub(crate) fn send_listen(&mut self, now: Millis) {
        let Some(codec) = self
            .session
            .ready_codec()
            .filter(|_| self.session.listens())
        else {
            return;
        };
        if self.gated() {
            // Asked again when the hold is over.
            return;
        }
        if self.listen.req.is_some() && !self.listen.fresh && !self.listen.covered.is_empty() {
            return;
        }
        self.retire_listen();
        self.listen.retiring = self.listen.req.take();
        self.listen.covered.clear();
        self.listen.fresh = false;
        let mut ids: Vec<String> = self.followed().cloned().collect();
        if ids.is_empty() {
            return;
        }
        ids.sort_unstable();
        let Some(out) = codec.build_listen(&self.session.info(), &ids) else {
            return;
        };
        self.listen.covered = ids.into_iter().collect();
        self.listen.last = Some(now);
        self.listen.req = self.send(now, Purpose::Listen, out);
    }

    /// Closes the stream being replaced, if any.
    fn retire_listen(&mut self) {
        if let Some(old) = self
            .listen
            .retiring
            .take()
            .and_then(|n| self.take_pending(n))
        {
            self.out.push_back(Output::Abort { key: old.key });
        }
    }

    /// The server answered listen request `n` with an HTTP status: once it accepts the current
    /// one, the stream it replaces goes.
    pub(crate) fn on_listen_head(&mut self, n: ReqId, status: u16) {
        if status < 400 && self.listen.req == Some(n) {
            self.listen.refusals = 0;
            self.retire_listen();
        }
    }

    /// Listen request `n` ended (`failure`: refused). The stream being replaced just goes; when
    /// the current one ends (the one it replaces with it), it is opened again later if tasks are
    /// still followed, unless the server lacks the method or keeps refusing it.
    pub(crate) fn on_listen_end(&mut self, now: Millis, n: ReqId, failure: Option<Failure>) {
        if self.listen.retiring == Some(n) {
            self.listen.retiring = None;
            return;
        }
        // Refused by the server (not lost on the way: that says nothing about the method).
        if let Some(f) = failure.filter(|f| f.rpc().is_some() || f.http_status() >= Some(400)) {
            self.listen.refusals = self.listen.refusals.saturating_add(1);
            self.listen_refused(&f, self.listen.refusals);
        }
        self.retire_listen();
        self.listen.req = None;
        self.listen.covered.clear();
        self.listen.last = Some(now);
        self.listen_changed(now);
    }
}
