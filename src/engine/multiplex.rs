//! Learning the HTTP version of a page's link when the browser did not tell (the server is on
//! another origin that sends no `Timing-Allow-Origin`, so Resource Timing hides it). The link
//! starts as HTTP/1.1 with a probe's budget of held `tasks/result` requests: as many as the
//! browser's six connections per origin.
//!
//! The proof of multiplexing: a transmission handed to the browser while six others demonstrably
//! held connections (their heads had come: held results, the listening stream) gets its head,
//! and none of those six ended within [`REPORT_LAG_MS`] after it (so none had ended, unreported,
//! on the network). Over HTTP/1.1 that needs a seventh connection. The link becomes
//! [`Link::Http2`]: no connection model, the HTTP/2 budget, and every running task holds its
//! result. The proof of HTTP/1.1: a transmission waits in the connection model's line for
//! [`STALL_MS`] with no head nor end to move it (over HTTP/2 nothing waits). The link is HTTP/1.1
//! for good, and the held results of tasks not waiting for input close: their tasks are polled.
//! A head or an end the page reports late, or a slow server, never proves HTTP/2; at worst they
//! prove HTTP/1.1, today's assumption.

use super::api::{Link, Millis, SendKey};
use super::requests::Purpose;
use super::Engine;

/// Longest a page may take to report an end that already happened on the network (its main
/// thread busy): a witness still open this long after a head was open when the head came.
pub(crate) const REPORT_LAG_MS: Millis = 500;
/// A line that has not moved for this long is the browser's HTTP/1.1 queue.
pub(crate) const STALL_MS: Millis = 1_500;

#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Held results whose heads came and whose streams are open: each holds a connection.
    witnesses: Vec<SendKey>,
    /// Transmissions handed while six streams held connections, since a witness last ended.
    armed: Vec<SendKey>,
    /// When the first armed transmission's head has stood long enough.
    proof: Option<Millis>,
    /// The last time the connection model's line moved (or started).
    moved_at: Millis,
}

impl Probe {
    /// `key`'s head came (`held`: a held result's): an armed transmission's proof starts to
    /// stand.
    fn headed(&mut self, now: Millis, key: SendKey, held: bool) {
        self.moved_at = now;
        if held {
            self.witnesses.push(key);
        }
        if self.proof.is_none() && self.armed.contains(&key) {
            self.proof = Some(now.saturating_add(REPORT_LAG_MS));
        }
    }

    /// `key`'s stream is over: if it was a witness, what was armed or standing proves nothing.
    pub(crate) fn ended(&mut self, now: Millis, key: SendKey) {
        self.moved_at = now;
        self.armed.retain(|k| *k != key);
        if let Some(i) = self.witnesses.iter().position(|k| *k == key) {
            self.witnesses.swap_remove(i);
            self.unwitnessed();
        }
    }

    /// A witness ended (or the listening stream closed).
    pub(crate) fn unwitnessed(&mut self) {
        self.armed.clear();
        self.proof = None;
    }
}

impl Engine {
    /// The budget of held results on this link: while it is only assumed HTTP/1.1, the probe's.
    pub(crate) fn link_budget(&self) -> usize {
        match self.cfg.link.connections() {
            Some(connections) if self.cfg.link_unseen => connections,
            _ => self.cfg.link.result_budget(),
        }
    }

    /// A transmission goes to the browser: armed when six streams demonstrably hold connections
    /// (held results whose heads came, the listening stream once its head came).
    pub(crate) fn probe_handed(&mut self, now: Millis, key: SendKey) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        if !self.pool.has_line() {
            self.probe.moved_at = now;
        }
        let held = self.probe.witnesses.len() + usize::from(self.standalone.is_flowing());
        if held >= connections {
            self.probe.armed.push(key);
        }
    }

    /// `key`'s head came.
    pub(crate) fn probe_headed(&mut self, now: Millis, key: SendKey) {
        if !self.cfg.link_unseen {
            return;
        }
        let n = self.reqs.id_of(key);
        let held = matches!(
            n.and_then(|n| self.reqs.purpose(n)),
            Some(Purpose::Result(_))
        );
        self.probe.headed(now, key, held);
    }

    /// When the probe next decides something.
    pub(crate) fn probe_due(&self) -> Option<Millis> {
        if !self.cfg.link_unseen {
            return None;
        }
        let proof = self.probe.proof;
        let stall = (self.pool.has_line()).then(|| self.probe.moved_at.saturating_add(STALL_MS));
        match (proof, stall) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A proof that stood: the link multiplexes, or it is HTTP/1.1.
    pub(crate) fn probe_tick(&mut self, now: Millis) {
        if !self.cfg.link_unseen {
            return;
        }
        if self.probe.proof.is_some_and(|at| at <= now) {
            self.link_multiplexes(now);
        } else if self.pool.has_line() && self.probe.moved_at.saturating_add(STALL_MS) <= now {
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

    /// HTTP/1.1 for good: held results beyond what its budget holds close (only tasks waiting
    /// for input keep theirs), and their tasks are polled.
    fn link_is_http1(&mut self, now: Millis) {
        self.link_seen();
        if self.holds_running() {
            return;
        }
        for task_id in self.tasks.followed() {
            if self.may_hold(&task_id) {
                continue;
            }
            let held = (self.tasks.get(&task_id)).is_some_and(|e| e.result.req().is_some());
            if held {
                self.close_held_result(&task_id);
                self.drop_result(&task_id);
                self.poll_soon(now, &task_id);
            }
        }
    }

    fn link_seen(&mut self) {
        self.cfg.link_unseen = false;
        self.probe = Probe::default();
    }
}
