//! The browser's HTTP/1.1 connection pool as the engine sees it: a few connections per origin,
//! each open transmission holds one (the legacy GET listening stream one while it is open), an aborted
//! response whose head had come keeps its connection while the browser drains it, and the
//! transmissions beyond them wait in the browser's queue, first come first served.
//!
//! A request's timeout counts from when it gets a connection, never while it waits in that queue:
//! a request given up in the queue never reached the server, but one
//! given up just as it got through may have been answered, and some answers are not asked twice
//! (a `tasks/result` that consumes its task). Where the model is wrong, it errs towards a
//! connection still being taken: a timeout then starts later, never earlier; a head arriving for
//! a transmission the model still queues proves it got through.

use super::backlog::{Backlog, Kept};
use crate::collections::fifo::Fifo;
use crate::collections::idmap::IdSet;
use crate::engine::api::{Millis, Output, SendKey, Transmit};
use crate::engine::ids::{ReqId, Slot};
use crate::engine::requests::Purpose;
use crate::engine::Engine;

/// How long a browser drains an aborted response before it frees the connection (Chromium: 5 s).
pub(crate) const DRAIN_MS: Millis = 5_000;

/// Most transmissions the browser holds at once on a link with few connections. Well above its 6
/// connections, so a wrong model never throttles: as many as an HTTP/2 connection's usual 100
/// concurrent streams, and a full queue behind the 6 while the engine hands out the next.
pub(crate) const HANDED_CAP: usize = 100;

/// Every lookup is by key in a map or set: the line can hold every task's poll at once.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    /// Connections per origin; `None`: no limit worth modelling (the link multiplexes).
    cap: Option<usize>,
    /// Transmissions holding a connection.
    wired: IdSet<SendKey>,
    /// Those of them whose head came (a set like the others: one map type's code in the binary).
    headed: IdSet<SendKey>,
    /// Aborted responses the browser still drains: (when the connection frees, which). At most
    /// one per connection: a `Vec`.
    draining: Vec<(Millis, SendKey)>,
    /// The order transmissions asked for a connection in; entries no longer in `waiting` are
    /// skipped (and swept out once they are the majority).
    line: Fifo<SendKey>,
    /// Transmissions waiting for a connection.
    waiting: IdSet<SendKey>,
    /// The GET listening stream is open: it holds a connection.
    listening: bool,
    /// Transmissions kept in the engine while the browser holds [`HANDED_CAP`].
    pub(crate) backlog: Backlog,
}

impl Pool {
    pub(crate) fn new(cap: Option<usize>) -> Self {
        Self {
            cap,
            ..Self::default()
        }
    }

    fn taken(&self) -> usize {
        self.wired.len() + self.draining.len() + usize::from(self.listening)
    }

    fn has_room(&self) -> bool {
        self.cap.is_none_or(|cap| self.taken() < cap)
    }

    /// Transmissions in the browser: on a connection or in its queue.
    fn handed(&self) -> usize {
        self.wired.len() + self.waiting.len()
    }

    /// Whether a transmission now waits in the engine: the browser holds [`HANDED_CAP`] or
    /// others wait already.
    pub(crate) fn keeps(&self) -> bool {
        self.cap.is_some() && (!self.backlog.is_empty() || self.handed() >= HANDED_CAP)
    }

    /// The next kept transmission, once the browser has room for it.
    pub(crate) fn release(&mut self) -> Option<Kept> {
        if self.handed() < HANDED_CAP {
            self.backlog.pop()
        } else {
            None
        }
    }

    /// A transmission was handed to the browser; `false`: it waits for a connection.
    pub(crate) fn transmitted(&mut self, key: SendKey) -> bool {
        if self.cap.is_none() {
            return true;
        }
        if self.has_room() {
            self.wired.insert(key);
            return true;
        }
        self.line.push_back(key);
        self.waiting.insert(key);
        false
    }

    /// The GET listening stream was asked for.
    pub(crate) fn listen(&mut self) {
        self.listening = self.cap.is_some();
    }

    /// The GET listening stream closed: its connection goes to the next in line (returned).
    pub(super) fn unlisten(&mut self) -> Vec<SendKey> {
        self.listening = false;
        self.admit()
    }

    /// A transmission's head came: it holds a connection (`true`: the model still queued it;
    /// a drain it waited behind ended early).
    pub(crate) fn headed(&mut self, key: SendKey) -> bool {
        if self.wired.contains(&key) {
            self.headed.insert(key);
            return false;
        }
        if !self.leave_line(key) {
            return false;
        }
        if !self.draining.is_empty() {
            self.draining.remove(0);
        }
        self.wired.insert(key);
        self.headed.insert(key);
        true
    }

    /// A transmission's stream is over (ended, failed): its connection goes to the next in line.
    /// Returns the transmissions that got one.
    pub(crate) fn ended(&mut self, key: SendKey) -> Vec<SendKey> {
        self.headed.remove(&key);
        if !self.wired.remove(&key) {
            if let Some(i) = self.draining.iter().position(|(_, k)| *k == key) {
                self.draining.remove(i);
            } else {
                self.leave_line(key);
            }
        }
        self.admit()
    }

    /// The engine closed a transmission: one whose head came drains until `now` + [`DRAIN_MS`];
    /// others free their connection (or their place in line) at once.
    pub(crate) fn aborted(&mut self, now: Millis, key: SendKey) -> Vec<SendKey> {
        if self.headed.remove(&key) {
            self.wired.remove(&key);
            self.draining.push((now.saturating_add(DRAIN_MS), key));
            return Vec::new();
        }
        self.ended(key)
    }

    /// Drains over by `now` free their connections: the transmissions that got one.
    pub(crate) fn expire(&mut self, now: Millis) -> Vec<SendKey> {
        let before = self.draining.len();
        self.draining.retain(|(at, _)| *at > now);
        if before == self.draining.len() {
            return Vec::new();
        }
        self.admit()
    }

    /// When the next drain ends, while a transmission waits for it.
    pub(crate) fn next_expiry(&self) -> Option<Millis> {
        if self.waiting.is_empty() {
            return None;
        }
        self.draining.iter().map(|(at, _)| *at).min()
    }

    /// Takes `key` out of the line (`false`: it was not in it).
    fn leave_line(&mut self, key: SendKey) -> bool {
        if !self.waiting.remove(&key) {
            return false;
        }
        if self.line.len() > 2 * self.waiting.len() + 64 {
            let waiting = &self.waiting;
            self.line.retain(|k| waiting.contains(k));
        }
        true
    }

    /// The link multiplexes: no connection limit from now on; the transmissions waiting in the
    /// model's line are on their way (returned).
    pub(super) fn unlimit(&mut self) -> Vec<SendKey> {
        self.cap = None;
        self.listening = false;
        self.draining.clear();
        self.line = Fifo::default();
        let admitted: Vec<SendKey> = self.waiting.iter().copied().collect();
        for key in &admitted {
            self.wired.insert(*key);
        }
        self.waiting = IdSet::default();
        admitted
    }

    /// Moves waiting transmissions onto free connections.
    fn admit(&mut self) -> Vec<SendKey> {
        let mut admitted = Vec::new();
        while self.has_room() && !self.waiting.is_empty() {
            let Some(key) = self.line.pop_front() else {
                break;
            };
            if self.waiting.remove(&key) {
                self.wired.insert(key);
                admitted.push(key);
            }
        }
        admitted
    }
}

impl Engine {
    /// The next output for the driver: a kept transmission once the browser has room, else the
    /// next queued output that need not wait. A kept transmission's timeout waits with it, and its
    /// abort drops it. (A stream's resumption `GET` is rare and never kept.)
    pub(crate) fn next_out(&mut self, now: Millis) -> Option<Output> {
        while let Some(kept) = self.pool.release() {
            let t = match kept {
                Kept::Transmit(t) => Some(t),
                Kept::Poll(slot) => self.due_poll(now, slot),
            };
            if let Some(out) = t.and_then(|t| self.hand_out(now, t)) {
                return Some(out);
            }
        }
        while let Some(out) = self.out.pop_front() {
            match out {
                Output::Abort { key } if self.pool.backlog.cancel(key) => {}
                Output::Transmit(t) if self.pool.keeps() => {
                    let request = self.reqs.id_of(t.key);
                    if let Some(n) = request {
                        self.reqs.wait_for_connection(n);
                    }
                    let poll = request
                        .and_then(|n| self.reqs.get(n))
                        .is_some_and(|p| matches!(p.purpose, Purpose::Get(_)));
                    self.pool.backlog.push(t, poll);
                }
                Output::Transmit(t) => {
                    if let Some(out) = self.hand_out(now, t) {
                        return Some(out);
                    }
                }
                out => {
                    self.pool_sees(now, &out);
                    return Some(out);
                }
            }
        }
        None
    }

    /// Whether a status poll falling due now waits in the engine: the browser holds
    /// [`HANDED_CAP`] with what is queued for it, or others wait already.
    pub(super) fn keeps_poll(&self) -> bool {
        self.pool.keeps()
            || (self.pool.cap.is_some() && self.pool.handed() + self.out.len() >= HANDED_CAP)
    }

    /// A kept due poll's turn: it becomes a request now (or waits for the session, when it is
    /// being re-established). `None` when the task is gone or the request waits.
    fn due_poll(&mut self, now: Millis, slot: Slot) -> Option<Transmit> {
        let task_id = self.tasks.id_at(slot)?.to_owned();
        if self.session.ready_codec().is_none() {
            self.session.wait(Purpose::Get(task_id));
            return None;
        }
        Some(self.open_get(now, task_id))
    }

    /// A transmission for the driver, its status request encoded now (see
    /// [`Engine::encode_poll`]); `None` when there is nothing to send.
    fn hand_out(&mut self, now: Millis, t: Transmit) -> Option<Output> {
        let out = Output::Transmit(self.encode_poll(now, t)?);
        self.pool_sees(now, &out);
        Some(out)
    }

    /// An output handed to the driver: a transmission takes a connection or waits for one (its
    /// timeout with it), an abort frees or drains one, the listening stream keeps one.
    pub(super) fn pool_sees(&mut self, now: Millis, out: &Output) {
        match out {
            Output::Transmit(Transmit { key, .. }) | Output::Resume { key, .. } => {
                self.probe_handed(now, *key);
                let waits = !self.pool.transmitted(*key);
                if let Some(n) = self.reqs.id_of(*key) {
                    if waits {
                        self.reqs.wait_for_connection(n);
                    } else {
                        // One kept in the engine got a connection at once: its timeout starts.
                        self.reqs.connected(n, now, self.cfg.request_timeout_ms);
                        self.poll_reached(now, n);
                    }
                }
            }
            Output::Abort { key } => {
                self.probe.ended(*key);
                let admitted = self.pool.aborted(now, *key);
                self.admitted(now, admitted);
            }
            Output::Listen { .. } => self.pool.listen(),
            _ => {}
        }
    }

    /// A transmission's head came: it has a connection.
    pub(super) fn pool_headed(&mut self, now: Millis, key: SendKey) {
        self.probe.headed(now, key);
        if self.pool.headed(key) {
            self.admitted(now, vec![key]);
        }
    }

    /// A transmission's stream is over: its connection goes to the next in line.
    pub(super) fn pool_ended(&mut self, now: Millis, key: SendKey) {
        self.probe.ended(key);
        let admitted = self.pool.ended(key);
        self.admitted(now, admitted);
    }

    /// The listening stream closed: its connection goes to the next in line.
    pub(super) fn pool_unlisten(&mut self, now: Millis) {
        self.probe.unwitnessed();
        let admitted = self.pool.unlisten();
        self.admitted(now, admitted);
    }

    /// Drains that ended by `now` free their connections.
    pub(crate) fn pool_expire(&mut self, now: Millis) {
        let admitted = self.pool.expire(now);
        self.admitted(now, admitted);
    }

    /// These transmissions got a connection: their requests' timeouts start now.
    /// Request `n` got its connection now: a status request reaches the server only now (see
    /// `PollState::earliest_next`).
    fn poll_reached(&mut self, now: Millis, n: ReqId) {
        if let Some(Purpose::Get(t)) = self.reqs.purpose(n) {
            if let Some(e) = self.tasks.get_mut(t) {
                e.poll.reached = now.into();
            }
        }
    }

    pub(super) fn admitted(&mut self, now: Millis, keys: Vec<SendKey>) {
        for key in keys {
            if let Some(n) = self.reqs.id_of(key) {
                self.reqs.connected(n, now, self.cfg.request_timeout_ms);
                self.poll_reached(now, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(range: std::ops::Range<u64>) -> Vec<SendKey> {
        range.map(SendKey).collect()
    }

    #[test]
    fn beyond_the_cap_transmissions_wait_in_order() {
        let mut p = Pool::new(Some(2));
        let got: Vec<bool> = keys(1..5).into_iter().map(|k| p.transmitted(k)).collect();
        assert_eq!(got, [true, true, false, false]);
        assert_eq!(p.ended(SendKey(1)), [SendKey(3)]);
        assert_eq!(p.ended(SendKey(4)), Vec::<SendKey>::new(), "left the line");
        assert_eq!(p.ended(SendKey(2)), Vec::<SendKey>::new());
    }

    #[test]
    fn an_aborted_response_drains_before_its_connection_frees() {
        let mut p = Pool::new(Some(1));
        assert!(p.transmitted(SendKey(1)));
        assert!(!p.transmitted(SendKey(2)));
        assert!(!p.headed(SendKey(1)));
        assert!(p.aborted(100, SendKey(1)).is_empty());
        assert_eq!(p.next_expiry(), Some(100 + DRAIN_MS));
        assert!(p.expire(100 + DRAIN_MS - 1).is_empty());
        assert_eq!(p.expire(100 + DRAIN_MS), [SendKey(2)]);
    }

    #[test]
    fn an_abort_before_the_head_frees_at_once() {
        let mut p = Pool::new(Some(1));
        assert!(p.transmitted(SendKey(1)));
        assert!(!p.transmitted(SendKey(2)));
        assert_eq!(p.aborted(5, SendKey(1)), [SendKey(2)]);
    }

    #[test]
    fn a_head_proves_a_queued_transmission_got_through() {
        let mut p = Pool::new(Some(1));
        assert!(p.transmitted(SendKey(1)));
        p.headed(SendKey(1));
        p.aborted(0, SendKey(1));
        assert!(!p.transmitted(SendKey(2)));
        assert!(p.headed(SendKey(2)), "the drain ended early");
        assert_eq!(p.next_expiry(), None);
        assert!(!p.transmitted(SendKey(3)));
    }

    #[test]
    fn a_closed_listening_stream_gives_its_connection_to_the_next_in_line() {
        let mut p = Pool::new(Some(2));
        p.listen();
        assert!(p.transmitted(SendKey(1)));
        assert!(!p.transmitted(SendKey(2)), "the stream holds the other one");
        assert_eq!(p.unlisten(), [SendKey(2)]);
        assert!(!p.transmitted(SendKey(3)));
    }

    #[test]
    fn the_listening_stream_holds_one_and_no_cap_holds_none() {
        let mut p = Pool::new(Some(2));
        p.listen();
        assert!(p.transmitted(SendKey(1)));
        assert!(!p.transmitted(SendKey(2)));
        let mut open = Pool::new(None);
        open.listen();
        assert!(keys(1..100).into_iter().all(|k| open.transmitted(k)));
    }
}
