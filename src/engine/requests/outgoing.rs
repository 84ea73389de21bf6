//! What goes out: a request for the ready session (its body built once), the transmissions
//! handed to the driver as the browser's connections allow (`pool.rs`, `backlog.rs`),
//! the link's HTTP version learnt (`multiplex.rs`), the legacy GET stream (`standalone.rs`), and when a status request may go from its task's poll state (`cadence.rs`).

use super::multiplex::Probe;
use super::pool::HANDED_CAP;
use super::standalone::Want;
use super::PROBE_TIMEOUT_MS;
use crate::engine::api::{ClientError, ErrorKind, Link, Millis, Output, SendKey, Transmit};
use crate::engine::ids::{ReqId, Slot};
use crate::engine::requests::backlog::Kept;
use crate::engine::requests::encoded::Encoded;
use crate::engine::requests::Purpose;
use crate::engine::scheduler::cadence::{floor, poll_delay, steady, LEAP_MS};
use crate::engine::scheduler::{TaskTimer, Timer};
use crate::engine::{Engine, DRAFT};
use crate::protocol::dialect::{cursor_params, Codec, Outgoing};
use crate::protocol::jsonrpc::{Id, Message};

impl Engine {
    /// Sends `p` in the ready session's dialect `codec`.
    pub(crate) fn send_ready(&mut self, now: Millis, codec: &'static dyn Codec, p: Purpose) {
        let p = match p {
            Purpose::Get(t) => return self.send_get(now, t),
            Purpose::Result(t) if !self.result_slot(&t) => return,
            other => other,
        };
        let out = {
            let si = self.session.info();
            match &p {
                Purpose::Call(c) => return self.send_call(now, *c),
                Purpose::Answer(i) => return self.send_answer(now, *i),
                Purpose::Listen => return self.send_listen(now),
                Purpose::Probe | Purpose::Initialize => return,
                Purpose::Get(_) => None,
                Purpose::Result(t) => codec.build_result(&si, t),
                Purpose::List { cursor, .. } => codec.build_list(&si, cursor.as_deref()),
                Purpose::Tools { cursor } => {
                    let params = cursor_params(cursor.as_deref());
                    Some(codec.build_request(&si, "tools/list", params, None))
                }
                Purpose::Cancel { task_id, .. } => {
                    // Only the draft's cancel names the request that created the task.
                    let origin = (self.tasks.get(task_id))
                        .and_then(|e| e.origin.filter(|_| DRAFT))
                        .map(|n| Id::Number(n.wire()));
                    Some(codec.build_cancel(&si, task_id, origin.as_ref()))
                }
                Purpose::Delete { task_id, .. } => codec.build_delete(&si, task_id),
            }
        };
        match out {
            Some(o) => {
                self.send(now, p, o);
            }
            None => self.unsupported(now, p),
        }
    }

    /// A status poll. While others wait for the browser it waits as its task's slot (see
    /// `backlog.rs`); it is encoded only once handed to the driver ([`Engine::encode_poll`]).
    fn send_get(&mut self, now: Millis, t: String) {
        if self.poll_too_soon(now, &t) {
            return;
        }
        let Some(entry) = self.tasks.get_mut(&t) else {
            return;
        };
        entry.poll.last_sent = now.into();
        let slot = entry.slot;
        if self.keeps_poll() {
            return self.pool.backlog.push_due(slot);
        }
        let tx = self.open_get(now, t);
        self.out.push_back(Output::Transmit(tx));
    }

    /// Opens a status request for task `t`: its transmission, to be encoded when handed out.
    pub(super) fn open_get(&mut self, now: Millis, t: String) -> Transmit {
        let id = self.reqs.alloc_id();
        self.open(now, id, Purpose::Get(t), String::new(), Vec::new())
    }

    /// A transmission about to be handed to the driver, its status request encoded now when it
    /// was left unencoded. `None` when there is nothing to send: the request is over, or its
    /// session is gone (it is then sent again in the new one).
    pub(super) fn encode_poll(&mut self, now: Millis, mut t: Transmit) -> Option<Transmit> {
        if !t.body.is_empty() {
            return Some(t);
        }
        let n = self.reqs.id_of(t.key)?;
        let p = self.reqs.get(n)?;
        if p.epoch != self.session.epoch() {
            self.session_lost(now, n);
            return None;
        }
        let (Purpose::Get(task_id), Some(codec)) = (&p.purpose, self.session.codec_any()) else {
            return Some(t);
        };
        let enc = Encoded::new(codec.build_get(&self.session.info(), task_id));
        t.body = enc.body(Some(n));
        t.headers = enc.headers;
        Some(t)
    }

    /// Transmits a request (or, when the dialect built a notification, a one-way message).
    /// Returns the JSON-RPC id of a request.
    pub(crate) fn send(&mut self, now: Millis, p: Purpose, out: Outgoing) -> Option<ReqId> {
        let mut enc = Encoded::new(out);
        let headers = std::mem::take(&mut enc.headers);
        if !enc.expects_response {
            self.transmit_one_way(enc.body(None), headers);
            self.sent_one_way(now, p);
            return None;
        }
        let id = self.reqs.alloc_id();
        let body = enc.body(Some(id));
        let tx = self.open(now, id, p, body, headers);
        self.out.push_back(Output::Transmit(tx));
        Some(id)
    }

    /// Registers a request being transmitted (pending entry, timeout): its transmission.
    fn open(
        &mut self,
        now: Millis,
        id: ReqId,
        p: Purpose,
        body: String,
        headers: Vec<(String, String)>,
    ) -> Transmit {
        let key = self.reqs.key();
        // A finished task's result answers at once: it times out like any request.
        let times_out = match &p {
            Purpose::Result(t) => self.tasks.get(t).is_some_and(|e| e.is_terminal()),
            other => other.times_out(),
        };
        let timeout = match p {
            Purpose::Probe => PROBE_TIMEOUT_MS.min(self.cfg.request_timeout_ms),
            _ => self.cfg.request_timeout_ms,
        };
        let timeout_at = times_out.then(|| now.saturating_add(timeout));
        self.on_sent(&p, id, now);
        let (epoch, sessioned) = (self.session.epoch(), self.session.session_id().is_some());
        self.reqs.open(id, p, key, (epoch, sessioned), timeout_at);
        Transmit {
            key,
            body,
            headers,
            one_way: false,
        }
    }

    /// Transmits a ready-made one-way message (a response to the server).
    pub(crate) fn send_message(
        &mut self,
        message: &Message,
        headers: Vec<(String, String)>,
    ) -> SendKey {
        self.transmit_one_way(message.encode(), headers)
    }

    /// Transmits a notification the dialect built (no purpose, no answer).
    pub(crate) fn push_one_way(&mut self, out: Outgoing) -> SendKey {
        let enc = Encoded::new(out);
        self.transmit_one_way(enc.body(None), enc.headers)
    }

    /// Transmits a one-way message (a notification or a response): its key.
    fn transmit_one_way(&mut self, body: String, headers: Vec<(String, String)>) -> SendKey {
        let key = self.reqs.key();
        self.out.push_back(Output::Transmit(Transmit {
            key,
            body,
            headers,
            one_way: true,
        }));
        key
    }

    fn on_sent(&mut self, p: &Purpose, id: ReqId, now: Millis) {
        match p {
            Purpose::Call(c) => {
                if let Some(call) = self.calls.get_mut(c) {
                    call.req = Some(id);
                }
            }
            Purpose::Result(t) => {
                if let Some(e) = self.tasks.get_mut(t) {
                    e.result.sent(id, now);
                }
            }
            _ => {}
        }
    }

    fn sent_one_way(&mut self, now: Millis, p: Purpose) {
        match p {
            // The draft's cancel is a notification.
            Purpose::Cancel { op, task_id } if DRAFT => {
                self.reply(op, Ok(crate::json::Value::Null));
                self.poll_soon(now, &task_id);
            }
            Purpose::Call(c) => self.call_failed(
                c,
                ClientError::new(
                    ErrorKind::Protocol,
                    "the request was built as a notification",
                ),
            ),
            _ => {}
        }
    }

    /// The dialect cannot build this request.
    fn unsupported(&mut self, now: Millis, p: Purpose) {
        let error = ClientError::new(
            ErrorKind::Unsupported,
            "the server's dialect has no such request",
        );
        match p {
            Purpose::Result(t) => self.result_unavailable(now, &t),
            Purpose::Delete { op: Some(op), .. } => self.reply(op, Err(self.no_delete())),
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => self.reply(op, Err(error)),
            Purpose::Tools { .. } => self.tools_failed(now, error, true),
            _ => {}
        }
    }

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
    pub(super) fn admitted(&mut self, now: Millis, keys: Vec<SendKey>) {
        for key in keys {
            if let Some(n) = self.reqs.id_of(key) {
                self.reqs.connected(n, now, self.cfg.request_timeout_ms);
                self.poll_reached(now, n);
            }
        }
    }

    /// Request `n` got its connection now: a status request reaches the server only now (see
    /// `PollState::earliest_next`).
    fn poll_reached(&mut self, now: Millis, n: ReqId) {
        if let Some(Purpose::Get(t)) = self.reqs.purpose(n) {
            if let Some(e) = self.tasks.get_mut(t) {
                e.poll.reached_at(now);
            }
        }
    }

    /// The last word on a status request about to go out: sooner than the task's interval after
    /// the one before (a retry after a failed poll, a request sent again in a new session), it
    /// waits for its time on the task's poll timer instead. Whether it was put off.
    pub(super) fn poll_too_soon(&mut self, now: Millis, task_id: &str) -> bool {
        let Some(e) = self.tasks.get_mut(task_id) else {
            return false;
        };
        let steady = steady(self.cfg.cadence, self.visible);
        let at = (e.poll).earliest_next(now, floor(e.server_interval()), steady);
        if at <= now {
            return false;
        }
        e.poll.in_flight = false;
        self.timers.set(Timer::Task(TaskTimer::Poll, e.slot), at);
        true
    }

    /// A status request of the task came back unanswered (its session was gone): the server saw
    /// it, so the next one keeps the interval from now.
    pub(super) fn poll_came_back(&mut self, now: Millis, task_id: &str) {
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.poll.last_answered = now.into();
            e.poll.last_sent = now.into();
        }
    }

    /// When the next poll after a good answer at `now` is due: [`poll_delay`] after it, or while
    /// [`steady`], on the task's grid (`PollState::next_on_grid`).
    pub(crate) fn next_poll_at(&mut self, now: Millis, task_id: &str, age: Millis) -> Millis {
        let (cadence, visible) = (self.cfg.cadence, self.visible);
        let Some(e) = self.tasks.get_mut(task_id) else {
            return now;
        };
        let interval = e.server_interval();
        if steady(cadence, visible) {
            return e.poll.next_on_grid(now, floor(interval));
        }
        let delay = poll_delay(&mut self.rng, interval, age, visible, cadence);
        now.saturating_add(delay)
    }

    /// A catch-up poll: as soon as the task's interval allows, at a random point of the next
    /// interval (unless its poll is due sooner anyway).
    pub(crate) fn poll_spread(&mut self, now: Millis, task_id: &str) {
        let Some(e) = self.tasks.get(task_id) else {
            return;
        };
        if e.subs.is_empty() || e.is_terminal() || e.poll.in_flight {
            return;
        }
        let floor = floor(e.server_interval());
        let earliest = (e.poll).earliest_next(now, floor, steady(self.cfg.cadence, self.visible));
        let timer = Timer::Task(TaskTimer::Poll, e.slot);
        let at = earliest.max(now.saturating_add(self.rng.between(0, floor)));
        self.timers.set_earlier(timer, at);
    }

    /// The clock leapt past due polls: each poll late by more than [`LEAP_MS`] moves (once) to a
    /// random point of its task's next interval. Only while visible: a hidden page's timers are
    /// late by the browser's choice (throttling), and moving them would only wait for its next
    /// throttled wake.
    pub(crate) fn respace_after_leap(&mut self, now: Millis) {
        let late = now.saturating_sub(LEAP_MS);
        if !self.visible || self.timers.next().is_none_or(|due| due >= late) {
            return;
        }
        for timer in self.timers.due_before(late) {
            let Timer::Task(TaskTimer::Poll, slot) = timer else {
                continue;
            };
            let Some(e) = self.tasks.at_mut(slot) else {
                continue;
            };
            if e.poll.respaced {
                continue;
            }
            e.poll.respaced = true;
            let floor = floor(e.server_interval());
            let at = now.saturating_add(self.rng.between(0, floor));
            self.timers.set(timer, at);
        }
    }

    /// Wants the legacy GET stream open for the session with these headers (a new session: from
    /// the start).
    pub(crate) fn listen_standalone(&mut self, headers: Vec<(String, String)>) {
        let reopening = self.timers.get(&Timer::Standalone).is_some();
        match self.standalone.want(headers, reopening) {
            Want::Same { open } => {
                if open {
                    self.open_standalone();
                }
            }
            Want::New { abort } => {
                if let Some(key) = abort {
                    self.out.push_back(Output::Abort { key });
                }
                self.timers.clear(&Timer::Standalone);
                self.open_standalone();
            }
        }
    }

    /// The stream's reopening time came, or a response is awaited on it: opens it if it is
    /// closed. Returns whether the session has it (not when the server refused it).
    pub(crate) fn reopen_standalone(&mut self) -> bool {
        if !self.standalone.wanted() {
            return false;
        }
        if self.standalone.is_closed() {
            self.open_standalone();
        }
        true
    }

    fn open_standalone(&mut self) {
        // A server may refuse a GET that overtakes the `initialized` notification.
        if self.session.awaits_initialized() {
            return;
        }
        let reqs = &mut self.reqs;
        if let Some(listen) = self.standalone.open(|| reqs.key()) {
            self.out.push_back(listen);
        }
    }

    /// Stops the stream for good (the session ends).
    pub(crate) fn stop_standalone(&mut self) {
        if let Some(key) = self.standalone.stop() {
            self.out.push_back(Output::Abort { key });
            // The session ends: what waits for its connection goes nowhere.
            let _ = self.pool.unlisten();
        }
        self.timers.clear(&Timer::Standalone);
    }

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

    /// A task was tracked: with more tasks than connections on a link only assumed HTTP/1.1 and
    /// results to hold, the probe starts (once), and the running tasks followed hold theirs, the
    /// oldest first (likely the first to end, and to give back a connection the probe holds).
    pub(crate) fn probe_start(&mut self, now: Millis) {
        let Some(connections) = self.cfg.link.connections().filter(|_| self.cfg.link_unseen) else {
            return;
        };
        if self.probe.started() || self.tasks.len() <= connections {
            return;
        }
        self.probe.start(now);
        if !self.holds_running() {
            // Nothing to hold (not a legacy session, or its server refused): nothing to learn from.
            self.probe.unstart();
            return;
        }
        let mut followed = self.tasks.followed();
        followed.sort_by_key(|t| self.tasks.get(t).and_then(|e| e.poll.since.get()));
        for task_id in followed {
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
            // HTTP/1.1 for good: see `multiplex.rs` for why the held results stay open.
            Some(_) => self.link_seen(),
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

    fn link_seen(&mut self) {
        self.cfg.link_unseen = false;
        self.probe = Probe::decided(self.cfg.link);
    }

    /// The link this engine found, once: for the driver to remember for the server's URL.
    pub fn take_learnt_link(&mut self) -> Option<Link> {
        self.probe.take_learnt()
    }
}
