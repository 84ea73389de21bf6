//! The engine's request routing. Out: a request for the ready session (its body built once), the
//! transmissions handed to the driver as the browser's connections allow (`pool.rs`,
//! `backlog.rs`), the link's HTTP version learnt from them (below, with `multiplex.rs`). In: every answer
//! routed to its request (by JSON-RPC id; by stream for id-less errors), HTTP heads and stream
//! ends, timeouts, dead sessions and lost connections.

use super::accepted::WARNING;
use super::multiplex::{Probe, KEPT_ON_HTTP1};
use super::pending::Pending;
use super::standalone::cuts_named;
use super::unreached::unreached;
use super::unreadable::{quote, PROBE_FELL_BACK};
use crate::engine::api::{
    ClientError, ErrorKind, Link, Millis, Output, SendKey, Transmit, TransportError,
};
use crate::engine::ids::{ReqId, Slot};
use crate::engine::registry::TaskEntry;
use crate::engine::requests::backlog::Kept;
use crate::engine::requests::encoded::Encoded;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::session::deviations::Deviation;
use crate::engine::session::quirks::Quirk;
use crate::engine::{Engine, DRAFT};
use crate::json::digits::decimal;
use crate::protocol::dialect::{Codec, Outgoing};
use crate::protocol::jsonrpc::{DecodeError, Id, Message};
use crate::protocol::model::Dialect;

impl Engine {
    /// Sends `p` in the ready session's dialect `codec`.
    pub(crate) fn send_ready(&mut self, now: Millis, codec: &'static dyn Codec, p: Purpose) {
        let p = match p {
            Purpose::Get(t) => return self.send_get(now, t),
            Purpose::Result(t) if !self.result_slot(&t) => return,
            Purpose::Call(c) => return self.send_call(now, c),
            Purpose::Answer(i) => return self.send_answer(now, i),
            Purpose::Listen => return self.send_listen(now),
            Purpose::Probe | Purpose::Initialize => return,
            other => other,
        };
        // Only the draft's cancel names the request that created the task.
        let origin = match &p {
            Purpose::Cancel { task_id, .. } if DRAFT => (self.tasks.get(task_id))
                .and_then(|e| e.origin)
                .map(|n| Id::Number(n.wire())),
            _ => None,
        };
        match p.build(codec, &self.session.info(), origin.as_ref()) {
            Some(o) => {
                self.send(now, p, o);
            }
            None => self.unsupported(now, p),
        }
    }

    /// A status poll. While others wait for the browser it waits as its task's slot (see
    /// `backlog.rs`); it is encoded only once handed to the driver ([`Engine::encode_poll`]).
    fn send_get(&mut self, now: Millis, t: String) {
        let pace = (self.pace(), self.session.fetches_results());
        if (self.tasks).poll_too_soon(now, &t, pace, &mut self.timers) {
            return;
        }
        let Some(entry) = self.tasks.get_mut(&t) else {
            return;
        };
        entry.poll.last_sent = now.into();
        let slot = entry.slot;
        if self.pool.keeps_poll(self.out.len(), self.polls_yield()) {
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
        let over =
            matches!(&p, Purpose::Result(t) if self.tasks.get(t).is_some_and(|e| e.is_terminal()));
        let timeout_at = p.timeout_at(now, self.cfg.request_timeout_ms, over);
        let background = matches!(p, Purpose::Get(_));
        self.on_sent(&p, id, now);
        let (epoch, sessioned) = (self.session.epoch(), self.session.session_id().is_some());
        self.reqs.open(id, p, key, (epoch, sessioned), timeout_at);
        Transmit {
            key,
            body,
            headers,
            one_way: false,
            background,
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
            background: false,
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
        let yields = self.polls_yield();
        while let Some(kept) = self.pool.release(yields) {
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
                Output::Transmit(t) if self.pool.keeps_out(&t, yields) => {
                    self.pool.keep(t, &mut self.reqs)
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

    /// Whether status polls yield their turn for a connection: the session's pushes bring the
    /// ends, and each asks for its result at once.
    fn polls_yield(&self) -> bool {
        self.relies_on_pushes()
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
                let after = self.cfg.request_timeout_ms;
                if let Some(n) = self.pool.hand(now, *key, &mut self.reqs, after) {
                    self.poll_reached(now, n);
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

    pub(crate) fn on_message(&mut self, now: Millis, via: Option<SendKey>, body: &str) {
        if via.is_none() {
            self.standalone.heard();
        }
        let msg = match Message::decode_str(body, self.cfg.max_message_bytes) {
            Ok(m) => m,
            Err(e) => return self.not_json_rpc(now, via, body, e),
        };
        match msg {
            Message::Response { id, result } => {
                if let Some(n) = self.reqs.route(&id) {
                    self.note_server_info(&result);
                    self.complete(now, n, Ok(result));
                }
            }
            Message::Error {
                id: Some(id),
                error,
            } => match self.reqs.route(&id) {
                Some(n) if (self.reqs.get(n)).is_some_and(|p| p.session_gone(&error)) => {
                    self.session_lost(now, n)
                }
                Some(n) => self.fail(now, n, Failure::Rpc(error)),
                // An answer to nothing we sent: it fails nothing.
                None => self.stray_error(error),
            },
            // No id: the server could not tell which request it refuses; the stream tells.
            Message::Error { id: None, error } => match via.and_then(|k| self.reqs.id_of(k)) {
                Some(n) => self.rejected(now, n, error),
                None => self.stray_error(error),
            },
            Message::Request { id, method, params } => {
                self.stream_progress(now, via);
                self.on_server_request(now, via, id, &method, params)
            }
            Message::Notification { method, params } => {
                self.stream_progress(now, via);
                self.on_notification(now, via, &method, params.as_ref())
            }
        }
    }

    /// An error for no request of ours. Reported once the session is up (before, a warning reads
    /// as a failed connect).
    fn stray_error(&mut self, error: crate::protocol::jsonrpc::RpcError) {
        if self.session.is_ready() {
            self.warn(None, error.into());
        }
    }

    /// An id-less error on a request's stream. On a request that carried a session id, a 404, or
    /// a 400 saying the session is unknown, means the session is gone; anything else fails this
    /// one request.
    fn rejected(&mut self, now: Millis, n: ReqId, error: crate::protocol::jsonrpc::RpcError) {
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        let (status, retry_after) = (p.http_status, p.retry_after);
        if p.refused_for_session(&error) {
            return self.session_lost(now, n);
        }
        self.fail(
            now,
            n,
            Failure::Rejected {
                error,
                status,
                retry_after,
            },
        );
    }

    /// A message other than the answer arrived on a request's stream (see `Requests::talks`).
    fn stream_progress(&mut self, now: Millis, via: Option<SendKey>) {
        if let Some(key) = via {
            self.reqs.talks(key, now, self.cfg.request_timeout_ms);
        }
    }

    pub(crate) fn on_head(
        &mut self,
        now: Millis,
        key: SendKey,
        status: u16,
        session_id: Option<String>,
        retry_after: Option<Millis>,
        www_authenticate: Option<String>,
    ) {
        if (self.standalone).headed(now, key, status, retry_after) {
            return;
        }
        self.initialized_answered(Some(key));
        self.pool_headed(now, key);
        if status < 400 {
            self.reqs.answer_over(key);
        }
        let Some(n) = self.reqs.id_of(key) else {
            return;
        };
        let Some(p) = self.reqs.get_mut(n) else {
            return;
        };
        p.http_status = Some(status);
        p.retry_after = retry_after;
        if session_id.is_some() {
            p.session_id = session_id;
        }
        let modern = self.session.dialect() == Some(Dialect::Modern);
        self.session.reached();
        match p.purpose {
            Purpose::Listen => self.on_listen_head(now, n, status),
            Purpose::Probe => self.session.method_header_passed(),
            Purpose::Initialize => {}
            _ if modern => self.session.method_header_passed(),
            _ => {}
        }
        let timers = &mut self.timers;
        self.session
            .note_retry_after(now, Some(status), retry_after, timers);
        self.session.probe_answered(n);
        // A 404 on a session: its body (if any) tells a dead session from a missing method.
        if status == 401 || (status == 403 && www_authenticate.is_some()) {
            self.unauthorized(now, n, status, www_authenticate);
        } else if status == 403 {
            self.forbidden(now, n);
        }
    }

    /// A transmission's stream ended (`error` = it failed) — fails its request if still unanswered.
    pub(crate) fn on_ended(&mut self, now: Millis, key: SendKey, error: Option<TransportError>) {
        if self.standalone_ended(now, key, error.as_ref()) {
            return;
        }
        self.initialized_answered(Some(key));
        self.pool_ended(now, key);
        if let Some(task_id) = self.reqs.answer_over(key) {
            if let Some(e) = &error {
                let msg = ["an input answer could not be delivered: ", &e.message].concat();
                self.warn(task_id, ClientError::new(ErrorKind::Transport, msg));
            }
        }
        let Some(n) = self.reqs.end_key(key) else {
            return;
        };
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        let status = error.as_ref().and_then(|e| e.http_status).or(p.http_status);
        if let Some(e) = &error {
            let timers = &mut self.timers;
            (self.session).note_retry_after(now, e.http_status, e.retry_after_ms, timers);
        }
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        // A 400 without a body naming the session is a bad request, not a dead session.
        if p.sessioned && status == Some(404) {
            return self.session_lost(now, n);
        }
        let over_limit = error.as_ref().is_some_and(|e| e.over_limit);
        let clock = (&mut self.rng, &mut self.timers);
        if !over_limit && self.reqs.try_resume(now, n, status, clock) {
            return;
        }
        if error.is_none() && status == Some(202) && self.await_elsewhere(n) {
            return;
        }
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        let unreached = |raw: &str| {
            let modern = self.session.dialect() == Some(Dialect::Modern);
            let refused = modern && self.session.modern_headers_refused();
            unreached(&self.cfg.url, self.cfg.link, modern, refused, raw)
        };
        let failure = Failure::stream_ended(error.as_ref(), status, p.retry_after, unreached);
        self.fail(now, n, failure);
    }

    pub(crate) fn on_timeout(&mut self, now: Millis, n: ReqId) {
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        // A `tasks/result` only times out once its task is over: closing it cancels nothing.
        let open = !p.accepted;
        if open && (p.purpose.abortable() || matches!(p.purpose, Purpose::Result(_))) {
            let key = p.key;
            self.out.push_back(Output::Abort { key });
        }
        let failure = self.reqs.timed_out(n);
        self.fail(now, n, failure);
    }

    pub(crate) fn take_pending(&mut self, n: ReqId) -> Option<Box<Pending>> {
        let p = self.reqs.remove(n)?;
        if p.stream.resumed {
            // A resumption `GET` stays open after its answer; closing it cancels nothing.
            self.out.push_back(Output::Abort { key: p.key });
        }
        self.session.probe_answered(n);
        if let Purpose::Result(t) = &p.purpose {
            self.result_ended(t, n);
        }
        Some(p)
    }

    /// The session behind a request is gone: start over and send the request again later.
    pub(super) fn session_lost(&mut self, now: Millis, n: ReqId) {
        let Some(p) = self.take_pending(n) else {
            return;
        };
        if p.epoch == self.session.epoch() && self.session.is_ready() {
            self.reinitialize(now);
        }
        if let Purpose::Get(t) = &p.purpose {
            self.tasks.poll_came_back(now, t);
        }
        match p.purpose {
            Purpose::Probe | Purpose::Initialize | Purpose::Listen => {}
            other => self.dispatch(now, other),
        }
    }

    /// Request `n` is over with `res`: hands it to whatever it was for.
    pub(super) fn complete(&mut self, now: Millis, n: ReqId, res: Answer) {
        let Some(mut p) = self.take_pending(n) else {
            return;
        };
        // Read in place: the entry is dropped once, after whichever handler ran.
        match &p.purpose {
            Purpose::Probe => self.on_probe(now, res),
            Purpose::Initialize => self.on_initialize(now, res, p.session_id.take()),
            Purpose::Call(c) => self.on_call_reply(now, *c, n, res),
            Purpose::Get(t) => self.on_get(now, t, res),
            Purpose::Result(t) => self.on_result(now, t, n, res),
            Purpose::Kept(_) => self.on_kept(now, res),
            Purpose::List { op, .. } => self.on_list(*op, res),
            Purpose::Tools { .. } => self.on_tools_page(now, res),
            Purpose::Cancel { op, task_id } => self.on_cancel(now, *op, task_id, res),
            // Only the draft sends one.
            Purpose::Delete { op, task_id } if DRAFT => self.on_delete(now, *op, task_id, res),
            Purpose::Delete { .. } => {}
            Purpose::Answer(i) => self.on_answer_ack(now, *i, res),
            Purpose::Listen => self.on_listen_end(now, n, res.err()),
        }
    }

    /// Request `n` failed with `f` (boxed in one place for every caller).
    #[inline(never)]
    pub(crate) fn fail(&mut self, now: Millis, n: ReqId, f: Failure) {
        self.complete(now, n, Err(Box::new(f)));
    }

    /// `body`, arriving on `via`, is not JSON-RPC (`e` says why).
    pub(super) fn not_json_rpc(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        body: &str,
        e: DecodeError,
    ) {
        let error = ClientError::new(ErrorKind::Protocol, e.message());
        if matches!(e, DecodeError::TooLarge { .. }) {
            return self.warn(None, error);
        }
        let n = via.and_then(|k| self.reqs.id_of(k));
        let status = n.and_then(|n| self.reqs.get(n)).and_then(|p| p.http_status);
        let probe = n.is_some_and(|n| self.reqs.purpose(n) == Some(&Purpose::Probe));
        match (n, status) {
            (Some(n), Some(s)) if s >= 400 || probe => self.refused_with(now, n, s, body, probe),
            // Text that is not JSON beside an answer that needs none (a 202's "Accepted").
            _ if !matches!(body.trim_ascii().as_bytes().first(), Some(b'{' | b'[')) => {}
            _ => self.deviated(Deviation::NotJsonRpc, error),
        }
    }

    /// Request `n` was answered with HTTP `status` and `body`, which is not JSON-RPC: it fails
    /// (the `probe`'s failure is a deviation the host hears of once connected), unless it is a
    /// 404 on a session, which its stream's end reads as the session gone.
    fn refused_with(&mut self, now: Millis, n: ReqId, status: u16, body: &str, probe: bool) {
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        if p.sessioned && status == 404 {
            return;
        }
        let said = quote(body);
        let retry_after = p.retry_after;
        let message = ["HTTP ", &decimal(status.into()), ", not JSON-RPC: ", said].concat();
        if probe {
            let warning = ["server/discover: ", &message, PROBE_FELL_BACK].concat();
            let warning = ClientError::new(ErrorKind::Protocol, warning);
            self.deviated(Deviation::Probe, warning);
        }
        let mut error = ClientError::new(ErrorKind::Transport, message);
        error.http_status = Some(status);
        let status = Some(status);
        self.fail(now, n, Failure::transport(error, status, retry_after));
    }

    /// A request's stream moved on: remember where, for resuming it.
    pub(crate) fn on_cursor(
        &mut self,
        key: SendKey,
        last_event_id: Option<String>,
        retry_ms: Option<Millis>,
    ) {
        if self.standalone.is(key) {
            return self.standalone.moved_on(last_event_id, retry_ms);
        }
        self.reqs.moved_on(key, last_event_id, retry_ms);
    }

    /// Request `n`'s stream ended after HTTP 202, unanswered: keeps it pending for its response
    /// elsewhere. Returns whether it did (else it fails as before).
    pub(super) fn await_elsewhere(&mut self, n: ReqId) -> bool {
        let awaits = self.session.is_ready()
            && (self.reqs.purpose(n)).is_some_and(|p| {
                !matches!(p, Purpose::Probe | Purpose::Initialize | Purpose::Listen)
            });
        // A closed listening stream opens now (its pending reopening then finds it open).
        if !awaits || !self.reopen_standalone() {
            return false;
        }
        if let Some(p) = self.reqs.get_mut(n) {
            p.accepted = true;
        }
        if !self.session.quirks.has(Quirk::AcceptsRequests) {
            self.session.quirks.insert(Quirk::AcceptsRequests);
            self.warn(None, ClientError::new(ErrorKind::Protocol, WARNING));
        }
        true
    }

    /// `key` ended (`error`: how it failed): `true` when it was the legacy GET stream's.
    fn standalone_ended(
        &mut self,
        now: Millis,
        key: SendKey,
        error: Option<&TransportError>,
    ) -> bool {
        let clock = (&mut self.rng, &mut self.timers);
        let Some(named) = self.standalone.ended(now, key, error, clock) else {
            return false;
        };
        if let Some(life) = named {
            self.warn(None, cuts_named(life));
        }
        self.pool_unlisten(now);
        true
    }
}

// The engine's side of learning a link's HTTP version (the probe itself: `multiplex.rs`): when
// the probe starts, what it is told of the transmissions, and what its verdict changes. The
// probe closes held results on an HTTP/1.1 verdict, so it only starts on a server seen to keep a
// task's result after answering it: once a result was fetched, it is asked again ([`Purpose::Kept`]);
// answered, closing a held result loses nothing (its task's poll fetches it again); refused, the
// server consumes results, and its link stays assumed HTTP/1.1, its tasks polled.
impl Engine {
    /// The budget of held results on this link: while it is only assumed HTTP/1.1, the probe's
    /// once it started (the connections the listening stream leaves: none waits in the
    /// browser's queue, to hold a connection later), the HTTP/1.1 budget before.
    pub(crate) fn link_budget(&self) -> usize {
        match self.cfg.link.connections() {
            Some(connections) if self.probing() => connections - usize::from(self.pool.listens()),
            _ => self.cfg.link.result_budget(),
        }
    }

    /// Whether the probe runs on a link only assumed HTTP/1.1.
    pub(crate) fn probing(&self) -> bool {
        self.cfg.link_unseen && self.probe.started()
    }

    /// Whether the probe is making its witnesses: running tasks may hold every connection.
    pub(crate) fn probe_fills(&self) -> bool {
        self.cfg.link_unseen && self.probe.fills()
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
        // The line waiting for a slot goes first (the probe's budget is the connections'), then
        // each inserted after those no younger (once per engine: no sort in the binary).
        self.fill_result_slots(now);
        let mut oldest: Vec<(Option<Millis>, String)> = Vec::new();
        for task_id in self.tasks.followed() {
            let since = self.tasks.get(&task_id).and_then(|e| e.poll.since.get());
            let at = (oldest.iter().position(|(s, _)| *s > since)).unwrap_or(oldest.len());
            oldest.insert(at, (since, task_id));
        }
        for (_, task_id) in oldest {
            self.hold_again(now, &task_id);
        }
        self.probe.fill();
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

    /// HTTP/1.1 for good: held results of running tasks beyond what the budget lets them hold
    /// ([`KEPT_ON_HTTP1`] where they hold none) close (tasks waiting for input keep theirs; the
    /// server keeps results, so their tasks' polls fetch them again), and their tasks are polled.
    fn link_is_http1(&mut self, now: Millis) {
        self.link_seen();
        let keep = match self.holds_running() {
            true => self.running_cap(),
            false => KEPT_ON_HTTP1,
        };
        let mut kept = 0;
        for task_id in self.tasks.followed() {
            if (self.tasks.get(&task_id)).is_some_and(TaskEntry::asks) {
                continue;
            }
            let held = (self.tasks.get(&task_id)).is_some_and(|e| e.result.req().is_some());
            if held && kept < keep {
                kept += 1;
            } else if held {
                self.unhold(now, &task_id);
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
