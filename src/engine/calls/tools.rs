//! The cached `tools/list` and the task-augmentation policy for `tools/call`.
//!
//! Policy (decided client-side, because servers answer violations inconsistently):
//! - a tool's `execution.taskSupport`: `required` → always augment (`never` is refused),
//!   `forbidden` → never (`always` is refused), `optional` → the caller's choice (default: augment);
//! - no `taskSupport`: from protocol 2025-11-25 on this means `forbidden`, so only an explicit
//!   `always` augments; before 2025-11-25 (the draft era) the field did not exist and the
//!   server's `tasks.requests.tools.call` capability alone decides `auto`;
//! - a server whose `tasks.requests` omits `tools.call` refuses task-augmented calls (`always` on a
//!   tool without `required` is refused); one advertising `tasks: {}` without `requests` (rmcp 2.0)
//!   is taken at its tools' word: `required`/`optional` tools are augmented;
//! - in a dialect where the server alone decides (modern), nothing is asked and nothing refused.

use std::borrow::Cow;

use crate::collections::sorted::SortedSet;

use crate::json::{Map, Value};

use crate::engine::ids::CallId;
use crate::protocol::jsonrpc::codes;
use crate::protocol::object;

use crate::engine::api::{Augment, ClientError, ErrorKind, Millis, OpId};
use crate::engine::requests::Failure;
use crate::engine::scheduler::cadence;
use crate::engine::scheduler::rng::Rng;
use crate::engine::session::Session;
use crate::protocol::tool_headers::tool_param_headers;

/// The protocol version from which tools declare `execution.taskSupport`.
const TOOL_LEVEL_SUPPORT_SINCE: &str = "2025-11-25";
/// Stop paging a `tools/list` that never ends.
const MAX_PAGES: u32 = 100;
/// Attempts at a `tools/list` (with backoff) before calls go on without it.
const TRIES: u32 = 3;

/// A tool's declared task support.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Support {
    Forbidden,
    Optional,
    Required,
    Unspecified,
}

/// The tools cache and who waits for it.
#[derive(Debug, Default)]
pub(crate) struct Tools {
    /// A `tools/list` was completed. A failed one is not remembered: the calls that waited go
    /// on without the tools' word, the next call asks again (unless the server has none).
    loaded: bool,
    fetching: bool,
    /// Failed attempts of the current fetch.
    errors: u32,
    pages: u32,
    seen_cursors: SortedSet<String>,
    acc: Vec<Value>,
    /// The tools by name, in a JSON object's map (the one every object already instantiates).
    by_name: Map<String, Value>,
    /// Calls waiting for the cache.
    waiting: Vec<CallId>,
    /// `list_tools` operations waiting for the listing.
    ops: Vec<OpId>,
}

impl Tools {
    pub(super) fn support(&self, name: &str) -> Support {
        let word = self
            .by_name
            .get(name)
            .and_then(|t| t.get("execution"))
            .and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str);
        match word {
            Some("forbidden") => Support::Forbidden,
            Some("optional") => Support::Optional,
            Some("required") => Support::Required,
            _ => Support::Unspecified,
        }
    }

    /// The request headers that carry tool `name`'s arguments (of the call's `params`) its
    /// input schema marks for them (none for a tool not listed).
    pub(super) fn param_headers(
        &self,
        name: &str,
        params: &Value,
    ) -> Result<Vec<(String, String)>, ClientError> {
        let Some(schema) = self.by_name.get(name).and_then(|t| t.get("inputSchema")) else {
            return Ok(Vec::new());
        };
        let args = params.get("arguments").unwrap_or(&Value::Null);
        tool_param_headers(schema, args)
            .map_err(|e| ClientError::new(ErrorKind::InvalidInput, e.message()))
    }

    /// Whether a call (of `tool`, for `tools/call`) with the caller's `choice` goes out
    /// task-augmented in `session` (`names`: its dialect names tasks); an error when it cannot
    /// go out at all (it needs what the server does not offer).
    pub(super) fn augment(
        &self,
        tool: Option<&str>,
        choice: Augment,
        session: &Session,
        names: bool,
    ) -> Result<bool, ClientError> {
        let support = tool.map(|n| self.support(n));
        let offers_tasks = session.offers_tasks();
        if !offers_tasks && needs_task(support, choice) {
            return Err(ClientError::new(
                ErrorKind::Unsupported,
                "this call needs a task and the server offers no tasks",
            ));
        }
        let caps = effective_caps(session.server_caps(), names);
        let augments = session.augments() && offers_tasks;
        decide(&caps, session.protocol_version(), support, choice, augments)
    }

    /// The tools list changed on the server: fetch again before the next call.
    pub(super) fn invalidate(&mut self) {
        if !self.fetching {
            self.loaded = false;
        }
    }
}

/// Whether any dialect lets `method` run as a task: not the handshake and session plumbing,
/// not a listing, not the task methods themselves, not notifications.
pub(super) fn augmentable(method: &str) -> bool {
    const NEVER: [&str; 8] = [
        "initialize",
        "ping",
        "server/discover",
        "subscriptions/listen",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "completion/complete",
    ];
    !(NEVER.contains(&method)
        || method.ends_with("/list")
        || method.starts_with("tasks/")
        || method.starts_with("notifications/"))
}

/// The capabilities `decide` reads. Where the requestor names tasks (draft), a server that
/// declares no `tasks` at all is taken to accept task-augmented `tools/call`: the draft's first
/// revision had no declaration, and a receiver without task support ignores the name and answers.
fn effective_caps(server_caps: &Value, names_tasks: bool) -> Cow<'_, Value> {
    let undeclared = server_caps.get("tasks").is_none_or(Value::is_null);
    if !(names_tasks && undeclared) {
        return Cow::Borrowed(server_caps);
    }
    let mut caps = match server_caps {
        Value::Object(_) => server_caps.clone(),
        _ => Value::Object(crate::json::Map::new()),
    };
    let call = object([("call", Value::Bool(true))]);
    let tasks = object([("requests", object([("tools", call)]))]);
    if let Some(o) = caps.as_object_mut() {
        o.insert("tasks".into(), tasks);
    }
    Cow::Owned(caps)
}

fn refused(msg: &str) -> ClientError {
    ClientError::new(ErrorKind::InvalidInput, msg)
}

/// The caller or the tool insists on a task.
fn needs_task(support: Option<Support>, choice: Augment) -> bool {
    choice == Augment::Always || (support == Some(Support::Required) && choice != Augment::Never)
}

/// Whether to ask for a task; `support` is `None` for requests other than `tools/call`.
fn decide(
    server_caps: &Value,
    protocol_version: &str,
    support: Option<Support>,
    choice: Augment,
    augments: bool,
) -> Result<bool, ClientError> {
    if !augments {
        return Ok(false);
    }
    let Some(support) = support else {
        return Ok(choice == Augment::Always);
    };
    let tasks = server_caps.get("tasks");
    let requests = tasks.and_then(|t| t.get("requests"));
    let server_offers = requests
        .and_then(|r| r.get("tools"))
        .and_then(|t| t.get("call"))
        .is_some();
    let server_refuses = requests.is_some() && !server_offers;
    let tool_level = !protocol_version.is_empty() && protocol_version >= TOOL_LEVEL_SUPPORT_SINCE;
    match (support, choice) {
        (Support::Required, Augment::Never) => Err(refused(
            "this tool requires a task (execution.taskSupport = required)",
        )),
        (Support::Required, _) => Ok(true),
        (Support::Forbidden, Augment::Always) => Err(refused(
            "this tool forbids tasks (execution.taskSupport = forbidden)",
        )),
        (Support::Forbidden, _) | (_, Augment::Never) => Ok(false),
        (_, Augment::Always) if server_refuses => Err(refused(
            "the server does not accept task-augmented tools/call",
        )),
        (Support::Optional, _) => Ok(!server_refuses),
        (Support::Unspecified, Augment::Always) => Ok(true),
        (Support::Unspecified, Augment::Auto) => Ok(!tool_level && server_offers),
    }
}

/// What a `tools/list` page leads to.
pub(super) enum Page {
    /// Ask for the page after this cursor.
    Next(String),
    /// The listing is complete: `{tools}` for the waiting operations.
    Done(Value),
}

/// What a failed `tools/list` attempt leads to.
pub(super) enum Attempt {
    /// Ask again after this delay.
    Retry(Millis),
    /// Give up; `absent`: the server has no `tools/list`.
    GiveUp { absent: bool },
}

impl Tools {
    /// Starts a listing unless one is running or `stale` is false (the cache serves);
    /// `true`: ask for the first page.
    pub(super) fn begin(&mut self, stale: bool) -> bool {
        if self.fetching || !stale {
            return false;
        }
        self.fetching = true;
        self.errors = 0;
        self.restart();
        true
    }

    /// The backoff after a failed attempt passed; `true`: ask for the first page again.
    pub(super) fn retry(&mut self) -> bool {
        if self.fetching {
            self.restart();
        }
        self.fetching
    }

    fn restart(&mut self) {
        self.pages = 0;
        self.acc.clear();
        self.seen_cursors.clear();
    }

    /// Takes one page of the listing.
    pub(super) fn on_page(&mut self, page: &Value) -> Result<Page, ClientError> {
        let Some(items) = page.get("tools").and_then(Value::as_array) else {
            return Err(ClientError::new(
                ErrorKind::Protocol,
                "tools/list result without `tools`",
            ));
        };
        self.acc.extend(items.iter().cloned());
        self.pages += 1;
        let next = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(cursor) = next {
            if self.pages < MAX_PAGES && self.seen_cursors.insert(cursor.clone()) {
                return Ok(Page::Next(cursor));
            }
        }
        let all = std::mem::take(&mut self.acc);
        self.by_name = Map::new();
        for t in &all {
            if let Some(name) = t.get("name").and_then(Value::as_str) {
                self.by_name.insert(name.to_owned(), t.clone());
            }
        }
        Ok(Page::Done(object([("tools", Value::Array(all))])))
    }

    /// An attempt failed: try again with backoff, a few times, unless the server has no such
    /// method.
    pub(super) fn attempt_failed(&mut self, f: &Failure, rng: &mut Rng) -> Attempt {
        let absent = matches!(f, Failure::Rpc(e) if e.code == codes::METHOD_NOT_FOUND);
        self.errors = self.errors.saturating_add(1);
        if absent || self.errors >= TRIES {
            return Attempt::GiveUp { absent };
        }
        Attempt::Retry(cadence::error_delay(
            rng,
            self.errors,
            f.retry_after(),
            None,
        ))
    }

    /// The listing ended (`loaded`: completed): the operations and calls that waited for it.
    pub(super) fn settle(&mut self, loaded: bool) -> (Vec<OpId>, Vec<CallId>) {
        self.fetching = false;
        self.loaded = loaded;
        (
            std::mem::take(&mut self.ops),
            std::mem::take(&mut self.waiting),
        )
    }

    /// Whether the listing completed.
    pub(super) fn loaded(&self) -> bool {
        self.loaded
    }

    /// Call `c` waits for the listing.
    pub(super) fn wait(&mut self, c: CallId) {
        self.waiting.push(c);
    }

    /// Operation `op` waits for the listing.
    pub(crate) fn wait_op(&mut self, op: OpId) {
        self.ops.push(op);
    }

    /// The operations waiting for the listing.
    pub(crate) fn ops(&self) -> &[OpId] {
        &self.ops
    }
}

#[cfg(test)]
mod tests {
    use crate::json::json;

    use super::*;

    const V25: &str = "2025-11-25";

    #[test]
    fn a_listing_pages_on_and_ends_at_a_repeated_cursor() {
        let mut tools = Tools::default();
        tools.wait(CallId(7));
        assert!(tools.begin(true));
        assert!(!tools.begin(true), "one listing at a time");
        let first = json!({ "tools": [{ "name": "a" }], "nextCursor": "c1" });
        assert!(matches!(tools.on_page(&first), Ok(Page::Next(c)) if c == "c1"));
        let required = json!({ "name": "b", "execution": { "taskSupport": "required" } });
        let again = json!({ "tools": [required], "nextCursor": "c1" });
        let Ok(Page::Done(all)) = tools.on_page(&again) else {
            panic!("a cursor seen before ends the listing");
        };
        assert_eq!(all["tools"].as_array().map(Vec::len), Some(2));
        assert_eq!(tools.support("b"), Support::Required);
        assert_eq!(tools.support("a"), Support::Unspecified);
        let (ops, waiting) = tools.settle(true);
        assert_eq!((ops.len(), waiting), (0, vec![CallId(7)]));
        assert!(tools.loaded() && !tools.begin(false));
        assert!(tools.on_page(&json!({})).is_err(), "a page without tools");
    }

    #[test]
    fn attempts_give_up_after_the_tries_or_at_once_without_the_method() {
        let mut rng = Rng::new(1);
        let lost = Failure::Timeout;
        let mut tools = Tools::default();
        assert!(tools.begin(true));
        for _ in 1..TRIES {
            assert!(matches!(tools.attempt_failed(&lost, &mut rng), Attempt::Retry(d) if d > 0));
            assert!(tools.retry(), "the retry asks for the first page again");
        }
        let last = tools.attempt_failed(&lost, &mut rng);
        assert!(matches!(last, Attempt::GiveUp { absent: false }));
        tools.settle(false);
        assert!(!tools.retry() && tools.begin(true));
        let absent = Failure::Rpc(crate::protocol::jsonrpc::RpcError::new(
            codes::METHOD_NOT_FOUND,
            "no",
        ));
        let first = tools.attempt_failed(&absent, &mut rng);
        assert!(matches!(first, Attempt::GiveUp { absent: true }));
    }

    #[test]
    fn tool_level_support_rules() {
        let caps = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
        let d = |s, c| decide(&caps, V25, Some(s), c, true);
        assert_eq!(d(Support::Required, Augment::Auto), Ok(true));
        assert!(d(Support::Required, Augment::Never).is_err());
        assert_eq!(d(Support::Forbidden, Augment::Auto), Ok(false));
        assert!(d(Support::Forbidden, Augment::Always).is_err());
        assert_eq!(d(Support::Optional, Augment::Auto), Ok(true));
        assert_eq!(d(Support::Optional, Augment::Never), Ok(false));
        assert_eq!(d(Support::Unspecified, Augment::Auto), Ok(false));
        assert_eq!(d(Support::Unspecified, Augment::Always), Ok(true));
    }

    #[test]
    fn server_capabilities_and_eras() {
        let no_tools_call = json!({ "tasks": { "requests": {} } });
        assert_eq!(
            decide(
                &no_tools_call,
                V25,
                Some(Support::Optional),
                Augment::Auto,
                true
            ),
            Ok(false)
        );
        assert!(decide(
            &no_tools_call,
            V25,
            Some(Support::Optional),
            Augment::Always,
            true
        )
        .is_err());
        // rmcp 2.0: `tasks: {}` — the tools' word counts.
        let bare = json!({ "tasks": {} });
        assert_eq!(
            decide(&bare, V25, Some(Support::Optional), Augment::Auto, true),
            Ok(true)
        );
        assert_eq!(
            decide(&bare, V25, Some(Support::Required), Augment::Auto, true),
            Ok(true)
        );
        // Draft era: no tool-level field; the capability decides.
        let draft = json!({ "tasks": { "requests": { "tools": { "call": true } } } });
        assert_eq!(
            decide(
                &draft,
                "2025-06-18",
                Some(Support::Unspecified),
                Augment::Auto,
                true
            ),
            Ok(true)
        );
        assert_eq!(
            decide(
                &json!({}),
                "2025-06-18",
                Some(Support::Unspecified),
                Augment::Auto,
                true
            ),
            Ok(false)
        );
        // The server decides alone: never ask, never refuse.
        assert_eq!(
            decide(
                &no_tools_call,
                V25,
                Some(Support::Forbidden),
                Augment::Always,
                false
            ),
            Ok(false)
        );
        // Draft: a server that declares nothing is asked (it ignores the name if it must).
        let plain = json!({ "tools": {} });
        let undeclared = effective_caps(&plain, true);
        let d = |caps: &Value| {
            decide(
                caps,
                "2025-06-18",
                Some(Support::Unspecified),
                Augment::Auto,
                true,
            )
        };
        assert_eq!(d(&undeclared), Ok(true));
        assert_eq!(
            d(&effective_caps(&json!({ "tools": {} }), false)),
            Ok(false)
        );
        assert_eq!(d(&effective_caps(&Value::Null, true)), Ok(true));
        let declared = json!({ "tasks": { "requests": {} } });
        assert_eq!(d(&effective_caps(&declared, true)), Ok(false));
        // Other requests: only on explicit request.
        assert_eq!(decide(&draft, V25, None, Augment::Auto, true), Ok(false));
        assert_eq!(decide(&draft, V25, None, Augment::Always, true), Ok(true));
    }
}
