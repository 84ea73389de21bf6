//! Faults the browser fault matrix found (docs/fault-matrix.md), reproduced against the fake
//! server or scripted by hand: a stalled `tasks/result`, a burst of input requests in a 6-stream
//! HTTP/1.1 pool, phantom error responses, a failing `tools/list`, a plain 400 on a poll, a
//! server-wide `Retry-After`, a result gone after `completed`, and a 503 while probing.

use crate::json::{json, Value};

use crate::engine::api::{
    CallOptions, Config, DialectChoice, End, ErrorKind, Event, Input, InputId, Millis, SendKey,
    SubId,
};
use crate::engine::registry::results::TIGHT_BUDGET;
use crate::engine::Engine;
use crate::protocol::model::{Dialect, Outcome, TaskStatus};
use crate::testkit::{
    accept_initialize, answer, discover_result, drain, feed, head, modern_engine, read_resource,
    Harness, T0,
};

pub(in crate::engine::tests) fn config(dialect: DialectChoice, timeout: Millis) -> Config {
    Config {
        dialect,
        request_timeout_ms: timeout,
        ..Config::default()
    }
}

pub(in crate::engine::tests) fn legacy(seed: u64) -> Harness {
    Harness::with_config(config(DialectChoice::Legacy, 5_000), Dialect::Legacy, seed)
}

/// A legacy session whose running tasks are polled: a tight budget, only tasks waiting for input
/// hold their result.
pub(in crate::engine::tests) fn polled_legacy(seed: u64) -> Harness {
    let cfg = Config {
        max_blocking_results: Some(TIGHT_BUDGET),
        ..config(DialectChoice::Legacy, 5_000)
    };
    Harness::with_config(cfg, Dialect::Legacy, seed)
}

pub(in crate::engine::tests) fn modern(seed: u64) -> Harness {
    Harness::with_config(config(DialectChoice::Modern, 5_000), Dialect::Modern, seed)
}

/// The subscription completed with a result.
pub(in crate::engine::tests) fn completed(h: &Harness, sub: SubId) -> bool {
    ended_completed(&h.done(sub))
}

/// A subscription's end: its task completed, with a result.
pub(in crate::engine::tests) fn ended_completed(end: &End) -> bool {
    matches!(
        end,
        End::Finished { task: Some(t), outcome: Some(Outcome::Result { .. }) }
            if t.status == TaskStatus::Completed
    )
}

fn warnings(h: &Harness, kind: ErrorKind) -> usize {
    h.events
        .iter()
        .filter(|e| matches!(e, Event::Warning { error, .. } if error.kind == kind))
        .count()
}

pub(in crate::engine::tests) fn times(h: &Harness, method: &str) -> Vec<Millis> {
    h.sent
        .iter()
        .filter(|s| s.method == method)
        .map(|s| s.at)
        .collect()
}

// ----- 1. a stalled `tasks/result` -----

#[test]
fn a_stalled_result_of_a_finished_task_is_closed_and_asked_again() {
    let mut h = legacy(31);
    h.server.faults.mute_results = 1;
    let sub = h.call("job", json!({ "ms": 3_000 }));
    h.run_for(60_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    assert!(completed(&h, sub), "{log:#?}");
    assert_eq!(h.count("tasks/result"), 2, "{log:#?}");
    assert_eq!(warnings(&h, ErrorKind::Timeout), 1, "the stall is surfaced");
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_blocking_result_that_stalls_after_the_task_ended_is_asked_again() {
    // The result opened while the task needed input (its input request came on it); the task
    // then completed, but that stream never answered. Polls go on meanwhile and see the end.
    let mut h = legacy(32);
    h.server.faults.mute_results = 1;
    let sub = h.call("job", json!({ "ms": 6_000, "input": true }));
    h.run_for(60_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    assert_eq!(h.inputs_seen(), 1);
    assert!(completed(&h, sub), "{log:#?}");
    let results = times(&h, "tasks/result");
    assert_eq!(results.len(), 2, "{log:#?}");
    let polls_between = times(&h, "tasks/get")
        .into_iter()
        .filter(|t| (results[0]..results[1]).contains(t))
        .count();
    assert!(polls_between >= 1, "polling went on: {log:#?}");
}

#[test]
fn a_result_that_never_comes_ends_with_an_explicit_error() {
    let mut h = legacy(33);
    h.server.faults.mute_results = 1_000;
    let sub = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(180_000);
    match h.done(sub) {
        End::Failed { error } => assert_eq!(error.kind, ErrorKind::ResultUnavailable),
        other => panic!("{other:?}"),
    }
    assert_eq!(h.count("tasks/result"), 4, "one fetch and three retries");
}

// ----- 2. many blocking results in a 6-stream pool -----

#[test]
fn an_input_burst_fits_a_six_stream_pool() {
    let mut h = legacy(34);
    h.pool = Some(6);
    // The host takes its time: every task waits for input at once.
    h.auto_answer = false;
    let subs: Vec<SubId> = (0..8)
        .map(|_| h.call("job", json!({ "ms": 4_000, "input": true })))
        .collect();
    let mut answered = 0;
    for _ in 0..30 {
        h.run_for(5_000);
        let asked: Vec<InputId> = h
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Input { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        for id in asked.into_iter().skip(answered) {
            let answer = json!({ "action": "accept", "content": { "name": "x" } });
            h.engine.answer_input(h.now, id, Ok(answer));
            answered += 1;
        }
        h.pump();
    }
    assert_eq!(h.inputs_seen(), 8);
    for sub in subs {
        let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
        assert!(completed(&h, sub), "{sub:?}: {log:#?}");
    }
    assert!(h.max_results_open <= 3, "{}", h.max_results_open);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// Seen in the browser matrix (input-burst × rmcp3, page under load): a poll reached the server
/// late, and the poll asked right after the input answer went out one interval after the late
/// poll was *sent*, under the interval as the server saw it. The floor counts from the answer.
#[test]
fn polls_after_input_answers_keep_the_interval_as_the_server_sees_it() {
    for seed in 0..8 {
        let mut h = modern(70 + seed);
        h.request_delay = (0, 400);
        let args = json!({ "ms": 3_000, "input": true, "interval": 1_000 });
        let subs: Vec<SubId> = (0..8).map(|_| h.call("job", args.clone())).collect();
        h.run_for(60_000);
        assert_eq!(h.inputs_seen(), 8, "seed {seed}");
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed}: {sub:?}");
        }
        let intervals = h.server.intervals.clone();
        let spacing = h.check_poll_spacing(|t| intervals.get(t).copied().flatten());
        assert_eq!(spacing, Ok(()), "seed {seed}");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn the_blocking_result_cap_is_configurable() {
    let cfg = Config {
        max_blocking_results: Some(1),
        ..config(DialectChoice::Legacy, 5_000)
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, 35);
    let subs: Vec<SubId> = (0..4)
        .map(|_| h.call("job", json!({ "ms": 4_000, "input": true })))
        .collect();
    h.run_for(120_000);
    for sub in subs {
        assert!(completed(&h, sub));
    }
    assert_eq!(h.max_results_open, 1);
}

// ----- 4. phantom answers -----

/// A modern engine (ready at once) with a tools/call in flight: (engine, call sub, call key, id).
fn modern_call_in_flight() -> (Engine, SubId, SendKey, Value) {
    let mut e = modern_engine(config(DialectChoice::Modern, 5_000), 8);
    drain(&mut e, T0);
    let sub = e.call_tool(T0, "job", json!({}), CallOptions::default());
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent[0].1["method"], json!("tools/list"));
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    answer(
        &mut e,
        T0,
        key,
        &id,
        json!({ "tools": [{ "name": "job" }] }),
    );
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent[0].1["method"], json!("tools/call"));
    (e, sub, sent[0].0, sent[0].1["id"].clone())
}

#[test]
fn an_error_answering_an_id_never_sent_fails_nothing() {
    let (mut e, sub, key, id) = modern_call_in_flight();
    let phantom = json!({ "jsonrpc": "2.0", "id": 987_654_322, "error": { "code": -32603, "message": "response to nothing" } });
    feed(&mut e, T0, Some(key), phantom);
    feed(
        &mut e,
        T0,
        Some(key),
        json!({ "jsonrpc": "2.0", "id": "never-sent-id", "error": { "code": -1, "message": "x" } }),
    );
    let (_, events) = drain(&mut e, T0);
    assert!(
        !events.iter().any(|ev| matches!(ev, Event::Done { .. })),
        "{events:?}"
    );
    let result = json!({ "content": [{ "type": "text", "text": "real" }] });
    answer(&mut e, T0, key, &id, result.clone());
    let (_, events) = drain(&mut e, T0);
    let done = events.iter().find_map(|ev| match ev {
        Event::Done { sub: s, end, .. } if *s == sub => Some(end.clone()),
        _ => None,
    });
    assert_eq!(
        done,
        Some(End::Finished {
            task: None,
            outcome: Some(Outcome::Result { result })
        })
    );
}

#[test]
fn a_phantom_error_does_not_derail_the_era_probe() {
    let mut e = Engine::new(config(DialectChoice::Auto, 5_000), 9, T0);
    let (sent, _) = drain(&mut e, T0);
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    assert_eq!(sent[0].1["method"], json!("server/discover"));
    let phantom = json!({ "jsonrpc": "2.0", "id": 987_654_322, "error": { "code": -32603, "message": "response to nothing" } });
    feed(&mut e, T0, Some(key), phantom);
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "no fallback to initialize: {sent:?}");
    assert!(
        events.is_empty(),
        "no warning (it would read as a failed connect): {events:?}"
    );
    answer(&mut e, T0, key, &id, discover_result(true));
    drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Modern));
}

// ----- 5. a failing tools/list -----

#[test]
fn a_failed_tools_list_is_retried_before_deciding_augmentation() {
    let mut h = legacy(36);
    h.server.faults.tools_503 = 1;
    let sub = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(30_000);
    assert!(h.task_of(sub).is_some(), "the call became a task");
    assert!(completed(&h, sub));
    // 503, then both pages.
    assert_eq!(h.count("tools/list"), 3);
}

#[test]
fn a_tools_list_that_keeps_failing_is_not_remembered() {
    let mut h = legacy(37);
    h.server.faults.tools_503 = 3;
    let first = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(30_000);
    assert_eq!(h.count("tools/list"), 3, "three attempts");
    assert!(
        h.task_of(first).is_none(),
        "went on without the tools' word"
    );
    let second = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(30_000);
    assert!(h.count("tools/list") > 3, "asked again");
    assert!(h.task_of(second).is_some());
    assert!(completed(&h, second));
}

// ----- 6. a plain 400 on a poll -----

#[test]
fn a_plain_400_on_a_legacy_poll_is_a_failed_poll_not_a_dead_session() {
    let mut h = polled_legacy(38);
    h.server.faults.bad_gets = 1;
    let sub = h.call("job", json!({ "ms": 5_000 }));
    h.run_for(60_000);
    assert!(completed(&h, sub));
    assert_eq!(h.count("initialize"), 1, "the session was kept");
    assert_eq!(warnings(&h, ErrorKind::Rpc), 1);
}

#[test]
fn a_plain_400_on_a_modern_poll_does_not_expire_the_task() {
    let mut h = modern(39);
    h.server.faults.bad_gets = 1;
    let sub = h.call("job", json!({ "ms": 5_000 }));
    h.run_for(60_000);
    assert!(completed(&h, sub), "{:?}", h.dones(sub));
}

#[test]
fn an_invalid_request_answer_from_a_modern_server_is_not_task_gone() {
    let mut e = modern_engine(config(DialectChoice::Modern, 5_000), 10);
    drain(&mut e, T0);
    let sub = e.watch(T0, "t1");
    let (sent, _) = drain(&mut e, T0);
    let (key, id) = get_of(&sent);
    let working = json!({ "taskId": "t1", "status": "working", "createdAt": "2025-06-15T00:00:00Z", "ttlMs": null });
    answer(&mut e, T0, key, &id, working);
    drain(&mut e, T0);
    let (key, id, at) = loop {
        let at = e.next_wake().unwrap_or(u64::MAX);
        assert!(at < T0 + 60_000, "a poll is scheduled");
        let (sent, _) = drain(&mut e, at);
        if sent.iter().any(|(_, b)| b["method"] == json!("tasks/get")) {
            let (key, id) = get_of(&sent);
            break (key, id, at);
        }
    };
    let invalid = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32600, "message": "Invalid Request" } });
    feed(&mut e, at, Some(key), invalid);
    let (_, events) = drain(&mut e, at);
    assert!(
        !events
            .iter()
            .any(|ev| matches!(ev, Event::Done { sub: s, .. } if *s == sub)),
        "{events:?}"
    );
    assert_eq!(e.task("t1").map(|t| t.status), Some(TaskStatus::Working));
}

/// Key and id of the `tasks/get` among transmissions.
fn get_of(sent: &[(SendKey, Value)]) -> (SendKey, Value) {
    let get = sent.iter().find(|(_, b)| b["method"] == json!("tasks/get"));
    let Some((key, body)) = get else {
        panic!("no tasks/get in {sent:?}")
    };
    (*key, body["id"].clone())
}

// ----- 7. a server-wide Retry-After -----

#[test]
fn retry_after_holds_every_request_to_the_server() {
    let mut h = legacy(40);
    h.latency = (10, 10);
    h.server.faults.throttled_gets = 1;
    h.server.faults.throttle_ms = 3_000;
    let subs: Vec<SubId> = (0..3)
        .map(|i| h.call("job", json!({ "ms": 2_500 + i * 300 })))
        .collect();
    h.run_for(60_000);
    let throttled = times(&h, "tasks/get")[0];
    let (from, until) = (throttled + 10, throttled + 10 + 3_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    assert!(
        !h.sent.iter().any(|s| s.at > from && s.at < until),
        "nothing sent during the hold ({} … {}): {log:#?}",
        from - T0,
        until - T0
    );
    for sub in subs {
        assert!(completed(&h, sub));
    }
}

#[test]
fn after_a_hold_one_request_goes_first_and_meets_the_next_hold_alone() {
    let mut h = legacy(42);
    h.latency = (10, 10);
    h.server.faults.throttled_gets = 2;
    h.server.faults.throttle_ms = 3_000;
    // Created 300 ms apart: the first poll is answered (held) before the next one is due.
    let subs: Vec<SubId> = (0..4)
        .map(|i| {
            h.run_for(if i == 0 { 0 } else { 300 });
            h.call("job", json!({ "ms": 2_500 + i * 300 }))
        })
        .collect();
    h.run_for(60_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    let gets = times(&h, "tasks/get");
    let (first, second) = (gets[0], gets[1]);
    assert_eq!(
        second,
        first + 10 + 3_000,
        "the probe is the next poll: {log:#?}"
    );
    let sent_in =
        |from: Millis, to: Millis| h.sent.iter().filter(|s| (from..to).contains(&s.at)).count();
    assert_eq!(sent_in(first + 11, second), 0, "{log:#?}");
    assert_eq!(sent_in(second, second + 10), 1, "alone: {log:#?}");
    assert_eq!(sent_in(second + 11, second + 10 + 3_000), 0, "{log:#?}");
    for sub in subs {
        assert!(completed(&h, sub));
    }
}

// ----- smaller ones -----

#[test]
fn a_result_gone_after_completed_is_an_explicit_error_not_an_outcome() {
    let mut h = polled_legacy(41);
    h.server.faults.gone_results = 1;
    let sub = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(30_000);
    match h.done(sub) {
        End::Failed { error } => {
            assert_eq!(error.kind, ErrorKind::ResultUnavailable);
            assert_eq!(error.code, Some(-32602));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_503_while_probing_probes_again_quietly() {
    let mut e = Engine::new(config(DialectChoice::Auto, 5_000), 11, T0);
    let mut now = T0;
    for attempt in 0..3 {
        let (sent, _) = drain(&mut e, now);
        assert_eq!(sent.len(), 1, "attempt {attempt}: {sent:?}");
        assert_eq!(sent[0].1["method"], json!("server/discover"));
        let key = sent[0].0;
        e.handle_input(now, head(key, 503, None));
        e.handle_input(now, Input::Ended { key });
        let (sent, events) = drain(&mut e, now);
        assert!(sent.is_empty(), "no fallback to initialize: {sent:?}");
        let warned = events.iter().any(|ev| matches!(ev, Event::Warning { .. }));
        assert_eq!(warned, attempt == 2, "attempt {attempt}: {events:?}");
        now = e.next_wake().unwrap_or(u64::MAX);
        assert!(now < T0 + 60_000);
    }
}

#[test]
fn an_id_less_400_not_naming_the_session_fails_the_request_only() {
    let mut e = Engine::new(config(DialectChoice::Legacy, 5_000), 12, T0);
    let (sent, _) = drain(&mut e, T0);
    accept_initialize(&mut e, T0, &sent, "s1", json!({}));
    drain(&mut e, T0);
    let (sub, sent) = read_resource(&mut e, T0);
    let key = sent[0].0;
    e.handle_input(T0, head(key, 400, None));
    let bad = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": "Bad Request: invalid request" } });
    feed(&mut e, T0, Some(key), bad);
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "no re-initialization: {sent:?}");
    assert!(events
        .iter()
        .any(|ev| matches!(ev, Event::Done { sub: s, .. } if *s == sub)));
}

// ----- poll answers like the last one -----

#[test]
fn an_answer_like_the_last_poll_is_applied_again_after_other_news() {
    let mut e = modern_engine(config(DialectChoice::Modern, 5_000), 13);
    drain(&mut e, T0);
    let sub = e.watch(T0, "t1");
    let working = json!({ "taskId": "t1", "status": "working", "createdAt": "2025-06-15T00:00:00Z", "ttlMs": null });
    let statuses = |events: &[Event]| -> Vec<TaskStatus> {
        events
            .iter()
            .filter_map(|ev| match ev {
                Event::Status { sub: s, task } if *s == sub => Some(task.status),
                _ => None,
            })
            .collect()
    };
    // Three polls answered alike; a push in between says the task needs input.
    let mut now = T0;
    let mut seen = Vec::new();
    for round in 0..3 {
        let (key, id) = loop {
            let (sent, events) = drain(&mut e, now);
            seen.extend(statuses(&events));
            if sent.iter().any(|(_, b)| b["method"] == json!("tasks/get")) {
                break get_of(&sent);
            }
            now = e.next_wake().unwrap_or(u64::MAX);
            assert!(now < T0 + 600_000, "round {round}: a poll is scheduled");
        };
        answer(&mut e, now, key, &id, working.clone());
        if round == 1 {
            let mut asking = working.clone();
            asking["status"] = json!("input_required");
            let push =
                json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": asking });
            feed(&mut e, now, None, push);
        }
        let (_, events) = drain(&mut e, now);
        seen.extend(statuses(&events));
    }
    assert_eq!(
        seen,
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Working
        ]
    );
    assert_eq!(e.task("t1").map(|t| t.status), Some(TaskStatus::Working));
}
