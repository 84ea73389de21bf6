//! The session's routing: connecting and negotiating (the session decides each step, the
//! requests carry it), re-initialization, holds and refusals, the WebSocket link lost and back,
//! each applied to the sub-machines it concerns (the requests, the tasks, the timers, the host's
//! events); the session's legacy GET stream and resumed response streams; resuming, adopting and
//! detaching a session another engine established.

use crate::json::Value;
use crate::protocol::dialect::{Codec, LEGACY, MODERN};

use super::deviations::Deviation;
use super::negotiate::has_tasks_extension;
use super::negotiate::{server_info_of, UNANSWERED};
use super::unauthorized;
use super::{keep_waiting, negotiate::offers_tasks, Step, NO_AFFINITY, NO_AFFINITY_LIVES};
use crate::engine::api::{ClientError, ErrorKind, Link, Millis, Output, SendKey};
use crate::engine::api::{Config, DialectChoice};
use crate::engine::ids::ReqId;
use crate::engine::requests::pending::Resent;
use crate::engine::requests::unreached::modern_refused;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::{cadence, Timer};
use crate::engine::snapshot::SessionSnapshot;
use crate::engine::Engine;
use crate::protocol::dialect::codec;
use crate::protocol::model::Dialect;

impl Engine {
    /// Starts (or restarts) establishing the session.
    pub(crate) fn connect(&mut self, now: Millis) {
        if self.closed || !self.session.may_connect() || self.connect_in_flight() {
            return;
        }
        if let Some(h) = self.session.hold(now) {
            return self.timers.set(Timer::Connect, h);
        }
        self.timers.clear(&Timer::Connect);
        match self.session.codec_any() {
            Some(c) => self.open_with(now, c),
            None => {
                let step = self.session.opening();
                self.take_step(now, step);
            }
        }
    }

    fn connect_in_flight(&self) -> bool {
        self.reqs
            .purposes()
            .any(|p| matches!(p, Purpose::Probe | Purpose::Initialize))
    }

    /// `initialize` for dialects with a handshake; ready at once for those without.
    pub(super) fn open_with(&mut self, now: Millis, c: &'static dyn Codec) {
        match self.session.initialize(c, self.cfg.link == Link::Node) {
            Some(out) => {
                self.send(now, Purpose::Initialize, out);
            }
            // No handshake (modern): what earlier answers said still holds.
            None => {
                let (caps, tasks) = self.session.known_caps();
                self.become_ready(now, c, caps, Value::Null, tasks)
            }
        }
    }

    /// The session is open in `c`'s dialect (see [`super::Session::ready`]): the host hears of
    /// it, the legacy GET stream opens, and what waited for the session goes.
    pub(super) fn become_ready(
        &mut self,
        now: Millis,
        c: &'static dyn Codec,
        caps: Value,
        info: Value,
        tasks: Option<bool>,
    ) {
        let subscribe = self.cfg.subscribe;
        self.session.ready(now, c, caps, info, tasks, subscribe);
        self.announce();
        if let Some(warning) = self.session.held_deviation() {
            self.warn(None, warning);
        }
        if self.session.handshake() && self.cfg.link != Link::WebSocket {
            let headers = self.session.session_headers();
            let opens = !self.session.awaits_initialized();
            let to = (&mut self.reqs, &mut self.out);
            (self.standalone).listen(headers, opens, &mut self.timers, to);
        }
        for p in self.session.take_waiting() {
            self.dispatch(now, p);
        }
        self.listen_changed(now);
    }

    /// Tells the host what the session is (again, when something new about it was learnt).
    fn announce(&mut self) {
        if let Some(dialect) = self.session.dialect() {
            let event = self.session.connected(dialect);
            self.emit(event);
        }
    }

    /// A modern response naming the server (`_meta`) when nothing had: the host hears of it.
    pub(crate) fn note_server_info(&mut self, result: &Value) {
        if self.session.note_server_info(result) {
            self.announce();
        }
    }

    /// The legacy session is gone (404): open a new one; every task stays tracked. From the
    /// second session in a row dying right after being made, the new one waits out a growing
    /// backoff, and the third is diagnosed (once) as a balancer without affinity. Only the first
    /// death of a streak is warned as an expiry.
    pub(crate) fn reinitialize(&mut self, now: Millis) {
        let Some(c) = self.session.codec_any() else {
            return;
        };
        let lives = self.session.died(now);
        if lives == 1 {
            let expired = "the session expired; re-initializing";
            self.warn(None, ClientError::new(ErrorKind::Transport, expired));
        }
        if lives == NO_AFFINITY_LIVES {
            let error = ClientError::new(ErrorKind::Transport, NO_AFFINITY);
            self.deviated(Deviation::NoAffinity, error);
        }
        self.renew_session();
        let backoff = match lives {
            0 | 1 => None,
            n => Some(now.saturating_add(cadence::backoff_delay(n - 2, &mut self.rng))),
        };
        match self.session.hold(now).max(backoff) {
            Some(at) => self.timers.set(Timer::Connect, at),
            None => self.open_with(now, c),
        }
    }

    /// Task `task_id` was tracked before the current session began: a server that no longer
    /// knows it forgot it with the session it outlived.
    pub(crate) fn outlived_session(&self, task_id: &str) -> bool {
        let first = self.session.first_slot();
        self.tasks.get(task_id).is_some_and(|e| e.slot < first)
    }

    /// A new session begins (a new epoch): tasks tracked so far outlived the old one.
    fn renew_session(&mut self) {
        self.session.renew(self.tasks.next_slot());
    }

    /// The (WebSocket) link is back: a handshake session without an id lived on the old socket.
    pub(crate) fn reconnected(&mut self, now: Millis) {
        if self.session.lived_on_link() {
            self.renew_session();
            if let Some(c) = self.session.codec_any() {
                self.open_with(now, c);
            }
        } else if !self.session.is_ready() {
            self.connect(now);
        }
        self.last_catch_up = None;
        self.catch_up(now);
    }

    /// The (WebSocket) connection went down or came back.
    pub(crate) fn on_connection(&mut self, now: Millis, up: bool) {
        if !up {
            self.socket.down(now, &mut self.rng, &mut self.timers);
            self.session.link_lost();
            for n in self.reqs.ids() {
                let error = ClientError::new(ErrorKind::Transport, "the connection was lost");
                self.fail(now, n, Failure::transport(error, None, None));
            }
            return;
        }
        self.socket.up(&mut self.timers);
        if self.session.link_back() {
            self.reconnected(now);
        }
    }

    /// Establishing the session failed; `fatal` = the server refused (queued calls fail now).
    /// An overloaded server (429/5xx) is asked again a few times before the host hears of it.
    fn connect_failed(&mut self, now: Millis, failure: &Failure, fatal: bool) {
        let error = failure.client_error();
        let retry_after = failure.retry_after();
        let (errors, quiet) = self.session.connect_error(!fatal && failure.overloaded());
        if !quiet {
            self.warn(None, error.clone());
        }
        if fatal {
            self.fail_queue(now, &error, false);
        }
        let delay = cadence::error_delay(&mut self.rng, errors, retry_after, None);
        self.timers.set(Timer::Connect, now.saturating_add(delay));
    }

    /// The server cannot serve the dialect asked for: the host hears why, everything waiting
    /// fails, and connecting stops for good.
    fn connect_refused(&mut self, now: Millis, message: &str) {
        let error = ClientError::new(ErrorKind::Unsupported, message);
        self.session.refuse(error.clone());
        self.timers.clear(&Timer::Connect);
        self.warn(None, error.clone());
        self.fail_queue(now, &error, true);
    }

    /// Fails the caller's queued operations with `error`; `all` also ends queued watches.
    pub(super) fn fail_queue(&mut self, now: Millis, error: &ClientError, all: bool) {
        // What stays is queued again before anything fails (failing may queue more behind it).
        for p in self.session.take_failing(all) {
            match p {
                Purpose::Call(c) => self.call_failed(c, error.clone()),
                Purpose::List { op, .. } | Purpose::Cancel { op, .. } => {
                    self.reply(op, Err(error.clone()))
                }
                Purpose::Tools { .. } => self.tools_failed(now, error.clone(), false),
                Purpose::Get(t) => self.drop_task_failing(now, &t, error.clone()),
                _ => {}
            }
        }
    }

    /// Takes a step of the negotiation.
    fn take_step(&mut self, now: Millis, step: Step) {
        match step {
            Step::Modern(d) => self.modern_ready(now, d),
            Step::Open(c) => self.open_with(now, c),
            Step::Unanswered => {
                let warning = ClientError::new(ErrorKind::Protocol, UNANSWERED);
                self.deviated(Deviation::Probe, warning);
                self.open_with(now, LEGACY)
            }
            Step::Probe => {
                let out = self.session.discover();
                self.send(now, Purpose::Probe, out);
            }
            Step::Refuse(message) => self.connect_refused(now, message),
            Step::Failed(f, fatal) => self.connect_failed(now, &f, fatal),
        }
    }

    fn modern_ready(&mut self, now: Millis, d: Option<Box<super::negotiate::Discovered>>) {
        let modern = MODERN;
        match d {
            Some(d) => self.become_ready(now, modern, d.capabilities, d.server_info, Some(d.tasks)),
            None => self.become_ready(now, modern, Value::Null, Value::Null, None),
        }
    }

    pub(crate) fn on_probe(&mut self, now: Millis, res: Answer) {
        let in_page = self.cfg.link.in_page();
        let step = self.session.read_probe(res, in_page);
        self.take_step(now, step);
    }

    pub(crate) fn on_initialize(&mut self, now: Millis, res: Answer, sid: Option<String>) {
        let Some(c) = self.session.initialize_answered() else {
            return;
        };
        match res {
            Ok(v) => self.initialized(now, c, v, sid),
            Err(f) => {
                let step = self.session.initialize_failed(f);
                self.take_step(now, step)
            }
        }
    }

    /// `initialize` succeeded. When modern wins (see [`super::Session::handshaken`]) the legacy
    /// session is ended. A draft receiver is read in the draft dialect (`detect.rs`).
    fn initialized(&mut self, now: Millis, c: &'static dyn Codec, v: Value, sid: Option<String>) {
        let caps = v.get("capabilities").cloned().unwrap_or_default();
        if let Some(d) = self.session.handshaken(&v, sid, offers_tasks(&caps)) {
            if let Some(headers) = self.session.end_session_headers() {
                self.out.push_back(Output::EndSession { headers });
            }
            return self.modern_ready(now, Some(d));
        }
        // `initialize` answered after the probe got no response in a page: said once.
        if self.session.probe_refused() {
            self.deviated(Deviation::ModernRefused, modern_refused());
        }
        let info = server_info_of(&v);
        let (c, hint) = self.session.auto_draft(c, &caps);
        if let Some(out) = c.build_initialized(&self.session.info()) {
            let key = self.push_one_way(out);
            // A WebSocket keeps order: nothing waits there.
            if self.cfg.link != Link::WebSocket {
                self.session
                    .wait_for_initialized(now, key, &mut self.timers);
            }
        }
        self.become_ready(now, c, caps, info, None);
        if let Some(hint) = hint {
            self.warn(None, hint);
        }
    }

    /// The server deviated (`d`): the host hears `warning` unless it heard of this kind before.
    pub(crate) fn deviated(&mut self, d: Deviation, warning: ClientError) {
        match self.session.deviation(d) {
            Some(true) => self.warn(None, warning),
            Some(false) => self.session.keep_deviation(warning),
            None => {}
        }
    }

    /// Transmission `key` got its answer or ended (`None`: the wait's deadline passed): when the
    /// session waited for it, the waiting requests go (before the next output) and the listening
    /// stream opens.
    pub(crate) fn initialized_answered(&mut self, key: Option<SendKey>) {
        if self.session.initialized_answered(key, &mut self.timers) {
            self.reopen_standalone();
        }
    }

    /// Opens the legacy GET stream if it is closed (see `Standalone::reopen`); whether the
    /// session has it.
    pub(crate) fn reopen_standalone(&mut self) -> bool {
        let opens = !self.session.awaits_initialized();
        (self.standalone).reopen(opens, (&mut self.reqs, &mut self.out))
    }

    /// The resumption delay of request `n` is over: `GET` its stream in the session.
    pub(crate) fn resume_stream(&mut self, n: ReqId) {
        let headers = self.session.session_headers();
        if let Some(resume) = self.reqs.resume(n, headers) {
            self.out.push_back(resume);
        }
    }

    /// A request the server refused with the `Retry-After` now in force waits at the front of
    /// the queue instead of on a timer, so it goes first when the hold ends: the server said
    /// when it may come back. Behind the requests made meanwhile it would meet each new hold
    /// first, and under a per-task limit one task after another would be refused while none got
    /// through. `wait` is its retry delay: one longer than the `Retry-After` (error backoff)
    /// keeps its timer. Returns whether `p` was queued.
    pub(crate) fn retry_first(
        &mut self,
        now: Millis,
        p: Purpose,
        retry_after: Option<Millis>,
        wait: Millis,
    ) -> bool {
        if retry_after.is_none_or(|ra| wait > ra) || self.session.hold(now).is_none() {
            return false;
        }
        match &p {
            Purpose::Get(t) => match self.tasks.get_mut(t) {
                Some(e) => e.poll.in_flight = true,
                None => return false,
            },
            Purpose::Result(t) => match self.tasks.get_mut(t) {
                Some(e) => {
                    e.result.start();
                }
                None => return false,
            },
            _ => return false,
        }
        self.session.wait_first(p);
        true
    }

    /// The hold passed: send the first waiting request alone (the others follow its answer, or
    /// a request timeout later at most).
    pub(crate) fn release_hold(&mut self, now: Millis) {
        if let Some(h) = self.session.hold(now) {
            return self.timers.set(Timer::Hold, h);
        }
        self.session.end_hold();
        if !self.session.is_ready() {
            return self.connect(now);
        }
        if self.session.take_hold_probe() {
            return self.drain_held(now);
        }
        let mut waiting = self.waiting_requests().into_iter();
        for p in waiting.by_ref() {
            let before = self.reqs.last_id();
            self.dispatch(now, p);
            if self.reqs.last_id() != before {
                let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
                let n = self.reqs.last_id();
                self.session.hold_probe_sent(n, at, &mut self.timers);
                break;
            }
        }
        self.session.wait_all(waiting);
        if !self.session.hold_probing() {
            self.listen_changed(now);
        }
    }

    /// Sends everything that waited, unless a new hold came.
    pub(crate) fn drain_held(&mut self, now: Millis) {
        self.session.start_drain();
        if self.session.gated() || !self.session.is_ready() {
            return;
        }
        self.timers.clear(&Timer::Hold);
        for p in self.waiting_requests() {
            // A poll that waited beside its task's held result is moot once the result went.
            match &p {
                Purpose::Get(t) if self.poll_moot_beside_result(now, t) => {}
                _ => self.dispatch(now, p),
            }
        }
        self.listen_changed(now);
    }

    /// The session queue, without polls made moot while waiting: a finished task whose outcome
    /// comes from `tasks/result` needs no status request.
    fn waiting_requests(&mut self) -> Vec<Purpose> {
        let fetches = self.session.fetches_results();
        let mut queue = self.session.take_waiting();
        keep_waiting(&mut queue, &mut |p| {
            let Purpose::Get(t) = p else { return true };
            match self.tasks.get_mut(t) {
                Some(e) if fetches && e.is_terminal() => {
                    e.poll.in_flight = false;
                    false
                }
                _ => true,
            }
        });
        queue
    }

    /// Answers at once a request the server is known not to serve. Returns whether it did.
    fn refuse_absent(&mut self, now: Millis, p: &Purpose) -> bool {
        let Some(error) = self.session.absent(p) else {
            return false;
        };
        match p {
            Purpose::Get(t) => self.no_status(now, t, error),
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => self.reply(*op, Err(error)),
            _ => {}
        }
        true
    }

    /// Task status cannot be had: a task whose `tasks/result` is in flight still ends through
    /// it (no more polls); every other watcher of the task ends now.
    pub(crate) fn no_status(&mut self, now: Millis, task_id: &str, error: ClientError) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.poll.in_flight = false;
        if self.session.fetches_results() && entry.result.req().is_some() {
            return;
        }
        self.drop_task_failing(now, task_id, error);
    }

    /// `subscriptions/listen` failed: the host hears once when pushes are off for the session.
    pub(crate) fn listen_refused(&mut self, f: &Failure, refusals: u32) {
        if let Some(warning) = self.session.listen_refused(f, refusals) {
            self.warn(None, warning);
        }
    }

    /// Sends now when the session is ready (and no hold keeps `p` back), else queues until it
    /// is; a request the server is known not to serve is answered at once.
    pub(crate) fn dispatch(&mut self, now: Millis, p: Purpose) {
        if self.closed || self.refuse_absent(now, &p) {
            return;
        }
        match self
            .session
            .ready_codec()
            .filter(|_| !self.session.held(&p))
        {
            Some(codec) => self.send_ready(now, codec, p),
            None => {
                self.session.wait(p);
                // After a refusal nothing will open the session: what is asked fails at once.
                if let Some(error) = self.session.refused() {
                    self.fail_queue(now, &error, true);
                }
            }
        }
    }

    /// Request `n` was answered `status` (401 or 403) with this `WWW-Authenticate` header: sent
    /// once more when the credentials can change, else failed (see `unauthorized.rs`).
    pub(crate) fn unauthorized(
        &mut self,
        now: Millis,
        n: ReqId,
        status: u16,
        www_authenticate: Option<String>,
    ) {
        let Some(p) = self.reqs.get_mut(n) else {
            return;
        };
        // The body is the refusal, not an answer: stop reading it.
        let key = p.key;
        self.out.push_back(Output::Abort { key });
        // Resent only when something can change the credentials (a header provider, OAuth).
        let renews = self.cfg.renews_credentials && !matches!(p.purpose, Purpose::Listen);
        match unauthorized::again(status, &www_authenticate, renews, p.resent) {
            Some(resent) if p.stream.resumed => {
                p.resent = resent;
                self.reqs.end_key(key);
                self.resume_stream(n)
            }
            Some(resent) => {
                if let Some(p) = self.take_pending(n) {
                    self.resend(now, p.purpose, resent);
                }
            }
            None => self.fail(now, n, unauthorized::refused(status, www_authenticate)),
        }
    }

    /// Request `n` was answered 403 without a `WWW-Authenticate` challenge.
    pub(crate) fn forbidden(&mut self, now: Millis, n: ReqId) {
        let Some(p) = self.reqs.get_mut(n) else {
            return;
        };
        let key = p.key;
        self.out.push_back(Output::Abort { key });
        self.fail(now, n, unauthorized::forbidden());
    }

    /// Sends a refused request again, marked with why (a second 401 fails it).
    fn resend(&mut self, now: Millis, purpose: Purpose, resent: Resent) {
        self.reqs.set_resending(resent);
        match purpose {
            Purpose::Probe => self.connect(now),
            Purpose::Initialize => match self.session.init_codec() {
                Some(c) => self.open_with(now, c),
                None => self.connect(now),
            },
            other => self.dispatch(now, other),
        }
        self.reqs.set_resending(Resent::default());
    }

    /// An engine continuing the established session `s` instead of opening a new one (a new
    /// leader tab, a reloaded page): ready at once in the snapshot's dialect, with its session id
    /// and capabilities; nothing is sent to open it. `None` when the snapshot does not fit
    /// `config`'s dialect choice. A session that died meanwhile is noticed on the first request
    /// (404) and re-initialized as usual.
    pub fn resume(config: Config, seed: u64, now: Millis, s: &SessionSnapshot) -> Option<Engine> {
        Engine::resumed(config, Rng::new(seed), now, s)
    }

    fn resumed(config: Config, rng: Rng, now: Millis, s: &SessionSnapshot) -> Option<Engine> {
        let fits = match config.dialect {
            DialectChoice::Auto => true,
            DialectChoice::Modern => s.dialect == Dialect::Modern,
            DialectChoice::Legacy => s.dialect == Dialect::Legacy,
            DialectChoice::Draft => s.dialect == Dialect::Draft,
        };
        if !fits {
            return None;
        }
        let mut engine = Engine::idle(config, rng);
        let tasks = match s.dialect {
            Dialect::Modern => Some(has_tasks_extension(&s.capabilities)),
            Dialect::Legacy | Dialect::Draft => {
                let session_id = s.session_id.as_deref();
                engine
                    .session
                    .continue_handshake(&s.protocol_version, session_id);
                None
            }
        };
        let (caps, info) = (s.capabilities.clone(), s.server_info.clone());
        engine.become_ready(now, codec(s.dialect)?, caps, info, tasks);
        Some(engine)
    }

    /// The established session, once ready (`server_info` comes from the `Connected` event).
    pub fn session_snapshot(&self, server_info: Value) -> Option<SessionSnapshot> {
        if !self.session.is_ready() {
            return None;
        }
        Some(SessionSnapshot {
            dialect: self.dialect()?,
            protocol_version: self.session.protocol_version().to_owned(),
            session_id: self.session.session_id().map(str::to_owned),
            capabilities: self.session.server_caps().clone(),
            server_info,
        })
    }

    /// Replaces this engine, fresh from [`Engine::new`], with one that continues `s` (see
    /// [`Engine::resume`]; the same configuration and generator). Returns `false`, leaving the
    /// engine as it was, when the snapshot does not fit the dialect choice.
    pub fn adopt_session(&mut self, now: Millis, s: &SessionSnapshot) -> bool {
        match Engine::resumed(self.cfg.clone(), self.rng.clone(), now, s) {
            Some(resumed) => {
                *self = resumed;
                true
            }
            None => false,
        }
    }

    /// Ends this engine like [`Engine::close`] but leaves the server session open (no `DELETE`):
    /// another engine adopts it. Live subscriptions still get `Done{Failed: Closed}`.
    pub fn detach(&mut self, _now: Millis) {
        self.shut(false);
    }
}
