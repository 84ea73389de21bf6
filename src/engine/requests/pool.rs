//! The browser's HTTP/1.1 connection pool as the engine sees it: a few connections per origin,
//! each open transmission holds one (the legacy GET listening stream one while it is open), an aborted
//! response whose head had come keeps its connection while the browser drains it, and the
//! transmissions beyond them wait in the browser's queue, first come first served. (A browser
//! that serves status polls, sent at its low priority, after the others gives a `tasks/result`
//! its connection sooner than modelled: its timeout then starts later, never earlier.)
//!
//! A request's timeout counts from when it gets a connection, never while it waits in that queue:
//! a request given up in the queue never reached the server, but one
//! given up just as it got through may have been answered, and some answers are not asked twice
//! (a `tasks/result` that consumes its task). Where the model is wrong, it errs towards a
//! connection still being taken: a timeout then starts later, never earlier; a head arriving for
//! a transmission the model still queues proves it got through.
//!
//! Once a session's server pushes the ends (see `registry/pushed.rs`), a status poll does not
//! join that queue: it waits in the engine until a connection is free, so the `tasks/result` a
//! pushed end asks for goes first.

use super::backlog::{Backlog, Kept};
use super::pending::Requests;
use crate::collections::fifo::Fifo;
use crate::collections::idmap::IdSet;
use crate::engine::api::{Millis, SendKey, Transmit};
use crate::engine::ids::ReqId;

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
    pub(super) cap: Option<usize>,
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
    pub(super) fn handed(&self) -> usize {
        self.wired.len() + self.waiting.len()
    }

    /// Whether a transmission now waits in the engine: the browser holds [`HANDED_CAP`] or
    /// others wait already.
    pub(super) fn keeps(&self) -> bool {
        self.cap.is_some() && (!self.backlog.is_empty() || self.handed() >= HANDED_CAP)
    }

    /// Whether a status poll falling due now waits in the engine: the browser holds
    /// [`HANDED_CAP`] with the `queued` outputs on their way to it, or others wait already; or,
    /// when polls `yield` (the server's pushes bring the ends), every connection is taken: a
    /// poll in the browser's queue would go before the `tasks/result` a pushed end asks next.
    pub(super) fn keeps_poll(&self, queued: usize, yields: bool) -> bool {
        self.keeps()
            || (self.cap.is_some() && self.handed() + queued >= HANDED_CAP)
            || (yields && !self.has_room())
    }

    /// Whether transmission `t` waits in the engine: the browser holds enough (see
    /// [`keeps`](Self::keeps)), or it is a status poll that `yields` and every connection is taken.
    pub(super) fn keeps_out(&self, t: &Transmit, yields: bool) -> bool {
        self.keeps() || (yields && !self.has_room() && t.background)
    }

    /// Keeps transmission `t` in the engine until the browser has room; its request's timeout
    /// waits with it.
    pub(super) fn keep(&mut self, t: Transmit, reqs: &mut Requests) {
        if let Some(n) = reqs.id_of(t.key) {
            reqs.wait_for_connection(n);
        }
        let poll = t.background;
        self.backlog.push(t, poll);
    }

    /// Transmission `key` goes to the browser: it takes a connection, or waits for one (its
    /// request's timeout with it). The request that got one at once: its timeout starts now,
    /// `after` long.
    pub(super) fn hand(
        &mut self,
        now: Millis,
        key: SendKey,
        reqs: &mut Requests,
        after: Millis,
    ) -> Option<ReqId> {
        let waits = !self.transmitted(key);
        let n = reqs.id_of(key)?;
        if waits {
            reqs.wait_for_connection(n);
            return None;
        }
        reqs.connected(n, now, after);
        Some(n)
    }

    /// The next kept transmission, once the browser has room for it; while polls `yield`, a
    /// status poll only once a connection is free.
    pub(super) fn release(&mut self, yields: bool) -> Option<Kept> {
        if self.handed() >= HANDED_CAP {
            return None;
        }
        match yields && !self.has_room() {
            true => self.backlog.pop_urgent(),
            false => self.backlog.pop(),
        }
    }

    /// A transmission was handed to the browser; `false`: it waits for a connection.
    fn transmitted(&mut self, key: SendKey) -> bool {
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
    pub(super) fn listen(&mut self) {
        self.listening = self.cap.is_some();
    }

    /// Whether the GET listening stream was asked for and holds a connection (or waits ahead of
    /// what comes after it).
    pub(super) fn listens(&self) -> bool {
        self.listening
    }

    /// The GET listening stream closed: its connection goes to the next in line (returned).
    pub(super) fn unlisten(&mut self) -> Vec<SendKey> {
        self.listening = false;
        self.admit()
    }

    /// A transmission's head came: it holds a connection (`true`: the model still queued it;
    /// a drain it waited behind ended early).
    pub(super) fn headed(&mut self, key: SendKey) -> bool {
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
    pub(super) fn ended(&mut self, key: SendKey) -> Vec<SendKey> {
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
    pub(super) fn aborted(&mut self, now: Millis, key: SendKey) -> Vec<SendKey> {
        if self.headed.remove(&key) {
            self.wired.remove(&key);
            self.draining.push((now.saturating_add(DRAIN_MS), key));
            return Vec::new();
        }
        self.ended(key)
    }

    /// Drains over by `now` free their connections: the transmissions that got one.
    pub(super) fn expire(&mut self, now: Millis) -> Vec<SendKey> {
        let before = self.draining.len();
        self.draining.retain(|(at, _)| *at > now);
        if before == self.draining.len() {
            return Vec::new();
        }
        self.admit()
    }

    /// When the next drain ends, while a transmission waits for it (in the browser's queue, or
    /// kept in the engine).
    pub(crate) fn next_expiry(&self) -> Option<Millis> {
        if self.waiting.is_empty() && self.backlog.is_empty() {
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
