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
use super::Engine;

/// Longest a page may take to report an end that already happened on the network (its main
/// thread busy): a witness still open this long after a head was open when the head came.
pub(crate) const REPORT_LAG_MS: Millis = 500;
/// A line that has not moved for this long is the browser's HTTP/1.1 queue.
pub(crate) const STALL_MS: Millis = 1_500;

/// Open streams that witnessed one transmission's flight: keys whose heads had come, and
/// whether the listening stream (with its head) was one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Witnesses {
    keys: Vec<SendKey>,
    listen: bool,
}

impl Witnesses {
    fn saw(&self, key: SendKey) -> bool {
        self.keys.contains(&key)
    }
}

#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Transmissions handed while six streams held connections, with those streams.
    armed: Vec<(SendKey, Witnesses)>,
    /// Armed transmissions whose head came: when their witnesses have stood long enough.
    proofs: Vec<(Millis, Witnesses)>,
    /// The last time the connection model's line moved (or started).
    moved_at: Millis,
}

impl Probe {
    /// `key`'s head came: an armed transmission's proof starts to stand.
    pub(crate) fn headed(&mut self, now: Millis, key: SendKey) {
        self.moved_at = now;
        if let Some(i) = self.armed.iter().position(|(k, _)| *k == key) {
            let (_, w) = self.armed.swap_remove(i);
            self.proofs.push((now.saturating_add(REPORT_LAG_MS), w));
        }
    }

    /// `key`'s stream is over: what it witnessed proves nothing.
    pub(crate) fn forget(&mut self, now: Millis, key: SendKey) {
        self.moved_at = now;
        self.armed.retain(|(k, w)| *k != key && !w.saw(key));
        self.proofs.retain(|(_, w)| !w.saw(key));
    }

    /// The listening stream closed.
    pub(crate) fn unlisten(&mut self) {
        self.armed.retain(|(_, w)| !w.listen);
        self.proofs.retain(|(_, w)| !w.listen);
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

    /// A transmission goes to the browser: armed when six streams demonstrably hold connections.
    pub(crate) fn probe_handed(&mut self, now: Millis, key: SendKey) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        if !self.pool.has_line() {
            self.probe.moved_at = now;
        }
        let listen = self.standalone.is_flowing();
        let keys: Vec<SendKey> = (self.pool.headed_keys().copied())
            .take(connections.saturating_sub(usize::from(listen)))
            .collect();
        if keys.len() + usize::from(listen) >= connections {
            self.probe.armed.push((key, Witnesses { keys, listen }));
        }
    }

    /// When the probe next decides something.
    pub(crate) fn probe_due(&self) -> Option<Millis> {
        if !self.cfg.link_unseen {
            return None;
        }
        let proof = self.probe.proofs.iter().map(|(at, _)| *at).min();
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
        if self.probe.proofs.iter().any(|(at, _)| *at <= now) {
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
