//! A small in-process MCP server speaking one dialect, good enough to drive the engine through
//! every task flow: scripted tasks (`job` tool arguments say how long they run, how they end,
//! whether they ask for input), sessions that can die, pagination, pushes and fault injection.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::json::{json, Value};

use crate::collections::hash::IdHash;
use crate::engine::api::{Input, Millis, SendKey, Transmit, TransportError};
use crate::engine::Rng;
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use crate::protocol::model::Dialect;

mod methods;
mod timeline;
mod wire;
use super::head;
use wire::{bare, error_msg, header, missing, quick_get, reply, result_msg};

/// One scripted task on the server.
#[derive(Debug, Clone)]
pub(crate) struct FakeTask {
    pub(crate) created: Millis,
    created_iso: String,
    pub(crate) ttl: Option<u64>,
    pub(crate) interval: Option<u64>,
    /// Runs until this time (pushed back when input is needed).
    until: Millis,
    /// Needs input at this time (until answered).
    input_at: Option<Millis>,
    input_sent: bool,
    /// `completed`, `failed` (tool error), `error` (JSON-RPC error), `cancelled`.
    end: String,
    cancelled: bool,
    /// Draft/original request still open: (stream, request id).
    origin: Option<(SendKey, Id)>,
    last_pushed: Option<&'static str>,
}

impl FakeTask {
    pub(crate) fn status(&self, now: Millis) -> &'static str {
        if self.cancelled {
            return "cancelled";
        }
        if let Some(at) = self.input_at {
            if now >= at {
                return "input_required";
            }
        }
        if now < self.until {
            return "working";
        }
        match self.end.as_str() {
            "cancelled" => "cancelled",
            "failed" | "error" | "empty" => "failed",
            _ => "completed",
        }
    }

    fn terminal(&self, now: Millis) -> bool {
        matches!(self.status(now), "completed" | "failed" | "cancelled")
    }
}

/// Fault injection knobs (probabilities in percent).
#[derive(Debug, Clone, Default)]
pub(crate) struct Faults {
    /// `tasks/get` answered with -32603.
    pub(crate) rpc_error: u32,
    /// `tasks/get` failing at the transport (503 with Retry-After).
    pub(crate) transport: u32,
    /// Responses never delivered (the engine must time out).
    pub(crate) silence: u32,
    /// Counted faults (each fires for the next N requests of its kind):
    /// `tasks/result` answers never sent (the stream stays open and silent).
    pub(crate) mute_results: u32,
    /// `tasks/result` answered -32602 "Task not found" (the result is gone).
    pub(crate) gone_results: u32,
    /// How `tasks/result` of a task still running is met (legacy): held until the end (`Hold`),
    /// answered at once with an error, or its stream closed without an answer.
    pub(crate) running_results: RunningResults,
    /// How long a held `tasks/result` takes to notice its task's end (a server re-reading its
    /// store on a timer); a request made after the end answers at once.
    pub(crate) held_result_lag: Millis,
    /// A result delivered on a `tasks/result` stream consumes the task (a later get: -32002).
    pub(crate) consume_results: bool,
    /// A stream the engine closes stays open at the server (a proxy on the way keeps its own
    /// request to it): a held `tasks/result` is still answered, and consumes with
    /// `consume_results`.
    pub(crate) deaf_to_aborts: bool,
    /// `tools/list` failing with HTTP 503.
    pub(crate) tools_503: u32,
    /// `tasks/get` answered HTTP 400 with an id-less -32600 "Bad Request: invalid request".
    pub(crate) bad_gets: u32,
    /// `tasks/get` answered HTTP 429 with `Retry-After` of `throttle_ms`.
    pub(crate) throttled_gets: u32,
    pub(crate) throttle_ms: Millis,
    /// A held `tasks/result` is cut with HTTP 504 this long after it came (a proxy's read
    /// timeout; 0: never).
    pub(crate) cut_held_after: Millis,
    /// `tasks/result` answered like `throttled_gets`.
    pub(crate) throttled_results: u32,
    /// Every n-th `tasks/get` of each task (its 1st, n+1-th, …) answered like `throttled_gets`.
    pub(crate) throttle_every: u32,
    /// Every n-th `tasks/get` of each task (its 1st, n+1-th, …) stalls: head sent, then silence.
    pub(crate) stall_every: u32,
    /// Every other `tasks/get` the server receives (its 2nd, 4th, …) stalls like `stall_every`,
    /// for this many stalls.
    pub(crate) stalled_gets: u32,
    /// Methods the server lacks: HTTP 404 carrying -32601 "Method not found".
    pub(crate) missing: Vec<&'static str>,
    /// The server is down: every request fails at once without a status (connection refused).
    pub(crate) down: bool,
    /// A task needing input never asks for it: no request on any stream, no `inputRequests`.
    pub(crate) mute_inputs: bool,
}

/// How a server meets `tasks/result` while the task runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum RunningResults {
    #[default]
    Hold,
    Refuse,
    Close,
}

/// Takes one from a fault counter: whether the fault fires.
pub(crate) fn take(n: &mut u32) -> bool {
    let fire = *n > 0;
    *n = n.saturating_sub(1);
    fire
}

/// The server.
pub(crate) struct FakeServer {
    pub(crate) dialect: Dialect,
    /// Written into its session and task ids (replicas of one service tell theirs apart).
    pub(crate) tag: &'static str,
    pub(crate) tasks: HashMap<String, FakeTask, IdHash>,
    session: Option<String>,
    sessions: u32,
    next_task: u64,
    /// Send status notifications on every change.
    pub(crate) push: bool,
    /// A status never pushed (a server that pushes steps and ends but not input requests).
    pub(crate) unpushed: Option<&'static str>,
    /// Modern: push only about the tasks a listen stream named, and only changes after it
    /// (a change before the subscription is never pushed).
    pub(crate) push_to_listeners: bool,
    /// The task ids listen streams named.
    listened: BTreeSet<String>,
    /// Draft: announce tasks with `notifications/tasks/created` (off: a JSON-only server, whose
    /// one answer is the original response at the end).
    pub(crate) announce: bool,
    pub(crate) page_size: usize,
    /// Blocked `tasks/result` requests per task: (stream, request id).
    blocked: HashMap<String, Vec<(SendKey, Id)>, IdHash>,
    /// When tasks change on their own (run end, input needed, ttl), and tasks changed by a request.
    timeline: BTreeSet<(Millis, String)>,
    dirty: BTreeSet<String>,
    /// Held `tasks/result` streams to cut (see `Faults::cut_held_after`): when, which.
    cuts: Vec<(Millis, SendKey)>,
    pub(crate) faults: Faults,
    rng: Rng,
    /// `tasks/get` times per task, as processed (404s excluded).
    pub(crate) gets: HashMap<String, Vec<Millis>, IdHash>,
    /// The poll interval each task was created with (kept after the task is gone).
    pub(crate) intervals: BTreeMap<String, Option<u64>>,
}

/// What the server sends back: inputs for the engine, each after `delay` ms.
pub(crate) type Replies = Vec<(Millis, Input)>;

impl FakeServer {
    pub(crate) fn new(dialect: Dialect, seed: u64) -> Self {
        Self {
            dialect,
            tag: "",
            tasks: HashMap::default(),
            session: None,
            sessions: 0,
            next_task: 1,
            push: false,
            unpushed: None,
            push_to_listeners: false,
            listened: BTreeSet::new(),
            announce: true,
            page_size: 3,
            blocked: HashMap::default(),
            timeline: BTreeSet::new(),
            dirty: BTreeSet::new(),
            cuts: Vec::new(),
            faults: Faults::default(),
            rng: Rng::new(seed ^ 0x5eed),
            gets: HashMap::default(),
            intervals: BTreeMap::new(),
        }
    }

    /// The session dies (the next sessioned request gets 404).
    pub(crate) fn kill_session(&mut self) {
        self.session = None;
    }

    /// The server forgets a task (crash, eviction).
    pub(crate) fn forget(&mut self, task_id: &str) {
        self.tasks.remove(task_id);
    }

    fn alive(&self, id: &str, now: Millis) -> Option<&FakeTask> {
        let t = self.tasks.get(id)?;
        match t.ttl {
            Some(ttl) if now >= t.created + ttl => None,
            _ => Some(t),
        }
    }

    /// Handles one transmission from the engine: its method, task id and the replies.
    pub(crate) fn handle(
        &mut self,
        now: Millis,
        tx: &Transmit,
    ) -> (String, Option<String>, Replies) {
        let key = tx.key;
        if self.faults.down {
            let error = TransportError::network("connection refused");
            let task = quick_get(&tx.body).map(|(_, t)| t);
            let method = if task.is_some() {
                "tasks/get"
            } else {
                "(refused)"
            };
            return (method.into(), task, vec![(0, Input::Failed { key, error })]);
        }
        // Fast path for the bulk of the traffic: find what a `tasks/get` needs without parsing.
        if let Some((id, task)) = quick_get(&tx.body) {
            let replies = match self.check_session(tx) {
                Some(refused) => refused,
                None if self.faults.missing.contains(&"tasks/get") => missing(key, Id::Number(id)),
                None => self.get(now, key, Id::Number(id), Some(&task)),
            };
            return ("tasks/get".into(), Some(task), replies);
        }
        let msg = match Message::decode(tx.body.as_bytes(), usize::MAX) {
            Ok(m) => m,
            Err(_) => {
                return ("(garbage)".into(), None, bare(key, 400));
            }
        };
        let (method, task_id) = match &msg {
            Message::Request { method, params, .. } | Message::Notification { method, params } => {
                let task = params
                    .as_ref()
                    .and_then(|p| p.get("taskId"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (method.clone(), task)
            }
            _ => ("(response)".to_owned(), None),
        };
        if method != "initialize" && method != "server/discover" {
            if let Some(refused) = self.check_session(tx) {
                return (method, task_id, refused);
            }
        }
        let replies = match msg {
            Message::Request { id, method, params } => {
                self.request(now, key, id, &method, params.unwrap_or(Value::Null))
            }
            Message::Notification { method, params } => {
                self.notification(now, &method, params.unwrap_or(Value::Null));
                bare(key, 202)
            }
            Message::Response { id, .. } | Message::Error { id: Some(id), .. } => {
                self.answered(now, &id);
                bare(key, 202)
            }
            Message::Error { id: None, .. } => vec![(0, Input::Ended { key })],
        };
        (method, task_id, replies)
    }

    /// Sessioned dialects refuse a request without the current session id (404).
    fn check_session(&self, tx: &Transmit) -> Option<Replies> {
        if self.dialect == Dialect::Modern {
            return None;
        }
        let sid = header(tx, "Mcp-Session-Id");
        if sid.is_some() && sid == self.session.as_deref() {
            return None;
        }
        Some(bare(tx.key, 404))
    }

    /// A 200 answer carrying `body`.
    fn ok(&self, key: SendKey, body: String) -> Replies {
        reply(key, 200, None, body)
    }

    fn request(
        &mut self,
        now: Millis,
        key: SendKey,
        id: Id,
        method: &str,
        params: Value,
    ) -> Replies {
        let task_id = params
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if self.faults.missing.contains(&method) {
            return missing(key, id);
        }
        match (self.dialect, method) {
            (Dialect::Modern, "server/discover") => {
                let r = json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": { "tools": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } },
                    "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "fake" } }
                });
                self.ok(key, result_msg(id, r))
            }
            (_, "server/discover") => {
                let body = error_msg(None, -32000, "Bad Request: Server not initialized");
                reply(key, 400, None, body)
            }
            (Dialect::Modern, "initialize") => {
                let mut error = RpcError::new(-32022, "Unsupported protocol version");
                error.data =
                    Some(json!({ "supported": ["2026-07-28"], "requested": "2025-11-25" }));
                let body = Message::Error {
                    id: Some(id),
                    error,
                }
                .encode();
                reply(key, 200, Some("ignored"), body)
            }
            (d, "initialize") => {
                self.sessions += 1;
                let sid = format!("sess-{}{}", self.tag, self.sessions);
                self.session = Some(sid.clone());
                let (version, caps) = match d {
                    Dialect::Draft => (
                        "2025-06-18",
                        json!({ "tools": {}, "tasks": { "requests": { "tools": { "call": true } }, "list": true } }),
                    ),
                    _ => (
                        "2025-11-25",
                        json!({ "tools": {}, "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } } }),
                    ),
                };
                let r = json!({ "protocolVersion": version, "capabilities": caps, "serverInfo": { "name": "fake" } });
                reply(key, 200, Some(&sid), result_msg(id, r))
            }
            (_, "tools/list") if take(&mut self.faults.tools_503) => bare(key, 503),
            (_, "tools/list") => {
                let all = self.tools();
                let start: usize = params
                    .get("cursor")
                    .and_then(Value::as_str)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let page: Vec<Value> = all.iter().skip(start).take(2).cloned().collect();
                let mut r = json!({ "tools": page });
                if start + 2 < all.len() {
                    r["nextCursor"] = json!((start + 2).to_string());
                }
                self.ok(key, result_msg(id, r))
            }
            (_, "tools/call") => self.call(now, key, id, &params),
            (_, "tasks/get") => self.get(now, key, id, task_id.as_deref()),
            (Dialect::Modern, "tasks/result") | (Dialect::Modern, "tasks/list") => {
                self.ok(key, error_msg(Some(id), -32601, "Method not found"))
            }
            (_, "tasks/result") => self.result(now, key, id, task_id.as_deref()),
            (_, "tasks/list") => self.list(now, key, id, &params),
            // Draft: a terminal task is forgotten; a running or unknown one is -32602.
            (Dialect::Draft, "tasks/delete") => {
                let t = task_id.unwrap_or_default();
                match self.alive(&t, now).map(|task| task.terminal(now)) {
                    Some(true) => {
                        self.tasks.remove(&t);
                        self.ok(key, result_msg(id, json!({})))
                    }
                    Some(false) => self.ok(key, error_msg(Some(id), -32602, "Task is running")),
                    None => self.ok(key, error_msg(Some(id), -32602, "Task not found")),
                }
            }
            (_, "tasks/cancel") => {
                let Some(t) = task_id.as_deref().filter(|t| self.alive(t, now).is_some()) else {
                    return self.ok(key, error_msg(Some(id), -32602, "Task not found"));
                };
                let t = t.to_owned();
                if let Some(task) = self.tasks.get_mut(&t) {
                    if !task.terminal(now) {
                        task.cancelled = true;
                    }
                }
                self.dirty.insert(t.clone());
                let r = match (self.dialect, self.tasks.get(&t)) {
                    (Dialect::Legacy, Some(task)) => self.task_json(&t, task, now),
                    _ => json!({}),
                };
                self.ok(key, result_msg(id, r))
            }
            (Dialect::Modern, "tasks/update") => {
                let answered = params
                    .get("inputResponses")
                    .and_then(|r| r.get("ask"))
                    .is_some();
                if let Some(t) = task_id.filter(|_| answered) {
                    self.resume(now, &t);
                }
                self.ok(key, result_msg(id, json!({})))
            }
            (Dialect::Modern, "subscriptions/listen") => {
                // Acknowledged with the task ids it will push about (none when it never pushes).
                let named = params.pointer("/notifications/taskIds").cloned();
                let ids = named.filter(|_| self.push).unwrap_or_else(|| json!([]));
                for t in ids.as_array().into_iter().flatten() {
                    if let Some(t) = t.as_str() {
                        self.listened.insert(t.to_owned());
                    }
                }
                let meta = json!({ "io.modelcontextprotocol/subscriptionId": Value::from(&id) });
                let params = json!({ "notifications": { "taskIds": ids }, "_meta": meta });
                let body = json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": params });
                let ack = Input::Message {
                    via: Some(key),
                    body: body.to_string(),
                };
                vec![(0, head(key, 200, None)), (0, ack)]
            }
            _ => self.ok(key, error_msg(Some(id), -32601, "Method not found")),
        }
    }

    fn notification(&mut self, now: Millis, method: &str, params: Value) {
        if method == "notifications/cancelled" {
            let rid = params.get("requestId").cloned();
            for (k, t) in self.tasks.iter_mut() {
                let matches = t
                    .origin
                    .as_ref()
                    .is_some_and(|(_, id)| Some(Value::from(id)) == rid);
                if matches && !t.terminal(now) {
                    t.cancelled = true;
                    self.dirty.insert(k.clone());
                }
            }
        }
    }
}
