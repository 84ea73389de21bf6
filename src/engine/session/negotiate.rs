//! Era negotiation by evidence. The outcome is the era in which the server offers tasks.
//!
//! `Auto`:
//! - `server/discover` first. A well-formed answer (`supportedVersions` listing 2026-07-28, a
//!   `capabilities` object) advertising the tasks extension means modern. A modern-only error
//!   (-32020/-32021, or -32022 listing 2026-07-28) means modern too.
//! - A well-formed answer without the extension: `initialize` decides. Legacy when it offers
//!   tasks; else modern (the best era the server speaks; the legacy session is ended).
//! - Anything else (any HTTP 4xx/5xx such as 400 "Server not initialized", a body that is not
//!   JSON-RPC, -32601, a permissive `{}`, a network-level failure — in a browser a CORS refusal
//!   looks like one — or silence past [`crate::engine::requests::PROBE_TIMEOUT_MS`]): `initialize`. A body that is not
//!   JSON-RPC and silence are deviations, said once the session is up.
//!   An `initialize` refused with -32022 listing only 2026-07-28 means modern.
//! - A known era from an earlier negotiation (`Config::known_era`): legacy sends `initialize`
//!   first and no probe; modern takes a well-formed discover answer as final. When the hinted
//!   attempt fails, the full negotiation runs.
//!
//! Forced dialects are verified: forced modern sends `server/discover` and is refused
//! ([`ErrorKind::Unsupported`](crate::engine::api::ErrorKind)) unless the answer is modern; forced
//! legacy/draft are refused when `initialize` says the server speaks only 2026-07-28. Forced
//! modern on a dual-era server without the tasks extension asks `initialize` too, only to say
//! which era offers tasks when a task is asked for (the legacy session is ended at once).
//!
//! When neither era offers tasks, plain requests work and task-requiring ones fail with
//! `Unsupported` (see `absent.rs`).

use crate::json::{json, Value};

use crate::protocol::dialect::{codec, Codec, LEGACY, MODERN};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::Dialect;

use super::{Session, Step};
use crate::engine::api::DialectChoice;
use crate::engine::requests::{Answer, Failure};
use crate::protocol::dialect::Outgoing;

/// The modern protocol version.
pub(super) const MODERN_VERSION: &str = crate::protocol::dialect::modern::PROTOCOL_VERSION;
/// Modern error codes that prove the server is modern: header mismatch, missing capability.
const MODERN_ONLY_CODES: [i64; 2] = [-32020, -32021];
/// Unsupported protocol version (`data.supported` lists what the server speaks).
const UNSUPPORTED_VERSION: i64 = -32022;
/// The capability extension a modern server offers tasks under.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// Where modern results carry the server's name and version.
pub(super) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// A well-formed modern `server/discover` answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Discovered {
    pub(super) capabilities: Value,
    pub(super) server_info: Value,
    /// It advertises the tasks extension.
    pub(super) tasks: bool,
    /// It lists an era besides 2026-07-28 (a dual-era server).
    pub(super) other_eras: bool,
}

impl Discovered {
    /// Reads a discover result; `None` unless it lists 2026-07-28 and has a capabilities object.
    pub(super) fn parse(v: &Value) -> Option<Box<Discovered>> {
        let versions = v.get("supportedVersions")?.as_array()?;
        let speaks_modern = versions.iter().any(|s| s.as_str() == Some(MODERN_VERSION));
        let capabilities = v.get("capabilities").filter(|c| c.is_object())?;
        if !speaks_modern {
            return None;
        }
        let tasks = has_tasks_extension(capabilities);
        Some(Box::new(Discovered {
            capabilities: capabilities.clone(),
            server_info: server_info_of(v),
            tasks,
            other_eras: versions.len() > 1,
        }))
    }
}

/// `initialize` capabilities offering tasks: `tasks` (with `requests.tools.call`, or rmcp 2's
/// bare `tasks: {}`). The tasks extension there (a dual-era server's legacy session) serves only
/// clients declaring it at `initialize`, which the legacy dialect does not: no tasks for us.
pub(super) fn offers_tasks(caps: &Value) -> bool {
    caps.get("tasks").is_some_and(Value::is_object)
}

pub(super) fn has_tasks_extension(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

/// `serverInfo` of a result, or the modern `_meta` entry.
pub(super) fn server_info_of(result: &Value) -> Value {
    result
        .get("serverInfo")
        .or_else(|| result.get("_meta").and_then(|m| m.get(META_SERVER_INFO)))
        .filter(|i| i.is_object())
        .cloned()
        .unwrap_or(Value::Null)
}

/// `data.supported` of an unsupported-version error lists the modern version.
fn lists_modern(e: &RpcError) -> bool {
    e.code == UNSUPPORTED_VERSION
        && e.data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|s| s.as_str() == Some(MODERN_VERSION)))
}

/// A JSON-RPC error only a modern server sends.
fn is_modern_error(e: &RpcError) -> bool {
    MODERN_ONLY_CODES.contains(&e.code) || lists_modern(e)
}

/// The refusal of `dialect: "draft"` by a build without the draft dialect.
const NO_DRAFT: &str = "this build leaves out the draft dialect (SEP-1686): connect with dialect \"auto\", \"modern\" or \"legacy\", or use the full build";
const NOT_MODERN: &str = "the server does not speak the modern dialect (2026-07-28): server/discover was not answered as a modern server would; connect with dialect \"auto\" or \"legacy\"";
pub(super) const UNANSWERED: &str =
    "server/discover went unanswered; the era was negotiated with initialize";
const ONLY_MODERN: &str = "the server speaks only the modern dialect (2026-07-28): initialize was refused; connect with dialect \"auto\" or \"modern\"";

impl Session {
    /// A modern response naming the server (`_meta`) when nothing had: whether the host is to
    /// hear of it.
    pub(super) fn note_server_info(&mut self, result: &Value) -> bool {
        if !self.server_info.is_null()
            || !self.is_ready()
            || self.dialect() != Some(Dialect::Modern)
        {
            return false;
        }
        let info = result.get("_meta").and_then(|m| m.get(META_SERVER_INFO));
        let Some(info) = info.filter(|i| i.is_object()) else {
            return false;
        };
        self.server_info = info.clone();
        true
    }

    /// How to open the session per the dialect choice (no session yet).
    pub(super) fn opening(&self) -> Step {
        match (self.choice, self.hint) {
            (DialectChoice::Auto, Some(Dialect::Legacy)) => Step::Open(LEGACY),
            (DialectChoice::Auto | DialectChoice::Modern, _) => Step::Probe,
            (DialectChoice::Legacy, _) => Step::Open(LEGACY),
            (DialectChoice::Draft, _) => match codec(Dialect::Draft) {
                Some(draft) => Step::Open(draft),
                None => Step::Refuse(NO_DRAFT),
            },
        }
    }

    /// The era probe: a modern `server/discover`.
    pub(super) fn discover(&mut self) -> Outgoing {
        self.protocol_version.clear();
        self.session_id = None;
        self.discovered = None;
        MODERN.build_request(&self.info(), "server/discover", json!({}), None)
    }

    /// Reads the probe's answer (`in_page`: the request was subject to CORS).
    pub(super) fn read_probe(&mut self, res: Answer, in_page: bool) -> Step {
        let forced = self.choice == DialectChoice::Modern;
        match res {
            Ok(v) => match Discovered::parse(&v) {
                Some(d)
                    if d.tasks
                        || (forced && !d.other_eras)
                        || self.hint == Some(Dialect::Modern) =>
                {
                    Step::Modern(Some(d))
                }
                Some(d) => {
                    self.discovered = Some(d);
                    Step::Open(LEGACY)
                }
                None if forced => Step::Refuse(NOT_MODERN),
                None => Step::Open(LEGACY),
            },
            Err(f) if f.rpc().is_some_and(is_modern_error) => Step::Modern(None),
            // Come back later (429, 503; any 5xx when forced): probe again. `Auto` reads another
            // 5xx as a refusal of the method and tries `initialize`.
            Err(f) if f.overloaded() && (forced || matches!(f.http_status(), Some(429 | 503))) => {
                Step::Failed(f, false)
            }
            // Refused credentials: `initialize` would be refused the same way.
            Err(f) if f.unauthorized() => Step::Failed(f, true),
            // No answer at all: forced modern asks again; `Auto` tries `initialize`, which
            // needs no header a strict CORS allow-list could refuse.
            Err(f)
                if forced
                    && matches!(
                        *f,
                        Failure::Transport { status: None, .. } | Failure::Timeout
                    ) =>
            {
                Step::Failed(f, false)
            }
            Err(_) if forced => Step::Refuse(NOT_MODERN),
            // Any other error, an HTTP 4xx, a network failure, silence: try `initialize`.
            Err(f) => {
                if matches!(*f, Failure::Transport { status: None, .. }) && in_page {
                    self.probe_unreached = true;
                }
                match *f {
                    Failure::Timeout => Step::Unanswered,
                    _ => Step::Open(LEGACY),
                }
            }
        }
    }

    /// The dialect an `initialize` in flight was sent in, now that it is answered (none: no
    /// `initialize` is in flight).
    pub(super) fn initialize_answered(&mut self) -> Option<&'static dyn Codec> {
        self.init_codec.take()
    }

    /// `initialize` failed with `f`: the step that leads to.
    pub(super) fn initialize_failed(&mut self, f: Box<Failure>) -> Step {
        let auto = self.choice == DialectChoice::Auto;
        match f {
            // Forced modern only asked which era offers tasks.
            _ if self.choice == DialectChoice::Modern => Step::Modern(self.discovered.take()),
            // The remembered era no longer works: negotiate afresh.
            f if auto
                && !f.overloaded()
                && !f.unauthorized()
                && self.hint == Some(Dialect::Legacy) =>
            {
                self.hint = None;
                Step::Probe
            }
            // A modern-only server refusing the handshake.
            f if f.rpc().is_some_and(lists_modern) => match auto {
                true => Step::Modern(self.discovered.take()),
                false => Step::Refuse(ONLY_MODERN),
            },
            f if f.overloaded() => Step::Failed(f, false),
            // Discover said modern (without tasks); legacy is not on offer either.
            _ if self.discovered.is_some() => Step::Modern(self.discovered.take()),
            f => {
                // The server refused the handshake (an HTTP 4xx without one too): queued calls fail.
                let refused = f.unauthorized()
                    || match *f {
                        Failure::Rpc(_) | Failure::Rejected { .. } => true,
                        Failure::Transport { status, .. } => {
                            status.is_some_and(|s| (400..500).contains(&s))
                        }
                        Failure::Timeout => false,
                    };
                Step::Failed(f, refused)
            }
        }
    }

    /// `initialize` succeeded with result `v` (`sid`: the session id it came with; `tasks`: the
    /// era offers tasks). When discover said modern and this era offers no tasks either (or the
    /// caller forced modern), modern wins (the best era the server speaks): the discover answer,
    /// for the legacy session to be ended.
    pub(super) fn handshaken(
        &mut self,
        v: &Value,
        sid: Option<String>,
        tasks: bool,
    ) -> Option<Box<Discovered>> {
        self.session_id = sid.filter(|s| !s.is_empty());
        self.protocol_version = v
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let forced = self.choice == DialectChoice::Modern;
        self.handshake = true;
        let d = self.discovered.take().filter(|_| forced || !tasks)?;
        self.legacy_tasks = tasks;
        Some(d)
    }
}
