//! Test scaffolding shared by every engine test: a virtual clock, a fake server per dialect, and
//! a loop that delivers the server's answers with latency and records what the engine did,
//! checking the "≤ 1 status request in flight per task" invariant as it goes.

// Test-only code (never in the wasm binary): the wasm size rules of clippy.toml don't apply.
#![allow(clippy::disallowed_methods)]

pub(crate) mod balancer;
mod delivery;
mod handover;
pub(crate) mod heap;
mod held;
mod run;
pub(crate) mod script;
pub(crate) mod server;

use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

use crate::json::{json, Value};

use crate::protocol::model::{Dialect, TaskStatus};

use crate::collections::hash::IdHash;
use crate::engine::api::{
    CallOptions, Config, DialectChoice, End, Event, Input, Millis, OpId, Output, SendKey, SubId,
    Transmit,
};
use crate::engine::Engine;
use crate::engine::Rng;
use delivery::Delivery;
pub(crate) use script::{
    accept_initialize, answer, discover_result, drain, events_of, feed, head, modern_engine,
    outputs, read_resource, warnings,
};
pub(crate) use server::FakeServer;

/// A fixed start time (2025-06-15).
pub(crate) const T0: Millis = 1_750_000_000_000;

/// One transmission the engine made.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub(crate) at: Millis,
    pub(crate) key: SendKey,
    pub(crate) method: String,
    pub(crate) task_id: Option<String>,
    /// Sent as a background request (`Transmit::background`).
    pub(crate) background: bool,
}

impl Sent {
    /// `"12345 tasks/get t1"`: handy in assertion messages.
    pub(crate) fn line(&self) -> String {
        format!(
            "{} {} {}",
            self.at - T0,
            self.method,
            self.task_id.as_deref().unwrap_or("")
        )
    }
}

/// What the harness plays the server with: the fake server, or a transcript replay.
pub(crate) trait World {
    /// A transmission from the engine: its method, task id, and the answers (each after a delay).
    fn handle(&mut self, now: Millis, tx: &Transmit) -> (String, Option<String>, server::Replies);
    /// Time passed: what the server sends on its own.
    fn advance(&mut self, now: Millis) -> server::Replies;
    /// When the server next acts on its own.
    fn next_event(&self, now: Millis) -> Option<Millis>;
    /// The engine closed a stream.
    fn abort(&mut self, key: SendKey);
}

impl World for FakeServer {
    fn handle(&mut self, now: Millis, tx: &Transmit) -> (String, Option<String>, server::Replies) {
        FakeServer::handle(self, now, tx)
    }
    fn advance(&mut self, now: Millis) -> server::Replies {
        FakeServer::advance(self, now)
    }
    fn next_event(&self, now: Millis) -> Option<Millis> {
        FakeServer::next_event(self, now)
    }
    fn abort(&mut self, key: SendKey) {
        FakeServer::abort(self, key)
    }
}

/// Every `tasks/get` sent for one task: (time, its answer reached the engine with the task, the
/// engine knew the task's interval when it sent it).
struct PollLog {
    task: String,
    log: Vec<(Millis, bool, bool)>,
    in_flight: Option<SendKey>,
}

/// `PROPTEST_CASES` overrides the number of property cases (e.g. for a long soak run).
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Engine + server + virtual time.
pub(crate) struct Harness<S: World = FakeServer> {
    pub(crate) engine: Engine,
    pub(crate) server: S,
    pub(crate) now: Millis,
    pub(crate) events: Vec<Event>,
    pub(crate) sent: Vec<Sent>,
    pub(crate) session_ends: usize,
    /// GET listening streams the engine opened: (when, which, from which event id).
    pub(crate) listened: Vec<(Millis, SendKey, Option<String>)>,
    /// The one open now (it holds a pool slot until it ends).
    listening: Option<SendKey>,
    /// When the engine asked for a new WebSocket.
    pub(crate) reconnects: Vec<Millis>,
    /// Streams the engine closed: (when, which).
    pub(crate) aborted: Vec<(Millis, SendKey)>,
    /// Deliveries by time; one batch = one server answer, delivered in order.
    queue: BinaryHeap<Delivery>,
    seq: u64,
    wake: Millis,
    rng: Rng,
    /// Delivery latency bounds (ms).
    pub(crate) latency: (Millis, Millis),
    /// How long a transmission takes to reach the server, bounds in ms (a busy page, a request
    /// queued in the browser): the server sees it, and logs its poll, that much later.
    pub(crate) request_delay: (Millis, Millis),
    /// Transmissions on their way to the server: (arrival time, transmission).
    arriving: Vec<(Millis, Transmit)>,
    /// Answer every input request at once with an accepting elicitation result.
    pub(crate) auto_answer: bool,
    /// Keep the event log (off for long simulations).
    pub(crate) record: bool,
    /// Tasks polled so far → their index in `polls`.
    polled: HashMap<String, usize, IdHash>,
    /// Status requests in flight: key → (task index, index in its log).
    get_keys: HashMap<SendKey, (usize, usize), IdHash>,
    /// Status requests handed out and not yet at the server: whether the engine knew the task's
    /// interval when it handed each out (it may learn it while the request travels).
    knew_at_send: HashMap<SendKey, bool, IdHash>,
    /// Per polled task: its `tasks/get` log and the one in flight.
    polls: Vec<PollLog>,
    pub(crate) violations: Vec<String>,
    /// A browser's HTTP/1.1 pool: at most this many streams open at once (the legacy GET
    /// listening stream holds one while open); transmissions beyond it wait their turn, background
    /// ones after every other.
    pub(crate) pool: Option<usize>,
    open: HashSet<SendKey, IdHash>,
    waiting: VecDeque<Transmit>,
    /// When each transmission in `waiting` began to wait.
    queued_at: HashMap<SendKey, Millis, IdHash>,
    /// Transmissions that waited for a pool slot, and how long.
    pub(crate) waited: Vec<(SendKey, Millis)>,
    /// How long an aborted stream whose head came keeps its pool slot (Chromium drains ≤ 5 s).
    pub(crate) drain_ms: Millis,
    headed: HashSet<SendKey, IdHash>,
    /// Aborted streams draining in the pool: (when the slot frees, which).
    draining: Vec<(Millis, SendKey)>,
    /// `tasks/result` streams open now (with their task), and the most open at once.
    results_open: HashMap<SendKey, Option<String>, IdHash>,
    pub(crate) max_results_open: usize,
    /// The most transmissions the browser held at once (open or queued), with a pool.
    pub(crate) max_handed: usize,
}

impl Harness {
    pub(crate) fn new(choice: DialectChoice, server: Dialect, seed: u64) -> Self {
        let cfg = Config {
            dialect: choice,
            ..Config::default()
        };
        Self::with_config(cfg, server, seed)
    }

    pub(crate) fn with_config(cfg: Config, server: Dialect, seed: u64) -> Self {
        Harness::with_world(cfg, FakeServer::new(server, seed), seed)
    }

    /// When the server processed `tasks/get` for a task.
    pub(crate) fn get_times(&self, task_id: &str) -> Vec<Millis> {
        self.server.gets.get(task_id).cloned().unwrap_or_default()
    }
}

impl<S: World> Harness<S> {
    pub(crate) fn with_world(cfg: Config, server: S, seed: u64) -> Self {
        Self {
            engine: Engine::new(cfg, seed, T0),
            server,
            now: T0,
            events: Vec::new(),
            sent: Vec::new(),
            session_ends: 0,
            listened: Vec::new(),
            listening: None,
            reconnects: Vec::new(),
            aborted: Vec::new(),
            queue: BinaryHeap::new(),
            seq: 0,
            wake: T0,
            rng: Rng::new(seed.wrapping_mul(31).wrapping_add(7)),
            latency: (5, 30),
            request_delay: (0, 0),
            arriving: Vec::new(),
            auto_answer: true,
            record: true,
            polled: HashMap::default(),
            get_keys: HashMap::default(),
            knew_at_send: HashMap::default(),
            polls: Vec::new(),
            violations: Vec::new(),
            pool: None,
            open: HashSet::default(),
            waiting: VecDeque::new(),
            queued_at: HashMap::default(),
            waited: Vec::new(),
            drain_ms: 0,
            headed: HashSet::default(),
            draining: Vec::new(),
            results_open: HashMap::default(),
            max_results_open: 0,
            max_handed: 0,
        }
    }

    /// Streams the pool holds: the open ones, plus the GET listening stream while it is open.
    fn pool_used(&self) -> usize {
        self.open.len() + usize::from(self.listening.is_some())
    }

    /// Hands a transmission to the server (through the pool, when there is one).
    fn transmit(&mut self, t: Transmit) {
        if let Some(cap) = self.pool {
            let handed = self.open.len() + self.waiting.len() + 1;
            self.max_handed = self.max_handed.max(handed);
            if self.pool_used() >= cap {
                self.queued_at.entry(t.key).or_insert(self.now);
                self.waiting.push_back(t);
                return;
            }
            self.open.insert(t.key);
            if let Some(at) = self.queued_at.remove(&t.key) {
                self.waited.push((t.key, self.now - at));
            }
        }
        if self.request_delay.1 > 0 {
            let at = self.now + self.rng.between(self.request_delay.0, self.request_delay.1);
            self.arriving.push((at, t));
            return;
        }
        self.arrive(t);
    }

    /// A transmission reaches the server now.
    fn arrive(&mut self, t: Transmit) {
        let (method, task_id, replies) = self.server.handle(self.now, &t);
        if let (true, Some(task)) = (method == "tasks/get", &task_id) {
            self.track_get(t.key, task);
        }
        if method == "tasks/result" {
            self.result_opened(t.key, task_id.clone());
        }
        if self.record || method != "tasks/get" {
            self.sent.push(Sent {
                at: self.now,
                key: t.key,
                method,
                task_id,
                background: t.background,
            });
        }
        self.schedule(replies);
    }

    /// A stream is over (ended, failed, aborted): its pool slot goes to the next in line.
    fn release(&mut self, key: SendKey) {
        self.knew_at_send.remove(&key);
        self.results_open.remove(&key);
        self.arriving.retain(|(_, t)| t.key != key);
        self.headed.remove(&key);
        self.draining.retain(|(_, k)| *k != key);
        let listened = self.listening == Some(key);
        if listened {
            self.listening = None;
        }
        if self.pool.is_none() {
            return;
        }
        self.waiting.retain(|t| t.key != key);
        self.queued_at.remove(&key);
        if self.open.remove(&key) || listened {
            // As Chromium's pool: the first in line at the default priority, else the first
            // background one (status polls go at the low priority).
            let first = self.waiting.iter().position(|t| !t.background).unwrap_or(0);
            if let Some(next) = self.waiting.remove(first) {
                self.transmit(next);
            }
        }
    }

    /// Drains the engine's outputs at the current time.
    pub(crate) fn pump(&mut self) {
        loop {
            match self.engine.poll_output(self.now) {
                Output::Wake(at) => {
                    self.wake = at;
                    return;
                }
                Output::Transmit(t) => {
                    self.note_get_sent(t.key);
                    self.transmit(t)
                }
                Output::Abort { key } => {
                    self.aborted.push((self.now, key));
                    self.server.abort(key);
                    self.clear_get(key, None);
                    if self.drain_ms > 0 && self.headed.contains(&key) {
                        self.draining.push((self.now + self.drain_ms, key));
                    } else {
                        self.release(key);
                    }
                }
                Output::Listen {
                    key, last_event_id, ..
                } => {
                    self.listened.push((self.now, key, last_event_id));
                    self.listening = Some(key);
                }
                Output::Resume { .. } => {}
                Output::Reconnect => self.reconnects.push(self.now),
                Output::EndSession { .. } => self.session_ends += 1,
                Output::Event(e) => {
                    if let (true, Event::Input { id, .. }) = (self.auto_answer, &e) {
                        let id = *id;
                        self.engine.answer_input(
                            self.now,
                            id,
                            Ok(json!({ "action": "accept", "content": { "name": "x" } })),
                        );
                    }
                    if self.record || matches!(e, Event::Done { .. }) {
                        self.events.push(e);
                    }
                }
            }
        }
    }

    fn schedule(&mut self, replies: server::Replies) {
        if replies.is_empty() {
            return;
        }
        let latency = self.rng.between(self.latency.0, self.latency.1);
        let mut batch = Vec::with_capacity(replies.len());
        for (delay, input) in replies {
            if delay == 0 {
                batch.push(input);
            } else {
                self.seq += 1;
                let at = self.now + latency + delay;
                self.queue.push(Delivery {
                    at,
                    seq: self.seq,
                    inputs: vec![input],
                });
            }
        }
        self.seq += 1;
        let at = self.now + latency;
        self.queue.push(Delivery {
            at,
            seq: self.seq,
            inputs: batch,
        });
    }

    /// Whether the engine knows task `task`'s interval now.
    fn knows_interval(&self, task: &str) -> bool {
        self.engine.knows_interval(task)
    }

    /// The engine hands out transmission `key`: when it is a status request, note whether the
    /// engine knew the task's interval as it decided to send it.
    fn note_get_sent(&mut self, key: SendKey) {
        if let Some(task) = self.engine.status_asked_by(key) {
            let knew = self.knows_interval(task);
            self.knew_at_send.insert(key, knew);
        }
    }

    /// A status request reached the server: log it, and check no other one is in flight for the
    /// task.
    fn track_get(&mut self, key: SendKey, task: &str) {
        let knew = match self.knew_at_send.remove(&key) {
            Some(knew) => knew,
            None => self.knows_interval(task),
        };
        let t = match self.polled.get(task) {
            Some(&t) => t,
            None => {
                self.polled.insert(task.to_owned(), self.polls.len());
                self.polls.push(PollLog {
                    task: task.to_owned(),
                    log: Vec::new(),
                    in_flight: None,
                });
                self.polls.len() - 1
            }
        };
        let Some(p) = self.polls.get_mut(t) else {
            return;
        };
        p.log.push((self.now, false, knew));
        let index = p.log.len() - 1;
        if p.in_flight.replace(key).is_some() {
            let at = self.now;
            self.violations
                .push(format!("two tasks/get in flight for {task} at {at}"));
        }
        self.get_keys.insert(key, (t, index));
    }

    /// The engine stopped waiting for a status request; `answer` = the body it got, if any.
    fn clear_get(&mut self, key: SendKey, answer: Option<&str>) {
        let Some((t, i)) = self.get_keys.remove(&key) else {
            return;
        };
        let Some(p) = self.polls.get_mut(t) else {
            return;
        };
        if let Some(body) = answer {
            // An answer the engine still waited for: it learnt the task (and its interval).
            if let Some(entry) = p.log.get_mut(i) {
                entry.1 = body.contains(r#""result""#);
            }
        }
        if p.in_flight == Some(key) {
            p.in_flight = None;
        }
    }

    fn deliver(&mut self, input: Input) {
        match &input {
            Input::Message { via: Some(k), body } => self.clear_get(*k, Some(body)),
            Input::Head { key, .. } if self.drain_ms > 0 => _ = self.headed.insert(*key),
            Input::Ended { key: k } | Input::Failed { key: k, .. } => {
                self.clear_get(*k, None);
                self.release(*k);
            }
            // The link is gone: whatever was in flight on it is lost.
            Input::Connection { up: false } => {
                self.arriving.clear();
                for p in &mut self.polls {
                    p.in_flight = None;
                }
                self.get_keys.clear();
                self.results_open.clear();
            }
            _ => {}
        }
        self.engine.handle_input(self.now, input);
    }

    /// Feeds an input directly (as the driver would).
    pub(crate) fn input(&mut self, input: Input) {
        self.deliver(input);
        self.pump();
    }

    pub(crate) fn call(&mut self, tool: &str, args: Value) -> SubId {
        self.call_with(tool, args, CallOptions::default())
    }

    pub(crate) fn call_with(&mut self, tool: &str, args: Value, opts: CallOptions) -> SubId {
        let sub = self.engine.call_tool(self.now, tool, args, opts);
        self.pump();
        sub
    }

    pub(crate) fn watch(&mut self, task_id: &str) -> SubId {
        let sub = self.engine.watch(self.now, task_id);
        self.pump();
        sub
    }

    pub(crate) fn unsubscribe(&mut self, sub: SubId) {
        self.engine.unsubscribe(self.now, sub);
        self.pump();
    }

    // ----- reading the record -----

    pub(crate) fn dones(&self, sub: SubId) -> Vec<&End> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Done { sub: s, end, .. } if *s == sub => Some(end),
                _ => None,
            })
            .collect()
    }

    /// The one `Done` of a subscription (test failure when there is not exactly one).
    pub(crate) fn done(&self, sub: SubId) -> End {
        let all = self.dones(sub);
        assert_eq!(
            all.len(),
            1,
            "expected exactly one Done for {sub:?}, got {all:?}"
        );
        all[0].clone()
    }

    pub(crate) fn statuses(&self, sub: SubId) -> Vec<TaskStatus> {
        let mut out: Vec<TaskStatus> = Vec::new();
        for e in &self.events {
            if let Event::Status { sub: s, task } = e {
                if *s == sub && out.last() != Some(&task.status) {
                    out.push(task.status);
                }
            }
        }
        out
    }

    /// The task id a subscription follows (from its Status events).
    pub(crate) fn task_of(&self, sub: SubId) -> Option<String> {
        self.events.iter().find_map(|e| match e {
            Event::Status { sub: s, task } if *s == sub => Some(task.task_id.clone()),
            _ => None,
        })
    }

    pub(crate) fn transitions(&self, task_id: &str) -> Vec<(Option<TaskStatus>, TaskStatus)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Transition {
                    task_id: t,
                    from,
                    to,
                    ..
                } if t == task_id => Some((*from, *to)),
                _ => None,
            })
            .collect()
    }

    pub(crate) fn reply(&self, op: OpId) -> Option<Result<Value, crate::engine::api::ClientError>> {
        self.events.iter().find_map(|e| match e {
            Event::Reply { op: o, result } if *o == op => Some(result.clone()),
            _ => None,
        })
    }

    pub(crate) fn count(&self, method: &str) -> usize {
        self.sent.iter().filter(|s| s.method == method).count()
    }

    pub(crate) fn inputs_seen(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Input { .. }))
            .count()
    }

    /// Every `tasks/get` the engine sent for a task went out at least `interval` after the one
    /// before it, when the answer to that one reached the engine (so it knew the interval), or
    /// when the engine knew the interval as it sent the second one (after a failed poll too).
    pub(crate) fn check_poll_spacing(
        &self,
        interval_of: impl Fn(&str) -> Option<Millis>,
    ) -> Result<(), String> {
        for PollLog { task, log, .. } in &self.polls {
            let floor = interval_of(task).unwrap_or(0);
            for w in log.windows(2) {
                let ((a, informed, _), (b, _, knew)) = (w[0], w[1]);
                // After a failed poll too, once the engine knew the interval.
                if (informed || knew) && b - a < floor {
                    return Err(format!(
                        "{task}: polls {} ms apart, interval {floor}",
                        b - a
                    ));
                }
            }
        }
        Ok(())
    }

    /// Nothing is left in the engine's memory for tasks, calls, inputs or subscriptions.
    pub(crate) fn engine_is_empty(&self) -> bool {
        self.engine.holds_nothing()
    }
}
