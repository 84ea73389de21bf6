//! The session: the handshake, capabilities, the legacy session id, re-initialization when a
//! legacy session dies, and the queue of requests made before the session is ready. Which era to
//! open is decided in `negotiate.rs`.

pub(super) mod absent;
pub(super) mod detect;
pub(super) mod deviations;
pub(super) mod hold;
pub(super) mod initialized;
pub(super) mod negotiate;
pub(super) mod quirks;
pub(super) mod unauthorized;

use crate::json::Value;

use super::ids::{ReqId, Slot};
use crate::protocol::dialect::{Codec, SessionInfo};
use crate::protocol::model::Dialect;
use crate::protocol::object;
use deviations::{Deviation, Deviations};

use super::api::{ClientError, Config, DialectChoice, ErrorKind, Event, Link, Millis, SendKey};
use super::requests::{Failure, Purpose};
use super::scheduler::cadence;
use super::scheduler::Timer;
use super::Engine;
use crate::protocol::headers::METHOD;
use negotiate::{offers_tasks, Discovered, MODERN_VERSION};
use quirks::{Quirk, Quirks, TaskMethod};

/// Connect failures from an overloaded server (429/5xx) retried before the host hears of them.
const QUIET_CONNECT_RETRIES: u32 = 2;
/// A session that dies sooner than this after being made died "right after" it.
const SHORT_LIFE_MS: Millis = 10_000;
/// Sessions in a row dying right after being made that diagnose a balancer without affinity.
const NO_AFFINITY_LIVES: u32 = 3;
const NO_AFFINITY: &str =
    "sessions do not survive between requests: the server is behind a balancer without affinity";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Connecting,
    Ready,
}

/// What the engine knows about the connection to its server.
pub(crate) struct Session {
    pub(crate) choice: DialectChoice,
    /// The era an earlier negotiation settled on (`Auto` only; dropped once it failed).
    pub(crate) hint: Option<Dialect>,
    /// A well-formed modern discover answer without tasks, kept while `initialize` is tried.
    pub(crate) discovered: Option<Discovered>,
    /// The negotiated era offers tasks (modern: the extension, or unknown; legacy: `tasks`).
    pub(crate) tasks: bool,
    /// What the server was seen to lack or do differently.
    pub(crate) quirks: Quirks,
    /// The server's `serverInfo` (modern: also from any response's `_meta`).
    pub(crate) server_info: Value,
    /// Connecting was refused for good (a forced dialect the server or the build does not
    /// speak): why.
    pub(crate) refused: Option<ClientError>,
    /// The dialect in use (kept across re-initialization).
    pub(crate) codec: Option<&'static dyn Codec>,
    /// The dialect an `initialize` in flight is for.
    pub(crate) init_codec: Option<&'static dyn Codec>,
    phase: Phase,
    pub(crate) protocol_version: String,
    client_info: Value,
    client_caps: Value,
    pub(crate) session_id: Option<String>,
    pub(crate) server_caps: Value,
    /// The session was opened with `initialize` (legacy, draft).
    pub(crate) handshake: bool,
    /// Bumped on every re-initialization.
    pub(crate) epoch: u64,
    connect_errors: u32,
    /// Requests waiting for the session.
    pub(crate) queue: Vec<Purpose>,
    /// The (WebSocket) link went down and has not come back yet.
    pub(crate) link_down: bool,
    /// The server asked for quiet (`Retry-After`) until then (see `hold.rs`).
    pub(crate) hold_until: Option<Millis>,
    /// The one request sent after a hold, before the others.
    pub(crate) hold_probe: Option<ReqId>,
    /// The others may go (checked before the next output).
    pub(crate) drain: bool,
    /// The `initialized` notification awaiting its answer: requests wait (see `initialized.rs`).
    pub(crate) initialized_pending: Option<SendKey>,
    /// Asking for a task changes the request in this dialect (modern: the server decides alone).
    pub(crate) augments: bool,
    /// The dialect fetches outcomes with `tasks/result` (modern carries them inline).
    pub(crate) fetches_results: bool,
    /// The dialect needs an explicit opt-in for status pushes (modern `subscriptions/listen`).
    pub(crate) listens: bool,
    /// Deviations from the protocol said (or waiting to be said) to the host.
    pub(crate) deviations: Deviations,
    /// A request carrying `Mcp-Method` got an HTTP response: no CORS allow-list refuses it.
    pub(crate) method_header_passes: bool,
    /// Some request got an HTTP response.
    pub(crate) reached: bool,
    /// The probe got no response in a page (a CORS refusal looks like that).
    pub(crate) probe_unreached: bool,
    /// Forced modern without tasks: the server's 2025-11-25 era offers them.
    pub(crate) legacy_tasks: bool,
    /// When the session was last made ready.
    ready_at: Millis,
    /// Sessions in a row that died right after they were made.
    short_lives: u32,
    /// The first task slot of this session: tasks in lower slots were tracked before it.
    pub(crate) first_slot: Slot,
}

impl Session {
    pub(crate) fn new(cfg: &Config) -> Self {
        let hint = cfg.known_era.filter(|_| cfg.dialect == DialectChoice::Auto);
        Self {
            choice: cfg.dialect,
            hint,
            discovered: None,
            tasks: false,
            quirks: Quirks::default(),
            server_info: Value::Null,
            refused: None,
            codec: None,
            init_codec: None,
            phase: Phase::Connecting,
            protocol_version: String::new(),
            client_info: object([
                ("name", Value::from(cfg.client_name.as_str())),
                ("version", Value::from(cfg.client_version.as_str())),
            ]),
            client_caps: cfg.client_capabilities.clone(),
            session_id: None,
            server_caps: Value::Null,
            handshake: false,
            epoch: 0,
            connect_errors: 0,
            queue: Vec::new(),
            link_down: false,
            hold_until: None,
            hold_probe: None,
            drain: false,
            initialized_pending: None,
            augments: false,
            fetches_results: false,
            listens: false,
            deviations: Deviations::default(),
            method_header_passes: false,
            reached: false,
            probe_unreached: false,
            legacy_tasks: false,
            ready_at: 0,
            short_lives: 0,
            first_slot: Slot::FIRST,
        }
    }

    pub(crate) fn info(&self) -> SessionInfo<'_> {
        SessionInfo {
            protocol_version: &self.protocol_version,
            client_info: &self.client_info,
            client_capabilities: &self.client_caps,
            session_id: self.session_id.as_deref(),
        }
    }

    /// Whether the server offers tasks in this session.
    pub(crate) fn offers_tasks(&self) -> bool {
        self.tasks
    }

    /// The server's declared capabilities.
    pub(crate) fn server_caps(&self) -> &Value {
        &self.server_caps
    }

    /// The legacy `Mcp-Session-Id`, when the server gave one.
    pub(crate) fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The session generation (bumped on every re-initialization).
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Asking for a task changes the request in this dialect.
    pub(crate) fn augments(&self) -> bool {
        self.augments
    }

    /// The dialect fetches outcomes with `tasks/result` (modern carries them inline).
    pub(crate) fn fetches_results(&self) -> bool {
        self.fetches_results
    }

    /// The dialect needs an explicit opt-in for status pushes.
    pub(crate) fn listens(&self) -> bool {
        self.listens
    }

    /// Requests held back by a hold may go now (checked before the next output).
    pub(crate) fn draining(&self) -> bool {
        self.drain
    }

    /// The (WebSocket) link is down.
    pub(crate) fn link_down(&self) -> bool {
        self.link_down
    }

    /// The (WebSocket) link went down.
    pub(crate) fn link_lost(&mut self) {
        self.link_down = true;
    }

    /// The (WebSocket) link is up: whether it had been down.
    pub(crate) fn link_back(&mut self) -> bool {
        std::mem::take(&mut self.link_down)
    }

    /// `p` waits for the session to be ready.
    pub(crate) fn wait(&mut self, p: Purpose) {
        self.queue.push(p);
    }

    /// The requests waiting for the session.
    pub(crate) fn waiting(&self) -> impl Iterator<Item = &Purpose> {
        self.queue.iter()
    }

    /// Drops the waiting requests `gone` says are no longer wanted.
    pub(crate) fn drop_waiting(&mut self, gone: impl Fn(&Purpose) -> bool) {
        keep_waiting(&mut self.queue, &mut |p| !gone(p));
    }

    pub(crate) fn is_ready(&self) -> bool {
        self.phase == Phase::Ready
    }

    /// The codec, when requests can go out now.
    pub(crate) fn ready_codec(&self) -> Option<&'static dyn Codec> {
        self.codec.filter(|_| self.is_ready())
    }

    /// The codec in use, also while re-initializing (to read late answers).
    pub(crate) fn codec_any(&self) -> Option<&'static dyn Codec> {
        self.codec
    }

    pub(crate) fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The session's dialect (out of line: asked from a dozen places, each would hold the
    /// dynamic call).
    #[inline(never)]
    pub(crate) fn dialect(&self) -> Option<Dialect> {
        self.codec.map(|c| c.dialect())
    }

    /// `MCP-Protocol-Version` and `Mcp-Session-Id` (the legacy GET stream and `DELETE`).
    pub(crate) fn session_headers(&self) -> Vec<(String, String)> {
        crate::protocol::dialect::session_headers(&self.info())
    }

    /// Headers for the `DELETE` that ends a legacy HTTP session, if there is one.
    /// Continues a session another engine opened with `initialize`: its protocol version and
    /// session id (the server knows this client already: no handshake is sent).
    pub(crate) fn continue_handshake(&mut self, protocol_version: &str, session_id: Option<&str>) {
        self.handshake = true;
        self.protocol_version = protocol_version.to_owned();
        self.session_id = session_id.filter(|s| !s.is_empty()).map(str::to_owned);
    }

    pub(crate) fn end_session_headers(&self) -> Option<Vec<(String, String)>> {
        (self.handshake && self.session_id.is_some()).then(|| self.session_headers())
    }
}

impl Engine {
    /// Starts (or restarts) establishing the session.
    pub(crate) fn connect(&mut self, now: Millis) {
        if self.closed
            || self.session.refused.is_some()
            || self.session.is_ready()
            || self.connect_in_flight()
        {
            return;
        }
        if let Some(h) = self.hold(now) {
            return self.timers.set(Timer::Connect, h);
        }
        self.timers.clear(&Timer::Connect);
        if let Some(c) = self.session.codec {
            return self.open_with(now, c);
        }
        self.negotiate(now);
    }

    fn connect_in_flight(&self) -> bool {
        self.reqs
            .purposes()
            .any(|p| matches!(p, Purpose::Probe | Purpose::Initialize))
    }

    /// `initialize` for dialects with a handshake; ready at once for those without.
    ///
    /// `initialize` carries `Mcp-Method` (which 2026-07-28 servers check) only where it cannot
    /// cost the connection: on Node (no CORS), or once a request carrying it got an HTTP response
    /// (the probe: the browser's preflight let it through). A page's server whose CORS allow-list
    /// names only the 2025-11-25 headers refuses the preflight of a request carrying it, and the
    /// refusal looks like a network failure: after a probe that failed that way, or with no probe
    /// (a remembered legacy era, a forced legacy or draft dialect), the header is left off.
    pub(crate) fn open_with(&mut self, now: Millis, c: &'static dyn Codec) {
        self.session.protocol_version.clear();
        self.session.session_id = None;
        match c.build_initialize(&self.session.info()) {
            Some(mut out) => {
                if self.session.method_header_passes || self.cfg.link == Link::Node {
                    out.headers.push((METHOD.to_owned(), out.method.clone()));
                }
                self.session.init_codec = Some(c);
                self.send(now, Purpose::Initialize, out);
            }
            // No handshake (modern): what earlier answers said still holds.
            None => {
                let caps = self.session.server_caps.clone();
                let tasks = self.session.codec.map(|_| self.session.tasks);
                self.become_ready(now, c, caps, Value::Null, tasks)
            }
        }
    }

    /// The session is open in `c`'s dialect. `tasks`: whether it offers tasks, when the caller
    /// knows (modern: the discover answer); `None` reads it from `caps` (legacy `tasks`) or, for
    /// modern without evidence and the draft, assumes it.
    pub(crate) fn become_ready(
        &mut self,
        now: Millis,
        c: &'static dyn Codec,
        caps: Value,
        info: Value,
        tasks: Option<bool>,
    ) {
        let modern = c.dialect() == Dialect::Modern;
        if modern {
            self.session.protocol_version = MODERN_VERSION.to_owned();
            self.session.session_id = None;
            self.session.handshake = false;
        }
        self.session.codec = Some(c);
        self.session.phase = Phase::Ready;
        self.session.ready_at = now;
        self.session.connect_errors = 0;
        self.session.discovered = None;
        // Draft tasks are named by the requestor and need not be declared.
        let draft = super::DRAFT && c.dialect() == Dialect::Draft;
        self.session.tasks = tasks.unwrap_or_else(|| modern || draft || offers_tasks(&caps));
        self.session.server_caps = caps;
        if !info.is_null() {
            self.session.server_info = info;
        }
        self.session.augments = c.asks_for_tasks();
        self.session.fetches_results = c.build_result(&self.session.info(), "probe").is_some();
        self.session.listens = self.cfg.subscribe
            && c.build_listen(&self.session.info(), &[]).is_some()
            && !self.session.quirks.has(Quirk::Lacks(TaskMethod::Listen));
        self.announce();
        self.say_deviations();
        if self.session.handshake && self.cfg.link != Link::WebSocket {
            let headers = self.session.session_headers();
            self.listen_standalone(headers);
        }
        for p in std::mem::take(&mut self.session.queue) {
            self.dispatch(now, p);
        }
        self.listen_changed(now);
    }

    /// Tells the host what the session is (again, when something new about it was learnt).
    pub(crate) fn announce(&mut self) {
        let Some(dialect) = self.session.dialect() else {
            return;
        };
        self.emit(Event::Connected {
            dialect,
            protocol_version: self.session.protocol_version.clone(),
            server_info: self.session.server_info.clone(),
            capabilities: self.session.server_caps.clone(),
        });
    }

    /// The legacy session is gone (404): open a new one; every task stays tracked. A session that
    /// dies within [`SHORT_LIFE_MS`] of being made counts toward a streak: from the second such
    /// death in a row the new one waits out a growing backoff, and the third is diagnosed (once)
    /// as a balancer without affinity. Only the first death of a streak is warned as an expiry.
    pub(crate) fn reinitialize(&mut self, now: Millis) {
        let Some(c) = self.session.codec else { return };
        let short = now.saturating_sub(self.session.ready_at) < SHORT_LIFE_MS;
        let lives = if short {
            self.session.short_lives.saturating_add(1)
        } else {
            1
        };
        self.session.short_lives = lives;
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
        match self.hold(now).max(backoff) {
            Some(at) => self.timers.set(Timer::Connect, at),
            None => self.open_with(now, c),
        }
    }

    /// Task `task_id` was tracked before the current session began: a server that no longer
    /// knows it forgot it with the session it outlived.
    pub(crate) fn outlived_session(&self, task_id: &str) -> bool {
        let first = self.session.first_slot;
        self.tasks.get(task_id).is_some_and(|e| e.slot < first)
    }

    /// A new session begins (a new epoch): tasks tracked so far outlived the old one.
    fn renew_session(&mut self) {
        self.session.epoch += 1;
        self.session.phase = Phase::Connecting;
        self.session.first_slot = self.tasks.next_slot();
    }

    /// The (WebSocket) link is back: a handshake session without an id lived on the old socket.
    pub(crate) fn reconnected(&mut self, now: Millis) {
        if self.session.is_ready() && self.session.handshake && self.session.session_id.is_none() {
            self.renew_session();
            if let Some(c) = self.session.codec {
                self.open_with(now, c);
            }
        } else if !self.session.is_ready() {
            self.connect(now);
        }
        self.last_catch_up = None;
        self.catch_up(now);
    }

    /// Establishing the session failed; `fatal` = the server refused (queued calls fail now).
    /// An overloaded server (429/5xx) is asked again a few times before the host hears of it.
    pub(crate) fn connect_failed(&mut self, now: Millis, failure: &Failure, fatal: bool) {
        let error = failure.client_error();
        let retry_after = failure.retry_after();
        self.session.connect_errors = self.session.connect_errors.saturating_add(1);
        let quiet =
            !fatal && failure.overloaded() && self.session.connect_errors <= QUIET_CONNECT_RETRIES;
        if !quiet {
            self.warn(None, error.clone());
        }
        if fatal {
            self.fail_queue(now, &error, false);
        }
        let delay = cadence::error_delay(
            &mut self.rng,
            self.session.connect_errors,
            retry_after,
            None,
        );
        self.timers.set(Timer::Connect, now.saturating_add(delay));
    }

    /// The server cannot serve the dialect asked for: the host hears why, everything waiting
    /// fails, and connecting stops for good.
    pub(crate) fn connect_refused(&mut self, now: Millis, message: &str) {
        let error = ClientError::new(ErrorKind::Unsupported, message);
        self.session.refused = Some(error.clone());
        self.timers.clear(&Timer::Connect);
        self.warn(None, error.clone());
        self.fail_queue(now, &error, true);
    }

    /// Fails the caller's queued operations with `error`; `all` also ends queued watches.
    pub(crate) fn fail_queue(&mut self, now: Millis, error: &ClientError, all: bool) {
        // What stays is queued again before anything fails (failing may queue more behind it).
        let mut fail = Vec::new();
        for p in std::mem::take(&mut self.session.queue) {
            let fails = all
                || matches!(
                    p,
                    Purpose::Call(_)
                        | Purpose::List { .. }
                        | Purpose::Cancel { .. }
                        | Purpose::Tools { .. }
                );
            match fails {
                true => fail.push(p),
                false => self.session.queue.push(p),
            }
        }
        for p in fail {
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
}

/// Keeps the waiting requests `keep` says yes to, in order (one `retain` in the binary for its
/// callers).
pub(crate) fn keep_waiting(queue: &mut Vec<Purpose>, keep: &mut dyn FnMut(&Purpose) -> bool) {
    queue.retain(|p| keep(p));
}
