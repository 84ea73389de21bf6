//! A small in-process MCP server speaking one dialect, good enough to drive the engine through
//! every task flow: scripted tasks (`job` tool arguments say how long they run, how they end,
//! whether they ask for input), sessions that can die, pagination, pushes and fault injection.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use crate::engine::api::{Input, Millis, SendKey, Transmit, TransportError};
use crate::engine::rng::Rng;
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use crate::protocol::model::Dialect;

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
            "failed" | "error" => "failed",
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
}

/// The server.
pub(crate) struct FakeServer {
    pub(crate) dialect: Dialect,
    pub(crate) tasks: HashMap<String, FakeTask>,
    session: Option<String>,
    sessions: u32,
    next_task: u64,
    /// Send status notifications on every change.
    pub(crate) push: bool,
    pub(crate) page_size: usize,
    /// Blocked `tasks/result` requests per task: (stream, request id).
    blocked: HashMap<String, Vec<(SendKey, Id)>>,
    /// When tasks change on their own (run end, input needed, ttl), and tasks changed by a request.
    timeline: BTreeSet<(Millis, String)>,
    dirty: BTreeSet<String>,
    pub(crate) faults: Faults,
    rng: Rng,
    /// `tasks/get` times per task, as processed (404s excluded).
    pub(crate) gets: HashMap<String, Vec<Millis>>,
    /// The poll interval each task was created with (kept after the task is gone).
    pub(crate) intervals: BTreeMap<String, Option<u64>>,
}

/// What the server sends back: inputs for the engine, each after `delay` ms.
pub(crate) type Replies = Vec<(Millis, Input)>;

fn iso(ms: Millis) -> String {
    let days = (ms / 86_400_000) as i64;
    let rem = ms % 86_400_000;
    // Civil date from days since 1970-01-01 (inverse of the parser's formula).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

fn related_key(d: Dialect) -> &'static str {
    match d {
        Dialect::Draft => "modelcontextprotocol.io/related-task",
        _ => "io.modelcontextprotocol/related-task",
    }
}

fn result_msg(id: Id, result: Value) -> String {
    Message::Response { id, result }.encode()
}

fn error_msg(id: Option<Id>, code: i64, message: &str) -> String {
    Message::Error {
        id,
        error: RpcError::new(code, message),
    }
    .encode()
}

/// Id and task id of a `tasks/get` as the engine writes it (`{"jsonrpc":"2.0","id":N,...}`);
/// `None` sends the message down the general path.
fn quick_get(body: &str) -> Option<(i64, String)> {
    if !body.contains(r#""method":"tasks/get""#) {
        return None;
    }
    let rest = body.strip_prefix(r#"{"jsonrpc":"2.0","id":"#)?;
    let id = rest.get(..rest.find(',')?)?.parse().ok()?;
    let at = body.find(r#""taskId":""#)? + r#""taskId":""#.len();
    let tail = body.get(at..)?;
    let task = tail.get(..tail.find('"')?)?;
    (!task.contains('\\')).then(|| (id, task.to_owned()))
}

fn header<'a>(t: &'a Transmit, name: &str) -> Option<&'a str> {
    t.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl FakeServer {
    pub(crate) fn new(dialect: Dialect, seed: u64) -> Self {
        Self {
            dialect,
            tasks: HashMap::new(),
            session: None,
            sessions: 0,
            next_task: 1,
            push: false,
            page_size: 3,
            blocked: HashMap::new(),
            timeline: BTreeSet::new(),
            dirty: BTreeSet::new(),
            faults: Faults::default(),
            rng: Rng::new(seed ^ 0x5eed),
            gets: HashMap::new(),
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

    fn tools(&self) -> Vec<Value> {
        let support = |s: &str| json!({ "taskSupport": s });
        let schema = json!({ "type": "object" });
        let mut tools = vec![
            json!({ "name": "job", "inputSchema": schema, "execution": support("optional") }),
            json!({ "name": "must", "inputSchema": schema, "execution": support("required") }),
            json!({ "name": "quick", "inputSchema": schema, "execution": support("forbidden") }),
        ];
        if self.dialect != Dialect::Legacy {
            for t in &mut tools {
                if let Some(o) = t.as_object_mut() {
                    o.remove("execution");
                }
            }
        }
        tools
    }

    fn task_json(&self, id: &str, t: &FakeTask, now: Millis) -> Value {
        let status = t.status(now);
        let mut o = Map::new();
        o.insert("taskId".into(), json!(id));
        o.insert("status".into(), json!(status));
        match self.dialect {
            Dialect::Modern => {
                o.insert("createdAt".into(), json!(t.created_iso));
                o.insert("lastUpdatedAt".into(), json!(iso(now)));
                o.insert("ttlMs".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollIntervalMs".into(), json!(i));
                }
                match status {
                    "completed" => {
                        o.insert(
                            "result".into(),
                            json!({ "content": [{ "type": "text", "text": "done" }] }),
                        );
                    }
                    "failed" => {
                        o.insert("error".into(), json!({ "code": -32603, "message": "boom" }));
                    }
                    "input_required" => {
                        let ask = json!({ "method": "elicitation/create", "params": { "message": "name?" } });
                        o.insert("inputRequests".into(), json!({ "ask": ask }));
                    }
                    _ => {}
                }
            }
            Dialect::Legacy => {
                o.insert("createdAt".into(), json!(t.created_iso));
                o.insert("lastUpdatedAt".into(), json!(iso(now)));
                o.insert("ttl".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollInterval".into(), json!(i));
                }
            }
            Dialect::Draft => {
                o.insert("keepAlive".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollFrequency".into(), json!(i));
                }
                if status == "failed" {
                    o.insert("error".into(), json!("boom"));
                }
            }
        }
        Value::Object(o)
    }

    /// The `tasks/get` response for a working task, written directly (the common case).
    fn working_json(&self, rid: &Id, id: &str, t: &FakeTask) -> String {
        let num = |v: Option<u64>| v.map_or("null".to_owned(), |n| n.to_string());
        let mut b = String::with_capacity(256);
        b.push_str(r#"{"jsonrpc":"2.0","id":"#);
        b.push_str(&serde_json::to_string(rid).unwrap_or_default());
        b.push_str(r#","result":{"taskId":""#);
        b.push_str(id);
        b.push_str(r#"","status":"working","#);
        let (ttl, interval) = match self.dialect {
            Dialect::Modern => ("ttlMs", "pollIntervalMs"),
            Dialect::Legacy => ("ttl", "pollInterval"),
            Dialect::Draft => ("keepAlive", "pollFrequency"),
        };
        if self.dialect != Dialect::Draft {
            for field in ["createdAt", "lastUpdatedAt"] {
                b.push('"');
                b.push_str(field);
                b.push_str(r#"":""#);
                b.push_str(&t.created_iso);
                b.push_str(r#"","#);
            }
        }
        for (field, v) in [(ttl, t.ttl), (interval, t.interval)] {
            b.push('"');
            b.push_str(field);
            b.push_str(r#"":"#);
            b.push_str(&num(v));
            b.push(',');
        }
        b.pop();
        b.push_str("}}");
        b
    }

    fn final_result(&self, id: &str) -> Value {
        let mut r = json!({ "content": [{ "type": "text", "text": "done" }] });
        if let Some(o) = r.as_object_mut() {
            o.insert(
                "_meta".into(),
                json!({ related_key(self.dialect): { "taskId": id } }),
            );
        }
        r
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
        // Fast path for the bulk of the traffic: find what a `tasks/get` needs without parsing.
        if let Some((id, task)) = quick_get(&tx.body) {
            let replies = match self.check_session(tx) {
                Some(refused) => refused,
                None => self.get(now, key, Id::Number(id), Some(&task)),
            };
            return ("tasks/get".into(), Some(task), replies);
        }
        let msg = match Message::decode(tx.body.as_bytes(), usize::MAX) {
            Ok(m) => m,
            Err(_) => {
                let replies = vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 400,
                            session_id: None,
                            retry_after_ms: None,
                        },
                    ),
                    (0, Input::Ended { key }),
                ];
                return ("(garbage)".into(), None, replies);
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
                vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 202,
                            session_id: None,
                            retry_after_ms: None,
                        },
                    ),
                    (0, Input::Ended { key }),
                ]
            }
            Message::Response { id, .. } | Message::Error { id: Some(id), .. } => {
                self.answered(now, &id);
                vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 202,
                            session_id: None,
                            retry_after_ms: None,
                        },
                    ),
                    (0, Input::Ended { key }),
                ]
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
        let key = tx.key;
        Some(vec![
            (
                0,
                Input::Head {
                    key,
                    status: 404,
                    session_id: None,
                    retry_after_ms: None,
                },
            ),
            (0, Input::Ended { key }),
        ])
    }

    fn ok(&self, key: SendKey, body: String) -> Replies {
        vec![
            (
                0,
                Input::Head {
                    key,
                    status: 200,
                    session_id: None,
                    retry_after_ms: None,
                },
            ),
            (
                0,
                Input::Message {
                    via: Some(key),
                    body,
                },
            ),
            (0, Input::Ended { key }),
        ]
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
        match (self.dialect, method) {
            (Dialect::Modern, "server/discover") => {
                let r = json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} }, "serverInfo": { "name": "fake" } });
                self.ok(key, result_msg(id, r))
            }
            (_, "server/discover") => vec![
                (
                    0,
                    Input::Head {
                        key,
                        status: 400,
                        session_id: None,
                        retry_after_ms: None,
                    },
                ),
                (
                    0,
                    Input::Message {
                        via: Some(key),
                        body: error_msg(None, -32000, "Bad Request: Server not initialized"),
                    },
                ),
                (0, Input::Ended { key }),
            ],
            (Dialect::Modern, "initialize") => {
                let mut error = RpcError::new(-32022, "Unsupported protocol version");
                error.data =
                    Some(json!({ "supported": ["2026-07-28"], "requested": "2025-11-25" }));
                let body = Message::Error {
                    id: Some(id),
                    error,
                }
                .encode();
                vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 200,
                            session_id: Some("ignored".into()),
                            retry_after_ms: None,
                        },
                    ),
                    (
                        0,
                        Input::Message {
                            via: Some(key),
                            body,
                        },
                    ),
                    (0, Input::Ended { key }),
                ]
            }
            (d, "initialize") => {
                self.sessions += 1;
                let sid = format!("sess-{}", self.sessions);
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
                vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 200,
                            session_id: Some(sid),
                            retry_after_ms: None,
                        },
                    ),
                    (
                        0,
                        Input::Message {
                            via: Some(key),
                            body: result_msg(id, r),
                        },
                    ),
                    (0, Input::Ended { key }),
                ]
            }
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
                vec![(
                    0,
                    Input::Head {
                        key,
                        status: 200,
                        session_id: None,
                        retry_after_ms: None,
                    },
                )]
            }
            _ => self.ok(key, error_msg(Some(id), -32601, "Method not found")),
        }
    }

    fn call(&mut self, now: Millis, key: SendKey, id: Id, params: &Value) -> Replies {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if self.dialect == Dialect::Modern && name == "ask" {
            // MRTR: ask first, answer once the retry carries the response and the state.
            let answered = params
                .get("inputResponses")
                .and_then(|r| r.get("ask"))
                .is_some()
                && params.get("requestState").and_then(Value::as_str) == Some("st");
            let r = if answered {
                json!({ "content": [{ "type": "text", "text": "thanks" }] })
            } else {
                let ask =
                    json!({ "method": "elicitation/create", "params": { "message": "name?" } });
                json!({ "resultType": "input_required", "inputRequests": { "ask": ask }, "requestState": "st" })
            };
            return self.ok(key, result_msg(id, r));
        }
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(3_000);
        let end = args
            .get("end")
            .and_then(Value::as_str)
            .unwrap_or("completed")
            .to_owned();
        let interval = args.get("interval").and_then(Value::as_u64);
        let wants_input = args.get("input").and_then(Value::as_bool).unwrap_or(false);
        let ttl = match args.get("ttl") {
            Some(Value::Null) => None,
            Some(v) => v.as_u64(),
            None => Some(3_600_000),
        };
        let draft_id = params
            .get("_meta")
            .and_then(|m| m.get("modelcontextprotocol.io/task"))
            .and_then(|t| t.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let asked = match self.dialect {
            Dialect::Legacy => params.get("task").is_some(),
            Dialect::Draft => draft_id.is_some(),
            Dialect::Modern => name != "quick",
        };
        if name == "must" && !asked {
            let r = json!({ "content": [{ "type": "text", "text": "task required" }], "isError": true });
            return self.ok(key, result_msg(id, r));
        }
        if !asked || name == "quick" {
            if end == "error" {
                return self.ok(key, error_msg(Some(id), -32603, "boom"));
            }
            let r = json!({ "content": [{ "type": "text", "text": "quick" }] });
            return self.ok(key, result_msg(id, r));
        }
        let task_id = match draft_id {
            Some(d) => d,
            None => {
                self.next_task += 1;
                format!("task-{}", self.next_task - 1)
            }
        };
        let task = FakeTask {
            created: now,
            created_iso: iso(now),
            ttl,
            interval,
            until: now + ms,
            input_at: wants_input.then_some(now + ms / 2),
            input_sent: false,
            end,
            cancelled: false,
            origin: (self.dialect == Dialect::Draft).then(|| (key, id.clone())),
            last_pushed: Some("working"),
        };
        self.schedule(&task_id, &task);
        self.tasks.insert(task_id.clone(), task);
        self.intervals.insert(task_id.clone(), interval);
        match self.dialect {
            Dialect::Draft => {
                let note = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/created", "params": { "_meta": { related_key(Dialect::Draft): { "taskId": task_id } } } });
                vec![
                    (
                        0,
                        Input::Head {
                            key,
                            status: 200,
                            session_id: None,
                            retry_after_ms: None,
                        },
                    ),
                    (
                        0,
                        Input::Message {
                            via: None,
                            body: note.to_string(),
                        },
                    ),
                ]
            }
            Dialect::Modern => {
                let mut t = self.task_json(&task_id, &self.tasks[&task_id], now);
                t["resultType"] = json!("task");
                self.ok(key, result_msg(id, t))
            }
            Dialect::Legacy => {
                let t = self.task_json(&task_id, &self.tasks[&task_id], now);
                self.ok(key, result_msg(id, json!({ "task": t })))
            }
        }
    }

    fn get(&mut self, now: Millis, key: SendKey, id: Id, task_id: Option<&str>) -> Replies {
        let Some(t) = task_id else {
            return self.ok(key, error_msg(Some(id), -32602, "taskId missing"));
        };
        let roll = self.rng.between(0, 99) as u32;
        match self.gets.get_mut(t) {
            Some(v) => v.push(now),
            None => {
                self.gets.insert(t.to_owned(), vec![now]);
            }
        }
        if roll < self.faults.silence {
            return vec![(
                0,
                Input::Head {
                    key,
                    status: 200,
                    session_id: None,
                    retry_after_ms: None,
                },
            )];
        }
        if roll < self.faults.silence + self.faults.transport {
            let error = TransportError {
                message: "503".into(),
                http_status: Some(503),
                retry_after_ms: Some(3_000),
            };
            return vec![(0, Input::Failed { key, error })];
        }
        if roll < self.faults.silence + self.faults.transport + self.faults.rpc_error {
            return self.ok(key, error_msg(Some(id), -32603, "internal"));
        }
        match self.alive(t, now) {
            Some(task) if task.status(now) == "working" => {
                let body = self.working_json(&id, t, task);
                self.ok(key, body)
            }
            Some(task) => {
                let body = result_msg(id, self.task_json(t, task, now));
                self.ok(key, body)
            }
            None => self.ok(key, error_msg(Some(id), -32602, "Task not found")),
        }
    }

    fn result(&mut self, now: Millis, key: SendKey, id: Id, task_id: Option<&str>) -> Replies {
        let Some(t) = task_id
            .filter(|t| self.alive(t, now).is_some())
            .map(str::to_owned)
        else {
            return self.ok(key, error_msg(Some(id), -32602, "Task not found"));
        };
        if self.dialect == Dialect::Draft {
            let status = self
                .tasks
                .get(&t)
                .map(|task| task.status(now))
                .unwrap_or_default();
            return if status == "completed" {
                self.ok(key, result_msg(id, self.final_result(&t)))
            } else {
                self.ok(key, error_msg(Some(id), -32602, "Task is not completed"))
            };
        }
        self.blocked.entry(t.clone()).or_default().push((key, id));
        let mut out = vec![(
            0,
            Input::Head {
                key,
                status: 200,
                session_id: None,
                retry_after_ms: None,
            },
        )];
        out.extend(self.process(now, &t));
        out
    }

    fn list(&mut self, now: Millis, key: SendKey, id: Id, params: &Value) -> Replies {
        let start: usize = match params.get("cursor").and_then(Value::as_str) {
            None => 0,
            Some(c) => match c.parse() {
                Ok(n) => n,
                Err(_) => return self.ok(key, error_msg(Some(id), -32602, "Invalid cursor")),
            },
        };
        let mut live: Vec<(String, Value)> = self
            .tasks
            .iter()
            .filter(|(k, _)| self.alive(k, now).is_some())
            .map(|(k, t)| (k.clone(), self.task_json(k, t, now)))
            .collect();
        live.sort_by(|a, b| a.0.cmp(&b.0));
        let page: Vec<Value> = live
            .iter()
            .skip(start)
            .take(self.page_size)
            .map(|(_, v)| v.clone())
            .collect();
        let mut r = json!({ "tasks": page });
        if start + self.page_size < live.len() {
            r["nextCursor"] = json!((start + self.page_size).to_string());
        }
        self.ok(key, result_msg(id, r))
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

    /// The engine answered one of our requests (an elicitation).
    fn answered(&mut self, now: Millis, id: &Id) {
        let Id::String(s) = id else { return };
        let Some(task_id) = s.strip_prefix("elicit-") else {
            return;
        };
        self.resume(now, &task_id.to_owned());
    }

    /// The input a task waited for arrived: it works one more second.
    fn resume(&mut self, now: Millis, task_id: &str) {
        let Some(t) = self.tasks.get_mut(task_id) else {
            return;
        };
        if t.input_at.is_some_and(|at| now >= at) {
            t.input_at = None;
            t.until = now + 1_000;
            self.timeline.insert((now + 1_000, task_id.to_owned()));
            self.dirty.insert(task_id.to_owned());
        }
    }

    fn schedule(&mut self, id: &str, t: &FakeTask) {
        for at in [Some(t.until), t.input_at, t.ttl.map(|ttl| t.created + ttl)]
            .into_iter()
            .flatten()
        {
            self.timeline.insert((at, id.to_owned()));
        }
    }

    /// When the server next has something to do on its own.
    pub(crate) fn next_event(&self, now: Millis) -> Option<Millis> {
        if !self.dirty.is_empty() {
            return Some(now);
        }
        self.timeline.iter().map(|(t, _)| *t).find(|t| *t > now)
    }

    /// Time passed: the tasks that changed send input requests and pushes, finish draft
    /// originals and unblock results.
    pub(crate) fn advance(&mut self, now: Millis) -> Replies {
        let mut due = std::mem::take(&mut self.dirty);
        while let Some((at, _)) = self.timeline.first() {
            if *at > now {
                break;
            }
            if let Some((_, id)) = self.timeline.pop_first() {
                due.insert(id);
            }
        }
        let mut out = Vec::new();
        for id in due {
            out.extend(self.process(now, &id));
        }
        out
    }

    fn process(&mut self, now: Millis, id: &str) -> Replies {
        let mut out = Vec::new();
        let Some(task) = self.alive(id, now) else {
            for (key, rid) in self.blocked.remove(id).unwrap_or_default() {
                out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: error_msg(Some(rid), -32602, "Task not found"),
                    },
                ));
                out.push((0, Input::Ended { key }));
            }
            return out;
        };
        let status = task.status(now);
        let terminal = task.terminal(now);
        let (input_sent, last_pushed, end) = (task.input_sent, task.last_pushed, task.end.clone());
        if status == "input_required" && !input_sent && self.dialect != Dialect::Modern {
            // Legacy: on a blocked tasks/result stream when there is one; draft: any stream.
            let via = self
                .blocked
                .get(id)
                .and_then(|b| b.first())
                .map(|(k, _)| *k);
            if self.dialect == Dialect::Draft || via.is_some() {
                let via = if self.dialect == Dialect::Legacy {
                    via
                } else {
                    None
                };
                let req = json!({ "jsonrpc": "2.0", "id": format!("elicit-{id}"), "method": "elicitation/create",
                    "params": { "message": "name?", "_meta": { related_key(self.dialect): { "taskId": id } } } });
                out.push((
                    0,
                    Input::Message {
                        via,
                        body: req.to_string(),
                    },
                ));
                if let Some(t) = self.tasks.get_mut(id) {
                    t.input_sent = true;
                }
            }
        }
        if self.push && last_pushed != Some(status) && self.dialect != Dialect::Draft {
            let method = if self.dialect == Dialect::Modern {
                "notifications/tasks"
            } else {
                "notifications/tasks/status"
            };
            let params = self
                .tasks
                .get(id)
                .map(|t| self.task_json(id, t, now))
                .unwrap_or_default();
            let body = json!({ "jsonrpc": "2.0", "method": method, "params": params });
            out.push((
                0,
                Input::Message {
                    via: None,
                    body: body.to_string(),
                },
            ));
            if let Some(t) = self.tasks.get_mut(id) {
                t.last_pushed = Some(status);
            }
        }
        if !terminal {
            return out;
        }
        if let Some((key, rid)) = self.tasks.get_mut(id).and_then(|t| t.origin.take()) {
            match status {
                "completed" => out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: result_msg(rid, self.final_result(id)),
                    },
                )),
                "failed" => out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: error_msg(Some(rid), -32603, "boom"),
                    },
                )),
                _ => {}
            }
            out.push((0, Input::Ended { key }));
        }
        for (key, rid) in self.blocked.remove(id).unwrap_or_default() {
            let body = match (status, end.as_str()) {
                ("failed", "error") => error_msg(Some(rid), -32603, "boom"),
                ("cancelled", _) => error_msg(Some(rid), -32602, "Task was cancelled"),
                ("failed", _) => {
                    let mut r = self.final_result(id);
                    r["isError"] = json!(true);
                    result_msg(rid, r)
                }
                _ => result_msg(rid, self.final_result(id)),
            };
            out.push((
                0,
                Input::Message {
                    via: Some(key),
                    body,
                },
            ));
            out.push((0, Input::Ended { key }));
        }
        out
    }

    /// The engine closed a stream: a blocked result stops.
    pub(crate) fn abort(&mut self, key: SendKey) {
        for b in self.blocked.values_mut() {
            b.retain(|(k, _)| *k != key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::iso;
    use crate::engine::iso8601::parse_millis;

    #[test]
    fn iso_round_trips() {
        for ms in [0u64, 951_782_400_000, 1_735_689_599_999, 1_764_066_600_123] {
            assert_eq!(parse_millis(&iso(ms)), Some(ms));
        }
    }
}
