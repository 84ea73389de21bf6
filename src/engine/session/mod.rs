//! The session: the handshake, capabilities, the legacy session id, re-initialization when a
//! legacy session dies, and the queue of requests made before the session is ready. Which era to
//! open is decided in `negotiate.rs`.

pub(super) mod absent;
pub(super) mod connect;
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
use deviations::Deviations;

use super::api::{ClientError, Config, DialectChoice, Event, Millis, SendKey};
use super::requests::{Failure, Purpose};
use crate::protocol::dialect::Outgoing;
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
    choice: DialectChoice,
    /// The era an earlier negotiation settled on (`Auto` only; dropped once it failed).
    hint: Option<Dialect>,
    /// A well-formed modern discover answer without tasks, kept while `initialize` is tried.
    discovered: Option<Box<Discovered>>,
    /// The negotiated era offers tasks (modern: the extension, or unknown; legacy: `tasks`).
    tasks: bool,
    /// What the server was seen to lack or do differently (the calls and the registry learn
    /// some of it too).
    pub(super) quirks: Quirks,
    /// The server's `serverInfo` (modern: also from any response's `_meta`).
    server_info: Value,
    /// Connecting was refused for good (a forced dialect the server or the build does not
    /// speak): why.
    refused: Option<ClientError>,
    /// The dialect in use (kept across re-initialization).
    codec: Option<&'static dyn Codec>,
    /// The dialect an `initialize` in flight is for.
    init_codec: Option<&'static dyn Codec>,
    phase: Phase,
    protocol_version: String,
    client_info: Value,
    client_caps: Value,
    session_id: Option<String>,
    server_caps: Value,
    /// The session was opened with `initialize` (legacy, draft).
    handshake: bool,
    /// Bumped on every re-initialization.
    epoch: u64,
    connect_errors: u32,
    /// Requests waiting for the session.
    queue: Vec<Purpose>,
    /// The (WebSocket) link went down and has not come back yet.
    link_down: bool,
    /// The server asked for quiet (`Retry-After`) until then (see `hold.rs`).
    hold_until: Option<Millis>,
    /// The one request sent after a hold, before the others.
    hold_probe: Option<ReqId>,
    /// The others may go (checked before the next output).
    drain: bool,
    /// The `initialized` notification awaiting its answer: requests wait (see `initialized.rs`).
    initialized_pending: Option<SendKey>,
    /// Asking for a task changes the request in this dialect (modern: the server decides alone).
    augments: bool,
    /// The dialect fetches outcomes with `tasks/result` (modern carries them inline).
    fetches_results: bool,
    /// The dialect needs an explicit opt-in for status pushes (modern `subscriptions/listen`).
    listens: bool,
    /// Deviations from the protocol said (or waiting to be said) to the host.
    deviations: Deviations,
    /// A request carrying `Mcp-Method` got an HTTP response: no CORS allow-list refuses it.
    method_header_passes: bool,
    /// Some request got an HTTP response.
    reached: bool,
    /// The probe got no response in a page (a CORS refusal looks like that).
    probe_unreached: bool,
    /// Forced modern without tasks: the server's 2025-11-25 era offers them.
    legacy_tasks: bool,
    /// When the session was last made ready.
    ready_at: Millis,
    /// Sessions in a row that died right after they were made.
    short_lives: u32,
    /// The first task slot of this session: tasks in lower slots were tracked before it.
    first_slot: Slot,
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
    pub(super) fn offers_tasks(&self) -> bool {
        self.tasks
    }

    /// The server's declared capabilities.
    pub(super) fn server_caps(&self) -> &Value {
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
    pub(super) fn augments(&self) -> bool {
        self.augments
    }

    /// The dialect fetches outcomes with `tasks/result` (modern carries them inline).
    pub(super) fn fetches_results(&self) -> bool {
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
    pub(super) fn link_down(&self) -> bool {
        self.link_down
    }

    /// The (WebSocket) link went down.
    fn link_lost(&mut self) {
        self.link_down = true;
    }

    /// The (WebSocket) link is up: whether it had been down.
    fn link_back(&mut self) -> bool {
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
    pub(super) fn drop_waiting(&mut self, gone: impl Fn(&Purpose) -> bool) {
        keep_waiting(&mut self.queue, &mut |p| !gone(p));
    }

    pub(super) fn is_ready(&self) -> bool {
        self.phase == Phase::Ready
    }

    /// The codec, when requests can go out now.
    pub(super) fn ready_codec(&self) -> Option<&'static dyn Codec> {
        self.codec.filter(|_| self.is_ready())
    }

    /// The codec in use, also while re-initializing (to read late answers).
    pub(super) fn codec_any(&self) -> Option<&'static dyn Codec> {
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
    fn continue_handshake(&mut self, protocol_version: &str, session_id: Option<&str>) {
        self.handshake = true;
        self.protocol_version = protocol_version.to_owned();
        self.session_id = session_id.filter(|s| !s.is_empty()).map(str::to_owned);
    }

    pub(super) fn end_session_headers(&self) -> Option<Vec<(String, String)>> {
        (self.handshake && self.session_id.is_some()).then(|| self.session_headers())
    }
}

/// A step of the negotiation, for the engine to take.
enum Step {
    /// Ready in the modern era (with the discover answer, when there was a well-formed one).
    Modern(Option<Box<Discovered>>),
    /// `initialize` in this dialect.
    Open(&'static dyn Codec),
    /// `server/discover` went unanswered (a deviation): `initialize` in the legacy dialect.
    Unanswered,
    /// `server/discover`.
    Probe,
    /// Connecting is refused for good, saying why.
    Refuse(&'static str),
    /// This attempt failed; `fatal`: the server refused (queued calls fail now).
    Failed(Box<Failure>, bool),
}

impl Session {
    /// Whether connecting may start: not refused for good, not ready already.
    fn may_connect(&self) -> bool {
        self.refused.is_none() && !self.is_ready()
    }

    /// Why connecting was refused for good, if it was.
    fn refused(&self) -> Option<ClientError> {
        self.refused.clone()
    }

    /// The session was opened with `initialize` (legacy, draft).
    fn handshake(&self) -> bool {
        self.handshake
    }

    /// The dialect an `initialize` in flight is for.
    fn init_codec(&self) -> Option<&'static dyn Codec> {
        self.init_codec
    }

    /// Some request got an HTTP response.
    pub(crate) fn reached(&mut self) {
        self.reached = true;
    }

    /// A request carrying `Mcp-Method` got an HTTP response: no CORS allow-list refuses it.
    pub(super) fn method_header_passed(&mut self) {
        self.method_header_passes = true;
    }

    /// Requests carrying the 2026-07-28 headers got no HTTP response while others did.
    pub(super) fn modern_headers_refused(&self) -> bool {
        self.reached && !self.method_header_passes
    }

    /// The probe got no response in a page while requests without `Mcp-Method` got one.
    pub(super) fn probe_refused(&self) -> bool {
        self.probe_unreached && !self.method_header_passes
    }

    /// The first task slot of this session: tasks in lower slots were tracked before it.
    fn first_slot(&self) -> Slot {
        self.first_slot
    }

    /// The `initialize` request of `c`'s dialect (none: the dialect has no handshake), noting
    /// the dialect it is for. `node`: no CORS can refuse `Mcp-Method`.
    ///
    /// `initialize` carries `Mcp-Method` (which 2026-07-28 servers check) only where it cannot
    /// cost the connection: on Node (no CORS), or once a request carrying it got an HTTP response
    /// (the probe: the browser's preflight let it through). A page's server whose CORS allow-list
    /// names only the 2025-11-25 headers refuses the preflight of a request carrying it, and the
    /// refusal looks like a network failure: after a probe that failed that way, or with no probe
    /// (a remembered legacy era, a forced legacy or draft dialect), the header is left off.
    fn initialize(&mut self, c: &'static dyn Codec, node: bool) -> Option<Outgoing> {
        self.protocol_version.clear();
        self.session_id = None;
        let mut out = c.build_initialize(&self.info());
        if let Some(out) = &mut out {
            if self.method_header_passes || node {
                out.headers.push((METHOD.to_owned(), out.method.clone()));
            }
            self.init_codec = Some(c);
        }
        out
    }

    /// What earlier answers said of the server, for a dialect without a handshake: its
    /// capabilities, and whether it offers tasks (when a dialect was in use).
    fn known_caps(&self) -> (Value, Option<bool>) {
        (self.server_caps.clone(), self.codec.map(|_| self.tasks))
    }

    /// The session is open in `c`'s dialect. `tasks`: whether it offers tasks, when the caller
    /// knows (modern: the discover answer); `None` reads it from `caps` (legacy `tasks`) or, for
    /// modern without evidence and the draft, assumes it. `subscribe`: the caller wants pushes.
    fn ready(
        &mut self,
        now: Millis,
        c: &'static dyn Codec,
        caps: Value,
        info: Value,
        tasks: Option<bool>,
        subscribe: bool,
    ) {
        let modern = c.dialect() == Dialect::Modern;
        if modern {
            self.protocol_version = MODERN_VERSION.to_owned();
            self.session_id = None;
            self.handshake = false;
        }
        self.codec = Some(c);
        self.phase = Phase::Ready;
        self.ready_at = now;
        self.connect_errors = 0;
        self.discovered = None;
        // Draft tasks are named by the requestor and need not be declared.
        let draft = super::DRAFT && c.dialect() == Dialect::Draft;
        self.tasks = tasks.unwrap_or_else(|| modern || draft || offers_tasks(&caps));
        self.server_caps = caps;
        if !info.is_null() {
            self.server_info = info;
        }
        self.augments = c.asks_for_tasks();
        self.fetches_results = c.build_result(&self.info(), "probe").is_some();
        self.listens = subscribe
            && c.build_listen(&self.info(), &[]).is_some()
            && !self.quirks.has(Quirk::Lacks(TaskMethod::Listen));
    }

    /// What the host hears of the session (again, when something new about it was learnt).
    fn connected(&self, dialect: Dialect) -> Event {
        Event::Connected {
            dialect,
            protocol_version: self.protocol_version.clone(),
            server_info: self.server_info.clone(),
            capabilities: self.server_caps.clone(),
        }
    }

    /// The legacy session died at `now`: how many sessions in a row (this one included) died
    /// within [`SHORT_LIFE_MS`] of being made.
    fn died(&mut self, now: Millis) -> u32 {
        let short = now.saturating_sub(self.ready_at) < SHORT_LIFE_MS;
        self.short_lives = match short {
            true => self.short_lives.saturating_add(1),
            false => 1,
        };
        self.short_lives
    }

    /// A new session begins (a new epoch) at task slot `next_slot`: tasks tracked so far
    /// outlived the old one.
    fn renew(&mut self, next_slot: Slot) {
        self.epoch += 1;
        self.phase = Phase::Connecting;
        self.first_slot = next_slot;
    }

    /// A handshake session without an id lived on the (WebSocket) link that went down.
    fn lived_on_link(&self) -> bool {
        self.is_ready() && self.handshake && self.session_id.is_none()
    }

    /// Establishing the session failed once more: how many times in a row, and whether the host
    /// is spared hearing of it (`retriable`: an overloaded server, not a refusal; it is asked
    /// again a few times first).
    fn connect_error(&mut self, retriable: bool) -> (u32, bool) {
        self.connect_errors = self.connect_errors.saturating_add(1);
        let quiet = retriable && self.connect_errors <= QUIET_CONNECT_RETRIES;
        (self.connect_errors, quiet)
    }

    /// Connecting is refused for good with `error`.
    fn refuse(&mut self, error: ClientError) {
        self.refused = Some(error);
    }

    /// Takes the waiting requests that fail when connecting fails: the caller's operations
    /// (`all`: also queued watches). The others keep waiting.
    fn take_failing(&mut self, all: bool) -> Vec<Purpose> {
        let mut fail = Vec::new();
        for p in std::mem::take(&mut self.queue) {
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
                false => self.queue.push(p),
            }
        }
        fail
    }

    /// Takes every waiting request.
    fn take_waiting(&mut self) -> Vec<Purpose> {
        std::mem::take(&mut self.queue)
    }

    /// Forgets every waiting request.
    pub(super) fn clear_waiting(&mut self) {
        self.queue.clear();
    }
}

/// Keeps the waiting requests `keep` says yes to, in order (one `retain` in the binary for its
/// callers).
fn keep_waiting(queue: &mut Vec<Purpose>, keep: &mut dyn FnMut(&Purpose) -> bool) {
    queue.retain(|p| keep(p));
}
