//! Properties over random interleavings of calls, watches, subscriber churn, cancels, pushes,
//! faults, dead sessions, visibility changes and delays, in every dialect; and fuzzing of raw
//! inputs (nothing may panic, every subscription ends exactly once).

use std::collections::HashMap;

use crate::json::{json, Value};
use proptest::prelude::*;

use crate::engine::api::{
    Augment, CallOptions, Config, DialectChoice, Event, Input, InputId, Link, SendKey, SubId,
    TransportError,
};
use crate::engine::tests::cases;
use crate::engine::Engine;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

#[derive(Debug, Clone)]
enum Op {
    Call {
        ms: u64,
        end: u8,
        input: bool,
        interval: Option<u64>,
        ttl: Option<u64>,
        augment: u8,
    },
    Watch(usize),
    WatchBogus,
    Unsub(usize),
    Cancel(usize),
    Advance(u64),
    Visibility(bool),
    Online,
    Link(bool),
    KillSession,
    Forget(usize),
    List,
    Push(bool),
    Faults(u32, u32, u32),
    /// How long held results take to notice an end, and whether answering one forgets the task.
    HeldResults(u64, bool),
    /// The server goes down (every request refused) or comes back.
    Down(bool),
    Garbage(String),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (500u64..120_000, 0u8..4, any::<bool>(), prop::option::of(500u64..8_000),
              prop::option::of(5_000u64..300_000), 0u8..3)
            .prop_map(|(ms, end, input, interval, ttl, augment)| Op::Call { ms, end, input, interval, ttl, augment }),
        2 => (0usize..16).prop_map(Op::Watch),
        1 => Just(Op::WatchBogus),
        3 => (0usize..16).prop_map(Op::Unsub),
        1 => (0usize..16).prop_map(Op::Cancel),
        8 => (1u64..40_000).prop_map(Op::Advance),
        1 => any::<bool>().prop_map(Op::Visibility),
        1 => Just(Op::Online),
        1 => any::<bool>().prop_map(Op::Link),
        1 => Just(Op::KillSession),
        1 => (0usize..16).prop_map(Op::Forget),
        1 => Just(Op::List),
        1 => any::<bool>().prop_map(Op::Push),
        1 => (0u32..30, 0u32..30, 0u32..10).prop_map(|(a, b, c)| Op::Faults(a, b, c)),
        1 => (0u64..3, any::<bool>()).prop_map(|(lag, consume)| Op::HeldResults(lag * 450, consume)),
        1 => any::<bool>().prop_map(Op::Down),
        1 => ".{0,40}".prop_map(Op::Garbage),
    ]
}

/// Harness kinds (see [`harness`]): 3 to 5 are the draft's.
const KINDS: u8 = if cfg!(feature = "draft") { 6 } else { 3 };

fn scenario() -> impl Strategy<Value = (u8, u64, Vec<Op>)> {
    (0u8..KINDS, any::<u64>(), prop::collection::vec(op(), 1..40))
}

fn harness(kind: u8, seed: u64) -> Harness {
    let (choice, server) = match kind {
        0 => (DialectChoice::Auto, Dialect::Modern),
        1 => (DialectChoice::Auto, Dialect::Legacy),
        2 => (DialectChoice::Legacy, Dialect::Legacy),
        // Draft: chosen, detected, and (4) a JSON-only server that never sends `created`.
        3 | 4 => (DialectChoice::Draft, Dialect::Draft),
        _ => (DialectChoice::Auto, Dialect::Draft),
    };
    let cfg = Config {
        dialect: choice,
        // Legacy on Node: running tasks hold their results (or leave the end to pushes).
        link: if kind == 2 { Link::Node } else { Link::Http1 },
        request_timeout_ms: 20_000,
        result_gc_ms: 60_000,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, server, seed);
    h.latency = (1, 400);
    h.request_delay = (0, 300);
    h.server.announce = kind != 4;
    // Half the held-result runs push from the start: pushed ends race the held results. Held
    // results may lag behind the end, and answering one may make the server forget the task.
    h.server.push = kind == 2 && seed % 2 == 1;
    h.server.faults.held_result_lag = (seed / 2 % 3) * 450;
    h.server.faults.consume_results = seed / 6 % 2 == 1;
    // Some results are refused with `429, Retry-After` (retried first after the hold).
    h.server.faults.throttled_results = u32::try_from(seed % 3).unwrap_or(0);
    h.server.faults.throttle_ms = 1_500;
    h
}

/// Plays the ops; returns every subscription made.
fn play(h: &mut Harness, ops: &[Op]) -> Vec<SubId> {
    let mut subs: Vec<SubId> = Vec::new();
    let tasks = |h: &Harness| -> Vec<String> { h.server.intervals.keys().cloned().collect() };
    for op in ops {
        match op.clone() {
            Op::Call {
                ms,
                end,
                input,
                interval,
                ttl,
                augment,
            } => {
                let end = ["completed", "failed", "error", "cancelled"][usize::from(end % 4)];
                let args = json!({ "ms": ms, "end": end, "input": input, "interval": interval, "ttl": ttl });
                let augment =
                    [Augment::Auto, Augment::Always, Augment::Never][usize::from(augment % 3)];
                subs.push(h.call_with(
                    "job",
                    args,
                    CallOptions {
                        ttl_ms: ttl,
                        augment,
                        ..CallOptions::default()
                    },
                ));
            }
            Op::Watch(i) => {
                let all = tasks(h);
                if let Some(t) = all.get(i % all.len().max(1)) {
                    subs.push(h.watch(t));
                }
            }
            Op::WatchBogus => subs.push(h.watch("bogus")),
            Op::Unsub(i) => {
                if let Some(s) = subs.get(i % subs.len().max(1)).copied() {
                    h.unsubscribe(s);
                }
            }
            Op::Cancel(i) => {
                let all = tasks(h);
                if let Some(t) = all.get(i % all.len().max(1)) {
                    h.engine.cancel(h.now, t);
                    h.pump();
                }
            }
            Op::Advance(ms) => h.run_for(ms),
            Op::Visibility(v) => h.input(Input::Visibility { visible: v }),
            Op::Online => h.input(Input::Online),
            Op::Link(up) => h.input(Input::Connection { up }),
            Op::KillSession => h.server.kill_session(),
            Op::Forget(i) => {
                let all = tasks(h);
                if let Some(t) = all.get(i % all.len().max(1)) {
                    h.server.forget(t);
                }
            }
            Op::List => {
                h.engine.list_tasks(h.now, None);
                h.pump();
            }
            Op::Push(p) => h.server.push = p,
            Op::Faults(rpc, transport, silence) => {
                h.server.faults.rpc_error = rpc;
                h.server.faults.transport = transport;
                h.server.faults.silence = silence;
            }
            Op::HeldResults(lag, consume) => {
                h.server.faults.held_result_lag = lag;
                h.server.faults.consume_results = consume;
            }
            Op::Down(down) => h.server.faults.down = down,
            Op::Garbage(body) => h.input(Input::Message { via: None, body }),
        }
    }
    subs
}

fn done_counts(h: &Harness) -> HashMap<SubId, usize> {
    let mut counts = HashMap::new();
    for e in &h.events {
        if let Event::Done { sub, .. } = e {
            *counts.entry(*sub).or_insert(0) += 1;
        }
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(96), ..ProptestConfig::default() })]

    /// Random interleavings: ≤ 1 status request in flight per task, polls never closer than the
    /// task's interval (after a failed one too), each subscription exactly one Done, an empty registry after everybody
    /// left and GC ran.
    #[test]
    fn interleavings_keep_the_invariants((kind, seed, ops) in scenario()) {
        let mut h = harness(kind, seed);
        let subs = play(&mut h, &ops);
        h.server.faults = Default::default();
        h.run_for(20 * 60_000);
        for s in &subs {
            h.unsubscribe(*s);
        }
        h.run_for(10 * 60_000);

        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
        let intervals = h.server.intervals.clone();
        let spacing = h.check_poll_spacing(|t| intervals.get(t).copied().flatten());
        prop_assert_eq!(spacing, Ok(()));
        let counts = done_counts(&h);
        for s in &subs {
            prop_assert_eq!(counts.get(s).copied(), Some(1), "sub {:?}", s);
        }
        prop_assert_eq!(counts.len(), subs.len());
        prop_assert!(h.engine_is_empty(), "tasks {} calls {} subs {} inputs {}",
            h.engine.tasks.len(), h.engine.calls.len(), h.engine.subs.len(), h.engine.inputs.len());
    }

    /// Closing at any point ends every subscription exactly once too.
    #[test]
    fn close_anytime_ends_each_subscription_once((kind, seed, ops) in scenario()) {
        let mut h = harness(kind, seed);
        let subs = play(&mut h, &ops);
        h.engine.close(h.now);
        h.pump();
        h.run_for(60_000);
        let counts = done_counts(&h);
        for s in &subs {
            prop_assert_eq!(counts.get(s).copied(), Some(1));
        }
        prop_assert!(h.engine_is_empty());
    }
}

#[derive(Debug, Clone)]
enum Raw {
    Msg(Option<u8>, String),
    Json(Option<u8>, Value),
    Head(u8, u16, Option<String>, Option<u64>),
    Ended(u8),
    Cursor(u8, Option<String>, Option<u64>),
    Failed(u8, Option<u16>),
    Connection(bool),
    Visibility(bool),
    Online,
    Call(String),
    Watch(String),
    Unsub(u8),
    Cancel(String),
    Answer(u8, bool),
    List(Option<String>),
    Tools,
    Tick(u32),
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| crate::json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            "working",
            "completed",
            "failed",
            "input_required",
            "cancelled",
            "task",
            "t1",
            "2025-01-01T00:00:00Z",
            "notifications/tasks/status",
            "notifications/tasks",
            "notifications/tasks/created",
            "elicitation/create",
            "2026-07-28",
            "2.0",
            "ping",
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "jsonrpc",
                        "id",
                        "method",
                        "params",
                        "result",
                        "error",
                        "code",
                        "message",
                        "data",
                        "taskId",
                        "status",
                        "task",
                        "resultType",
                        "_meta",
                        "ttl",
                        "ttlMs",
                        "pollInterval",
                        "createdAt",
                        "inputRequests",
                        "tasks",
                        "nextCursor",
                        "protocolVersion",
                        "capabilities",
                        "supported",
                        "tools",
                        "io.modelcontextprotocol/related-task",
                        "modelcontextprotocol.io/related-task",
                    ]),
                    inner
                ),
                0..6,
            )
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

/// A JSON-RPC-shaped message with random parts (more likely to reach deep code than noise).
fn rpcish() -> impl Strategy<Value = Value> {
    (0u8..6, 0i64..40, json_value(), json_value()).prop_map(|(kind, id, a, b)| match kind {
        0 => json!({ "jsonrpc": "2.0", "id": id, "result": a }),
        1 => json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32602, "message": "x", "data": a } }),
        2 => json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": a }),
        3 => json!({ "jsonrpc": "2.0", "id": format!("s{id}"), "method": "elicitation/create", "params": a }),
        4 => json!({ "jsonrpc": "2.0", "id": id, "result": { "task": a, "taskId": "t1", "status": b } }),
        _ => json!({ "jsonrpc": "2.0", "method": "notifications/tasks/created", "params": { "_meta": a } }),
    })
}

fn raw() -> impl Strategy<Value = Raw> {
    prop_oneof![
        2 => (prop::option::of(0u8..40), ".{0,60}").prop_map(|(k, s)| Raw::Msg(k, s)),
        6 => (prop::option::of(0u8..40), rpcish()).prop_map(|(k, v)| Raw::Json(k, v)),
        2 => (prop::option::of(0u8..40), json_value()).prop_map(|(k, v)| Raw::Json(k, v)),
        2 => (0u8..40, prop::sample::select(vec![200u16, 202, 400, 401, 403, 404, 405, 429, 500, 503]),
              prop::option::of(".{0,8}"), prop::option::of(0u64..100_000))
            .prop_map(|(k, s, sid, r)| Raw::Head(k, s, sid, r)),
        2 => (0u8..40).prop_map(Raw::Ended),
        2 => (0u8..40, prop::option::of("[a-z0-9]{0,3}"), prop::option::of(0u64..3_000))
            .prop_map(|(k, id, r)| Raw::Cursor(k, id, r)),
        1 => (0u8..40, prop::option::of(400u16..600)).prop_map(|(k, s)| Raw::Failed(k, s)),
        1 => any::<bool>().prop_map(Raw::Connection),
        1 => any::<bool>().prop_map(Raw::Visibility),
        1 => Just(Raw::Online),
        2 => ".{0,8}".prop_map(Raw::Call),
        1 => prop::sample::select(vec!["t1", "task-1", "", "x"]).prop_map(|s| Raw::Watch(s.to_owned())),
        1 => (0u8..10).prop_map(Raw::Unsub),
        1 => prop::sample::select(vec!["t1", "task-1"]).prop_map(|s| Raw::Cancel(s.to_owned())),
        1 => (0u8..10, any::<bool>()).prop_map(|(i, ok)| Raw::Answer(i, ok)),
        1 => prop::option::of(".{0,4}").prop_map(Raw::List),
        1 => Just(Raw::Tools),
        3 => (0u32..200_000).prop_map(Raw::Tick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(400), ..ProptestConfig::default() })]

    /// Arbitrary inputs in any order, for every dialect choice: no panic, at most one Done per
    /// subscription, exactly one after close.
    #[test]
    fn arbitrary_inputs_never_panic(choice in 0u8..4, seed in any::<u64>(), script in prop::collection::vec(raw(), 0..80)) {
        let dialect = [DialectChoice::Auto, DialectChoice::Modern, DialectChoice::Legacy, DialectChoice::Draft][usize::from(choice)];
        let mut now = 1_750_000_000_000u64;
        let mut e = Engine::new(Config { dialect, ..Config::default() }, seed, now);
        let mut events = Vec::new();
        let mut subs = Vec::new();
        let drain = |e: &mut Engine, now: u64, events: &mut Vec<Event>| {
            for _ in 0..100_000 {
                match e.poll_output(now) {
                    crate::engine::api::Output::Wake(_) => return,
                    crate::engine::api::Output::Event(ev) => events.push(ev),
                    _ => {}
                }
            }
        };
        for r in script {
            let key = |k: u8| SendKey(u64::from(k));
            match r {
                Raw::Msg(k, body) => e.handle_input(now, Input::Message { via: k.map(key), body }),
                Raw::Json(k, v) => e.handle_input(now, Input::Message { via: k.map(key), body: v.to_string() }),
                Raw::Head(k, status, session_id, retry_after_ms) => {
                    e.handle_input(now, Input::Head { key: key(k), status, session_id, retry_after_ms, www_authenticate: Some("Bearer error=x".into()) })
                }
                Raw::Ended(k) => e.handle_input(now, Input::Ended { key: key(k) }),
                Raw::Cursor(k, last_event_id, retry_ms) => {
                    e.handle_input(now, Input::Cursor { key: key(k), last_event_id, retry_ms })
                }
                Raw::Failed(k, s) => e.handle_input(now, Input::Failed {
                    key: key(k),
                    error: TransportError { http_status: s, retry_after_ms: Some(10), ..TransportError::network("x") },
                }),
                Raw::Connection(up) => e.handle_input(now, Input::Connection { up }),
                Raw::Visibility(v) => e.handle_input(now, Input::Visibility { visible: v }),
                Raw::Online => e.handle_input(now, Input::Online),
                Raw::Call(name) => subs.push(e.call_tool(now, &name, json!({}), CallOptions::default())),
                Raw::Watch(t) => subs.push(e.watch(now, &t)),
                Raw::Unsub(i) => {
                    if let Some(s) = subs.get(usize::from(i) % subs.len().max(1)).copied() {
                        e.unsubscribe(now, s);
                    }
                }
                Raw::Cancel(t) => {
                    e.cancel(now, &t);
                }
                Raw::Answer(i, ok) => {
                    let answer = if ok { Ok(json!({})) } else { Err(RpcError::new(-1, "no")) };
                    e.answer_input(now, InputId(u64::from(i)), answer);
                }
                Raw::List(c) => {
                    e.list_tasks(now, c.as_deref());
                }
                Raw::Tools => {
                    e.list_tools(now);
                }
                Raw::Tick(ms) => now += u64::from(ms),
            }
            drain(&mut e, now, &mut events);
            let _ = e.task("t1");
            let _ = e.dialect();
        }
        e.close(now);
        drain(&mut e, now, &mut events);
        let mut counts: HashMap<SubId, usize> = HashMap::new();
        for ev in &events {
            if let Event::Done { sub, .. } = ev {
                *counts.entry(*sub).or_insert(0) += 1;
            }
        }
        for s in &subs {
            prop_assert_eq!(counts.get(s).copied(), Some(1));
        }
    }
}
