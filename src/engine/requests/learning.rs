//! The engine's side of learning a link's HTTP version (the probe itself: `multiplex.rs`): when
//! the probe starts, what it is told of the transmissions, and what its verdict changes. The
//! probe closes held results on an HTTP/1.1 verdict, so it only starts on a server seen to keep a
//! task's result after answering it: once a result was fetched, it is asked again ([`Purpose::Kept`]);
//! answered, closing a held result loses nothing (its task's poll fetches it again); refused, the
//! server consumes results, and its link stays assumed HTTP/1.1, its tasks polled.

use super::multiplex::{Probe, KEPT_ON_HTTP1};
use crate::engine::api::{Link, Millis, SendKey};
use crate::engine::requests::{Answer, Purpose};
use crate::engine::Engine;

impl Engine {
    /// The budget of held results on this link: while it is only assumed HTTP/1.1, the probe's
    /// once it started (the connections the listening stream leaves: none waits in the
    /// browser's queue, to hold a connection later), the tight HTTP/1.1 budget before.
    pub(crate) fn link_budget(&self) -> usize {
        match self.cfg.link.connections() {
            Some(connections) if self.cfg.link_unseen && self.probe.started() => {
                connections - usize::from(self.pool.listens())
            }
            _ => self.cfg.link.result_budget(),
        }
    }

    /// A task was tracked (or a result fetched, or the server seen to keep results): with more
    /// tasks than connections on a link only assumed HTTP/1.1 and results to hold, the probe
    /// starts (once) if the server keeps results, and the running tasks followed hold theirs, the
    /// oldest first (likely the first to end, and to give back a connection the probe holds).
    /// Until then, a result fetched is asked again, once, to see whether it was kept.
    pub(crate) fn probe_start(&mut self, now: Millis) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        if self.probe.started() || self.tasks.len() <= connections {
            return;
        }
        // Until the server showed it does not push (see `pushed.rs`), nothing is held: the
        // connections held results took would be those a pushed end's `tasks/result` needs,
        // and pushes standing in for polls leave no status request to learn from.
        if self.defers_hold() || self.relies_on_pushes() {
            return;
        }
        self.probe.start(now);
        if !self.holds_running() {
            // Nothing to hold (not a legacy session, or its server refused): nothing to learn from.
            self.probe.unstart();
            return;
        }
        if !self.probe.keeps() {
            self.probe.unstart();
            if let Some(task_id) = self.probe.ask() {
                self.dispatch(now, Purpose::Kept(task_id));
            }
            return;
        }
        // Each inserted after those no younger (once per engine: no sort in the binary).
        let mut oldest: Vec<(Option<Millis>, String)> = Vec::new();
        for task_id in self.tasks.followed() {
            let since = self.tasks.get(&task_id).and_then(|e| e.poll.since.get());
            let at = (oldest.iter().position(|(s, _)| *s > since)).unwrap_or(oldest.len());
            oldest.insert(at, (since, task_id));
        }
        for (_, task_id) in oldest {
            self.hold_again(now, &task_id);
        }
    }

    /// A transmission goes to the browser: a held result becomes a witness, a status request
    /// made behind six is armed.
    pub(super) fn probe_handed(&mut self, now: Millis, key: SendKey) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        let n = self.reqs.id_of(key);
        match n.and_then(|n| self.reqs.purpose(n)) {
            Some(Purpose::Result(_)) => self.probe.witness(key),
            Some(Purpose::Get(_)) => {
                self.probe.made(now, key, self.pool.listens(), connections);
            }
            _ => {}
        }
    }

    /// When the probe next decides something.
    pub(crate) fn probe_due(&self) -> Option<Millis> {
        if !self.cfg.link_unseen {
            return None;
        }
        self.probe.due()
    }

    /// A proof that stood: the link multiplexes, or it is HTTP/1.1.
    pub(crate) fn probe_tick(&mut self, now: Millis) {
        if !self.cfg.link_unseen {
            return;
        }
        match self.probe.verdict(now) {
            Some(Link::Http2) => self.link_multiplexes(now),
            Some(_) => self.link_is_http1(now),
            None => {}
        }
    }

    fn link_multiplexes(&mut self, now: Millis) {
        self.cfg.link = Link::Http2;
        self.link_seen();
        let admitted = self.pool.unlimit();
        self.admitted(now, admitted);
        // Results queued for a slot go out, then the running tasks not queued hold theirs.
        self.fill_result_slots(now);
        for task_id in self.tasks.followed() {
            self.hold_again(now, &task_id);
        }
    }

    /// HTTP/1.1 for good: held results beyond [`KEPT_ON_HTTP1`] close (tasks waiting for input
    /// keep theirs; the server keeps results, so their tasks' polls fetch them again), and their
    /// tasks are polled.
    fn link_is_http1(&mut self, now: Millis) {
        self.link_seen();
        if self.holds_running() {
            return;
        }
        let mut kept = 0;
        for task_id in self.tasks.followed() {
            if self.may_hold(&task_id) {
                continue;
            }
            let held = (self.tasks.get(&task_id)).is_some_and(|e| e.result.req().is_some());
            if held && kept < KEPT_ON_HTTP1 {
                kept += 1;
            } else if held {
                self.close_held_result(&task_id);
                self.drop_result(&task_id);
                self.poll_soon(now, &task_id);
            }
        }
    }

    fn link_seen(&mut self) {
        self.cfg.link_unseen = false;
        self.probe = Probe::decided(self.cfg.link);
    }

    /// The link this engine found, once: for the driver to remember for the server's URL.
    pub fn take_learnt_link(&mut self) -> Option<Link> {
        self.probe.take_learnt()
    }

    /// The result of `task_id` was fetched: while the link is still to be learnt and whether the
    /// server keeps results is not known, it may be asked again (if the probe would start).
    pub(crate) fn result_fetched(&mut self, now: Millis, task_id: &str) {
        if self.cfg.link_unseen && self.probe.fetched(task_id) {
            self.probe_start(now);
        }
    }

    /// A fetched result asked again answered `res`: kept (the probe may start), or not (an
    /// error, or no answer: the link stays assumed HTTP/1.1).
    pub(crate) fn on_kept(&mut self, now: Millis, res: Answer) {
        self.probe.kept(res.is_ok());
        self.probe_start(now);
    }
}
