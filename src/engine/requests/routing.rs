//! Incoming: routing every answer to its request (by JSON-RPC id; by stream for id-less errors),
//! HTTP heads and stream ends, timeouts, dead sessions and lost connections.

use super::accepted::WARNING;
use super::pending::Pending;
use super::standalone::cuts_named;
use super::unreached::{FELL_BACK, LEGACY_NEEDS, MODERN_HEADERS, MODERN_NEEDS, MODERN_REFUSED};
use super::unreadable::{quote, PROBE_FELL_BACK};
use crate::engine::api::{ClientError, ErrorKind, Link, Millis, Output, SendKey, TransportError};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::session::absent::METHOD_NOT_FOUND;
use crate::engine::session::deviations::Deviation;
use crate::engine::session::quirks::Quirk;
use crate::engine::{Engine, DRAFT};
use crate::json::digits::decimal;
use crate::protocol::find;
use crate::protocol::jsonrpc::{DecodeError, Id, Message};
use crate::protocol::model::Dialect;

impl Engine {
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
                if let Some(n) = self.route(&id) {
                    self.note_server_info(&result);
                    self.complete(now, n, Ok(result));
                }
            }
            Message::Error {
                id: Some(id),
                error,
            } => match self.route(&id) {
                Some(n) if self.session_gone(n, &error) => self.session_lost(now, n),
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
        let lost = p.sessioned
            && error.code != METHOD_NOT_FOUND
            && match status {
                Some(404) => true,
                Some(400) => names_dead_session(&error.message),
                _ => false,
            };
        if lost {
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

    /// An error answering request `n` on a session with HTTP 404 means the session is gone,
    /// unless it says the method is missing.
    fn session_gone(&self, n: ReqId, error: &crate::protocol::jsonrpc::RpcError) -> bool {
        self.reqs.get(n).is_some_and(|p| {
            p.sessioned && p.http_status == Some(404) && error.code != METHOD_NOT_FOUND
        })
    }

    /// A message other than the answer arrived on a request's stream: a finished task's
    /// `tasks/result` that still talks is not stalled.
    fn stream_progress(&mut self, now: Millis, via: Option<SendKey>) {
        let Some(n) = via.and_then(|k| self.reqs.id_of(k)) else {
            return;
        };
        let result = matches!(self.reqs.purpose(n), Some(Purpose::Result(_)));
        if result && self.reqs.has_timeout(n) {
            let at = now.saturating_add(self.cfg.request_timeout_ms);
            self.reqs.arm_timeout(n, at);
        }
    }

    pub(crate) fn route(&self, id: &Id) -> Option<ReqId> {
        let n = ReqId(
            u64::try_from(match id {
                Id::Number(n) => *n,
                Id::String(s) => crate::json::parse_i64(s)?,
            })
            .ok()?,
        );
        self.reqs.is_pending(n).then_some(n)
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
        let message = match (&error, status) {
            (Some(e), None) if e.unreached => self.unreached(&e.message),
            (Some(e), _) => e.message.clone(),
            (None, Some(s)) => {
                ["HTTP ", &decimal(s.into()), " without a JSON-RPC response"].concat()
            }
            (None, None) => "the response stream ended without a response".to_owned(),
        };
        #[cfg(feature = "oauth")]
        let kind = match error.as_ref().is_some_and(|e| e.unauthorized) {
            true => ErrorKind::Unauthorized,
            false => ErrorKind::Transport,
        };
        #[cfg(not(feature = "oauth"))]
        let kind = ErrorKind::Transport;
        let mut client = ClientError::new(kind, message);
        client.http_status = status;
        let retry_after = error
            .as_ref()
            .and_then(|e| e.retry_after_ms)
            .or(p.retry_after);
        self.fail(
            now,
            n,
            Failure::Transport {
                error: client,
                status,
                retry_after,
            },
        );
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
            self.poll_came_back(now, t);
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

    /// The (WebSocket) connection went down or came back.
    pub(crate) fn on_connection(&mut self, now: Millis, up: bool) {
        if !up {
            self.socket.down(now, &mut self.rng, &mut self.timers);
            self.session.link_lost();
            for n in self.reqs.ids() {
                let error = ClientError::new(ErrorKind::Transport, "the connection was lost");
                self.fail(
                    now,
                    n,
                    Failure::Transport {
                        error,
                        status: None,
                        retry_after: None,
                    },
                );
            }
            return;
        }
        self.socket.up(&mut self.timers);
        if self.session.link_back() {
            self.reconnected(now);
        }
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
        self.fail(
            now,
            n,
            Failure::Transport {
                error,
                status,
                retry_after,
            },
        );
    }

    /// A page's requests are subject to CORS.
    pub(crate) fn in_page(&self) -> bool {
        matches!(self.cfg.link, Link::Http1 | Link::Http2)
    }

    /// What to say of a request that got no response (`raw`: what the runtime said).
    pub(super) fn unreached(&self, raw: &str) -> String {
        let url = self.cfg.url.as_str();
        if !self.in_page() {
            let why = ": the connection failed or was refused (";
            return ["no response from ", url, why, raw, ")"].concat();
        }
        let modern = self.session.dialect() == Some(Dialect::Modern);
        if modern && self.session.modern_headers_refused() {
            return [MODERN_REFUSED, MODERN_HEADERS, "; URL ", url].concat();
        }
        let needs = if modern { MODERN_NEEDS } else { LEGACY_NEEDS };
        let why = "): the server is down or unreachable, or its CORS policy refuses this page's origin or request headers; it must allow ";
        ["no response from ", url, " (", raw, why, needs].concat()
    }

    /// `initialize` answered after the probe got no response in a page: said once.
    pub(crate) fn note_modern_refused(&mut self) {
        if self.session.probe_refused() {
            let warning =
                ClientError::new(ErrorKind::Transport, [FELL_BACK, MODERN_HEADERS].concat());
            self.deviated(Deviation::ModernRefused, warning);
        }
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

    /// The resumption delay of request `n` is over: `GET` its stream from the last event id.
    pub(crate) fn resume_stream(&mut self, n: ReqId) {
        let key = self.reqs.key();
        let headers = self.session.session_headers();
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        let Some(last_event_id) = p.stream.last_event_id.clone() else {
            return;
        };
        self.reqs.resumed_on(n, key);
        self.out.push_back(Output::Resume {
            key,
            headers,
            last_event_id,
        });
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

/// An error message saying the request's session is unknown (servers answer a dead session with
/// 400 as well as 404: "No valid session ID provided", "Server not initialized"…).
fn names_dead_session(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    find(&m, "session").is_some() || find(&m, "not initialized").is_some()
}
