//! Learning the HTTP version of a page's link when the browser did not tell (the server is on
//! another origin that sends no `Timing-Allow-Origin`, so Resource Timing hides it). The link
//! starts as HTTP/1.1 with its tight budget: tasks are polled, no running task holds its result.
//! Once more tasks are tracked than the browser has connections per origin (so a seventh request
//! will come), one probe starts: running tasks hold their `tasks/result`, as many as the six
//! connections. It is bounded: it decides within [`PROBE_MS`] or ends as HTTP/1.1.
//!
//! A browser gives an origin's HTTP/1.1 connections to requests in the order they were made. So
//! a status request made after six streams that still hold theirs (held results, made before it;
//! the listening stream once its head came) can only be answered over a seventh: if its head
//! comes and none of the six ends within [`REPORT_LAG_MS`] after (an end the page reports late
//! happened before the head), the link multiplexes. It becomes [`Link::Http2`]: no connection
//! model, the HTTP/2 budget, every running task holds its result. If instead such a request has
//! no head for [`STALL_MS`] while the six stay open (over HTTP/2 a status request is answered in
//! milliseconds), it waits in the browser's queue: the link is HTTP/1.1 for good, and the held
//! results beyond [`KEPT_ON_HTTP1`] close (tasks waiting for input keep theirs), their tasks
//! polled: a connection frees at once, and the results kept are not asked twice. A late report
//! or a slow server never proves HTTP/2; at worst they prove HTTP/1.1, the assumption the client
//! had.

use crate::engine::api::{Link, Millis, SendKey};
use crate::engine::requests::Purpose;
use crate::engine::Engine;

/// Longest a page may take to report an end that already happened on the network (its main
/// thread busy): a witness still open this long after a head was open when the head came.
pub(super) const REPORT_LAG_MS: Millis = 500;
/// A status request made behind six open streams and unanswered this long waits in the browser
/// (a loaded page or server answers an HTTP/2 request in hundreds of ms; concluding HTTP/1.1
/// from one is safe, but loses the held results for the server's life in the page).
pub(crate) const STALL_MS: Millis = 500;
/// A probe undecided this long after it started ends as HTTP/1.1 (the assumption).
pub(crate) const PROBE_MS: Millis = 10_000;
/// Held results of running tasks a link found HTTP/1.1 keeps: below its budget of 3, a slot stays
/// free for a task waiting for input.
pub(crate) const KEPT_ON_HTTP1: usize = 2;

#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Held results made and not yet over: each holds a connection, or waits ahead of any
    /// request made after it.
    witnesses: Vec<SendKey>,
    /// Status requests made behind six witnesses (since one last ended), and when.
    armed: Vec<(SendKey, Millis)>,
    /// When the first armed request's head has stood long enough.
    proof: Option<Millis>,
    /// When the probe started: running tasks hold their results from then on.
    started: Option<Millis>,
    /// What the link was found to be, until the driver takes it.
    learnt: Option<Link>,
}

impl Probe {
    /// `key`'s head came: an armed request's proof starts to stand.
    pub(crate) fn headed(&mut self, now: Millis, key: SendKey) {
        if let Some(i) = self.armed.iter().position(|(k, _)| *k == key) {
            self.armed.swap_remove(i);
            self.proof.get_or_insert(now.saturating_add(REPORT_LAG_MS));
        }
    }

    /// `key`'s stream is over: if it was a witness, what was armed or standing proves nothing.
    pub(crate) fn ended(&mut self, key: SendKey) {
        self.armed.retain(|(k, _)| *k != key);
        if let Some(i) = self.witnesses.iter().position(|k| *k == key) {
            self.witnesses.swap_remove(i);
            self.unwitnessed();
        }
    }

    /// A witness ended (or the listening stream closed).
    pub(super) fn unwitnessed(&mut self) {
        self.armed.clear();
        self.proof = None;
    }
}

impl Engine {
    /// The budget of held results on this link: while it is only assumed HTTP/1.1, the probe's
    /// once it started, the tight HTTP/1.1 budget before.
    pub(crate) fn link_budget(&self) -> usize {
        match self.cfg.link.connections() {
            Some(connections) if self.cfg.link_unseen && self.probe.started.is_some() => {
                connections
            }
            _ => self.cfg.link.result_budget(),
        }
    }

    /// A task was tracked: with more tasks than connections on a link only assumed HTTP/1.1 and
    /// results to hold, the probe starts (once), and the running tasks followed hold theirs.
    pub(crate) fn probe_start(&mut self, now: Millis) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        if self.probe.started.is_some() || self.tasks.len() <= connections {
            return;
        }
        self.probe.started = Some(now);
        if !self.holds_running() {
            // Nothing to hold (not a legacy session, or its server refused): nothing to learn from.
            self.probe.started = None;
            return;
        }
        for task_id in self.tasks.followed() {
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
            Some(Purpose::Result(_)) => self.probe.witnesses.push(key),
            Some(Purpose::Get(_)) => {
                let open = self.probe.witnesses.len() + usize::from(self.standalone.is_flowing());
                if open >= connections {
                    self.probe.armed.push((key, now));
                }
            }
            _ => {}
        }
    }

    /// When the probe next decides something.
    pub(crate) fn probe_due(&self) -> Option<Millis> {
        if !self.cfg.link_unseen {
            return None;
        }
        let stall = (self.probe.armed.iter())
            .map(|(_, at)| at.saturating_add(STALL_MS))
            .min();
        let bound = (self.probe.started).map(|at| at.saturating_add(PROBE_MS));
        [self.probe.proof, stall, bound].into_iter().flatten().min()
    }

    /// A proof that stood: the link multiplexes, or it is HTTP/1.1.
    pub(crate) fn probe_tick(&mut self, now: Millis) {
        if !self.cfg.link_unseen {
            return;
        }
        let stalled = (self.probe.armed.iter()).any(|(_, at)| at.saturating_add(STALL_MS) <= now);
        let expired = (self.probe.started).is_some_and(|at| at.saturating_add(PROBE_MS) <= now);
        if self.probe.proof.is_some_and(|at| at <= now) {
            self.link_multiplexes(now);
        } else if stalled || expired {
            self.link_is_http1(now);
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
    /// keep theirs), and their tasks are polled.
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
        self.probe = Probe {
            learnt: Some(self.cfg.link),
            ..Probe::default()
        };
    }

    /// The link this engine found, once: for the driver to remember for the server's origin.
    pub fn take_learnt_link(&mut self) -> Option<Link> {
        self.probe.learnt.take()
    }
}
