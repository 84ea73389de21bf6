//! Replays the recorded transcripts of real servers (`tests/fixtures/transcripts/*.json`) through
//! the engine: the caller's operations are repeated at their recorded times (an operation naming a
//! task the recorded client had learned waits until the replay learned it too, and everything after
//! it shifts by as much), and every request the
//! engine makes is answered with the recorded answer to the same kind of request (same method,
//! same task, same tool and augmentation; ids rewritten), with the server messages that came
//! around it. Checks: no panic, no message the dialects could not read, exactly one `Done` per
//! subscription, and each task ends the way it ended on the real server.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::json::{json, Value};

use crate::engine::api::{
    Augment, CallOptions, Config, DialectChoice, End, ErrorKind, Event, Input, Millis, SendKey,
    SubId, Transmit,
};
use crate::engine::registry::results::TIGHT_BUDGET;
use crate::protocol::model::TaskStatus;
use crate::testkit::server::Replies;
use crate::testkit::{Harness, World};

/// One recorded request and what came back.
#[derive(Debug, Clone, Default)]
struct Exchange {
    status: u16,
    session_id: Option<String>,
    /// Server messages sent while the request was open: (delay, on its stream, body).
    around: Vec<(Millis, bool, Value)>,
    response: Option<(Millis, Value)>,
}

/// A recorded caller operation.
#[derive(Debug, Clone)]
enum Op {
    Call {
        name: String,
        args: Value,
        augment: Augment,
    },
    Cancel(String),
    List(Option<String>),
    Tools,
    Watch(String),
}

/// A transcript as a server.
struct Replay {
    queues: HashMap<String, VecDeque<Exchange>>,
    last: HashMap<String, Exchange>,
}

fn has_task(params: &Value) -> bool {
    params.get("task").is_some()
        || params
            .get("_meta")
            .and_then(|m| m.get("modelcontextprotocol.io/task"))
            .is_some()
}

/// What makes two requests "the same kind" for answering purposes.
fn kind(method: &str, params: &Value) -> String {
    let text = |k: &str| {
        params
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match method {
        "tools/call" => format!("tools/call|{}|{}", text("name"), has_task(params)),
        "tasks/list" | "tools/list" => format!("{method}|{}", text("cursor")),
        _ => format!("{method}|{}", text("taskId")),
    }
}

struct Transcript {
    replay: Replay,
    ops: Vec<(Millis, Op)>,
    handshake: bool,
    /// Task id → how the recorded session left it (last status, or gone).
    endings: HashMap<String, Ending>,
    /// Tasks created by recorded calls, in order.
    created: Vec<String>,
    /// Task id → when the recorded client first heard of it.
    learned: HashMap<String, Millis>,
}

const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

#[derive(Debug, Clone, PartialEq)]
enum Ending {
    Status(String),
    Gone,
}

fn status_of(body: &Value) -> Option<(String, String)> {
    let candidates = [
        body.get("result").and_then(|r| r.get("task")),
        body.get("result"),
        body.get("params"),
    ];
    candidates.into_iter().flatten().find_map(|t| {
        Some((
            t.get("taskId")?.as_str()?.to_owned(),
            t.get("status")?.as_str()?.to_owned(),
        ))
    })
}

fn load(path: &Path) -> Option<Transcript> {
    let entries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let mut exchanges: Vec<(String, Millis, Exchange)> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut id_kind: HashMap<String, String> = HashMap::new();
    let mut ops = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    let mut endings = HashMap::new();
    let mut created = Vec::new();
    let mut learned = HashMap::new();
    let mut handshake = false;
    let mut current: Option<usize> = None;
    for e in &entries {
        let t = e.get("t").and_then(Value::as_u64).unwrap_or(0);
        let body = e.get("body").cloned().unwrap_or(Value::Null);
        let method = body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = body.get("id").map(Value::to_string);
        let params = body.get("params").cloned().unwrap_or(Value::Null);
        match e.get("dir").and_then(Value::as_str) {
            Some("send") => {
                let (Some(method), Some(id)) = (method, id) else {
                    continue;
                };
                handshake |= method == "initialize";
                let task = params
                    .get("taskId")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                match method.as_str() {
                    "tools/call" if params.get("inputResponses").is_none() => {
                        let name = params
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned();
                        let args = params.get("arguments").cloned().unwrap_or(json!({}));
                        let augment = if has_task(&params) {
                            Augment::Always
                        } else {
                            Augment::Never
                        };
                        ops.push((
                            t,
                            Op::Call {
                                name,
                                args,
                                augment,
                            },
                        ));
                    }
                    "tasks/cancel" => ops.extend(task.clone().map(|tid| (t, Op::Cancel(tid)))),
                    "tasks/list" => {
                        let cursor = params
                            .get("cursor")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        ops.push((t, Op::List(cursor)));
                    }
                    "tools/list" => ops.push((t, Op::Tools)),
                    "tasks/get" => {
                        if let Some(tid) = task.clone().filter(|tid| !known.contains(tid)) {
                            ops.push((t, Op::Watch(tid)));
                        }
                    }
                    _ => {}
                }
                by_id.insert(id.clone(), exchanges.len());
                id_kind.insert(id, method.clone());
                current = Some(exchanges.len());
                exchanges.push((
                    kind(&method, &params),
                    t,
                    Exchange {
                        status: 200,
                        ..Exchange::default()
                    },
                ));
            }
            Some("recv") => {
                if body.is_null() {
                    continue;
                }
                if let Some((tid, status)) = status_of(&body) {
                    learned.entry(tid.clone()).or_insert(t);
                    if known.insert(tid.clone())
                        && id
                            .as_ref()
                            .and_then(|i| id_kind.get(i))
                            .is_some_and(|m| m == "tools/call")
                    {
                        created.push(tid.clone());
                    }
                    // The first end the server reported is final (later reports may contradict it).
                    if !matches!(endings.get(&tid), Some(Ending::Status(s)) if TERMINAL.contains(&s.as_str()))
                    {
                        endings.insert(tid, Ending::Status(status));
                    }
                }
                let http = e.get("http");
                if method.is_some() {
                    let Some((_, sent, ex)) = current.and_then(|i| exchanges.get_mut(i)) else {
                        continue;
                    };
                    let on_stream = e.get("via").and_then(Value::as_str) == Some("post");
                    ex.around.push((t.saturating_sub(*sent), on_stream, body));
                } else if let Some(i) = id.and_then(|i| by_id.get(&i).copied()) {
                    let Some((k, sent, ex)) = exchanges.get_mut(i) else {
                        continue;
                    };
                    if body.get("error").is_some() && k.starts_with("tasks/get|") {
                        let tid = k.trim_start_matches("tasks/get|").to_owned();
                        let ended = matches!(endings.get(&tid), Some(Ending::Status(s)) if TERMINAL.contains(&s.as_str()));
                        if known.contains(&tid) && !ended {
                            endings.insert(tid, Ending::Gone);
                        }
                    }
                    ex.status = http
                        .and_then(|h| h.get("status"))
                        .and_then(Value::as_u64)
                        .unwrap_or(200) as u16;
                    ex.session_id = http
                        .and_then(|h| h.get("headers"))
                        .and_then(|h| h.get("mcp-session-id"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    ex.response = Some((t.saturating_sub(*sent), body));
                }
            }
            _ => {}
        }
    }
    let mut queues: HashMap<String, VecDeque<Exchange>> = HashMap::new();
    for (k, _, ex) in exchanges {
        queues.entry(k).or_default().push_back(ex);
    }
    let replay = Replay {
        queues,
        last: HashMap::new(),
    };
    Some(Transcript {
        replay,
        ops,
        handshake,
        endings,
        created,
        learned,
    })
}

impl World for Replay {
    fn handle(&mut self, _now: Millis, tx: &Transmit) -> (String, Option<String>, Replies) {
        let key = tx.key;
        let body: Value = serde_json::from_str(&tx.body).unwrap_or(Value::Null);
        let method = body
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("(response)")
            .to_owned();
        let params = body.get("params").cloned().unwrap_or(Value::Null);
        let task = params
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let head = |status: u16, session_id: Option<String>| Input::Head {
            key,
            status,
            session_id,
            retry_after_ms: None,
            www_authenticate: None,
        };
        let Some(id) = body
            .get("id")
            .cloned()
            .filter(|_| body.get("method").is_some())
        else {
            return (
                method,
                task,
                vec![(0, head(202, None)), (0, Input::Ended { key })],
            );
        };
        let k = kind(&method, &params);
        let fresh = self.queues.get_mut(&k).and_then(VecDeque::pop_front);
        let ex = match fresh {
            Some(ex) => {
                self.last.insert(k, ex.clone());
                ex
            }
            // The server stays as it last was: repeat its last answer (not its side messages).
            None => match self.last.get(&k) {
                Some(ex) => Exchange {
                    around: Vec::new(),
                    ..ex.clone()
                },
                None => {
                    // A status request the recorded client never made (pushes told it): a
                    // transient error, so the recorded pushes decide. Anything else: not found.
                    let code = if method == "tasks/get" {
                        -32603
                    } else {
                        -32601
                    };
                    let error = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": "not recorded" } });
                    return (
                        method,
                        task,
                        vec![
                            (0, head(200, None)),
                            (0, msg(Some(key), &error)),
                            (0, Input::Ended { key }),
                        ],
                    );
                }
            },
        };
        let mut out: Replies = vec![(0, head(ex.status, ex.session_id.clone()))];
        let mut end = 0;
        for (delay, on_stream, m) in &ex.around {
            out.push((*delay, msg(on_stream.then_some(key), m)));
            end = end.max(*delay);
        }
        if let Some((delay, mut response)) = ex.response.clone() {
            response["id"] = id;
            out.push((delay, msg(Some(key), &response)));
            end = end.max(delay);
        }
        out.push((end, Input::Ended { key }));
        (method, task, out)
    }

    fn advance(&mut self, _now: Millis) -> Replies {
        Vec::new()
    }

    fn next_event(&self, _now: Millis) -> Option<Millis> {
        None
    }

    fn abort(&mut self, _key: SendKey) {}
}

fn msg(via: Option<SendKey>, body: &Value) -> Input {
    Input::Message {
        via,
        body: body.to_string(),
    }
}

fn transcripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn finished_status(end: &End) -> Option<TaskStatus> {
    match end {
        End::Finished { task: Some(t), .. } => Some(t.status),
        _ => None,
    }
}

fn word(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::Submitted => "submitted",
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        TaskStatus::Unknown => "unknown",
        TaskStatus::Expired => "expired",
    }
}

/// Runs until the engine has reported task `task` (at most a minute): when it did.
fn learn<S: crate::testkit::World>(h: &mut Harness<S>, task: &str) -> Millis {
    let knows = |h: &Harness<S>| {
        h.events.iter().any(|e| match e {
            Event::Status { task: t, .. } => t.task_id == task,
            Event::Transition { task_id, .. } => task_id == task,
            _ => false,
        })
    };
    h.run_until_done(60_000, knows)
}

/// Plays one transcript; returns the problems found.
fn replay(path: &Path) -> Vec<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(tr) = load(path) else {
        return vec![format!("{name}: unreadable")];
    };
    let dialect = if tr.handshake {
        DialectChoice::Legacy
    } else {
        DialectChoice::Modern
    };
    // A running task's held result would be answered at once with its recorded (final) answer:
    // a tight budget holds none, as the recording client did.
    let cfg = Config {
        dialect,
        max_blocking_results: Some(TIGHT_BUDGET),
        ..Config::default()
    };
    let mut h = Harness::with_world(cfg, tr.replay, 5);
    h.latency = (2, 2);
    let mut subs: Vec<(SubId, Op)> = Vec::new();
    // How far the replay runs behind the recording (the engine may send later than the recorded
    // client did, e.g. after the `initialized` notification's answer).
    let mut lag: Millis = 0;
    for (t, op) in tr.ops {
        let learned = match &op {
            Op::Cancel(task) => tr.learned.get(task).map(|k| (task, *k)),
            _ => None,
        };
        if let Some((task, k)) = learned.filter(|(_, k)| *k <= t) {
            let known_at = learn(&mut h, task);
            lag = lag.max(known_at.saturating_sub(crate::testkit::T0 + k));
        }
        h.run_until(crate::testkit::T0 + t + lag);
        let now = h.now;
        match &op {
            Op::Call {
                name,
                args,
                augment,
            } => {
                let opts = CallOptions {
                    augment: *augment,
                    ..CallOptions::default()
                };
                subs.push((h.call_with(name, args.clone(), opts), op.clone()));
            }
            Op::Cancel(t) => {
                h.engine.cancel(now, t);
            }
            Op::List(c) => {
                h.engine.list_tasks(now, c.as_deref());
            }
            Op::Tools => {
                h.engine.list_tools(now);
            }
            Op::Watch(t) => subs.push((h.watch(t), op.clone())),
        }
        h.pump();
    }
    h.run_for(10 * 60_000);
    let mut problems = Vec::new();
    for e in &h.events {
        if let Event::Warning { error, .. } = e {
            if error.kind == ErrorKind::Protocol {
                problems.push(format!(
                    "{name}: unreadable server message: {}",
                    error.message
                ));
            }
        }
    }
    // Each task a recorded call created ends as it ended on the server.
    for (sub, _) in &subs {
        let dones = h.dones(*sub);
        let Some(end) = dones.first() else { continue };
        let Some(task) = h.task_of(*sub).filter(|t| tr.created.contains(t)) else {
            continue;
        };
        let got = finished_status(end).map(word);
        let want = match tr.endings.get(&task) {
            Some(Ending::Status(s)) => Some(s.as_str()),
            Some(Ending::Gone) => Some("expired"),
            None => None,
        };
        let settled = want.is_some_and(|w| TERMINAL.contains(&w) || w == "expired");
        if settled && got != want {
            problems.push(format!(
                "{name}: task {task} ended {got:?}, the server said {want:?}"
            ));
        }
    }
    h.engine.close(h.now);
    h.pump();
    for (sub, op) in &subs {
        let n = h.dones(*sub).len();
        if n != 1 {
            problems.push(format!("{name}: {op:?} got {n} Done events"));
        }
    }
    problems
}

#[test]
fn recorded_transcripts_replay_cleanly() {
    let files = transcripts();
    let mut problems = Vec::new();
    for f in &files {
        problems.extend(replay(f));
    }
    println!("replayed {} transcripts", files.len());
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
