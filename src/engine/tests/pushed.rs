//! Legacy servers that push task statuses: once a session's server was seen pushing on its own
//! stream, running tasks hold no `tasks/result` (the terminal push fetches it); until the session
//! has shown either way, a task's held result waits one interval; a silent session holds at once,
//! and a missed push brings the held results back.

use serde_json::{json, Value};

use crate::engine::api::{Config, DialectChoice, End, Event, Input, Link, Millis, SendKey, SubId};
use crate::engine::testkit::{drain, feed, head, Harness, T0};
use crate::engine::Engine;
use crate::protocol::model::{Dialect, Outcome, TaskStatus};

use super::push::results_of;

fn legacy_node(seed: u64) -> Harness {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Node,
        request_timeout_ms: 5_000,
        ..Config::default()
    };
    Harness::with_config(cfg, Dialect::Legacy, seed)
}

/// The task of `sub`: its id, when the server created it and when it ends there.
fn task(h: &Harness, sub: SubId, ms: Millis) -> (String, Millis, Millis) {
    let id = h.task_of(sub).unwrap_or_default();
    let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
    (id, created, created + ms)
}

/// When the engine saw `task_id` complete.
fn seen_completed(h: &Harness, task_id: &str) -> Option<Millis> {
    h.events.iter().find_map(|e| match e {
        Event::Transition {
            task_id: t,
            to: TaskStatus::Completed,
            at,
            ..
        } if t == task_id => Some(*at),
        _ => None,
    })
}

/// `sub` finished with its result, seen within 100 ms of its end (`ends`).
fn assert_prompt(h: &Harness, sub: SubId, ends: Millis) {
    assert!(
        matches!(
            h.done(sub),
            End::Finished {
                outcome: Some(Outcome::Result { .. }),
                ..
            }
        ),
        "{:?}",
        h.done(sub)
    );
    let id = h.task_of(sub).unwrap_or_default();
    let seen = seen_completed(h, &id).unwrap_or(Millis::MAX);
    assert!(seen <= ends + 100, "{id}: ends {ends}, seen {seen}");
}

/// The task's one `tasks/result` went out after its end, and no status request before it.
fn assert_fetched_after_the_push(h: &Harness, task_id: &str, ends: Millis) {
    let results = results_of(h, task_id);
    assert_eq!(results.len(), 1, "{task_id}: {results:?}");
    assert!(
        results.iter().all(|at| *at >= ends),
        "{task_id}: {results:?}"
    );
    let gets = h.get_times(task_id);
    assert!(gets.iter().all(|at| *at >= ends), "{task_id}: {gets:?}");
}

/// A legacy status push as the bench server sends one each interval ("step n").
fn progress(task_id: &str, step: u32) -> Input {
    let params = json!({ "taskId": task_id, "status": "working", "statusMessage": format!("step {step}"),
        "createdAt": "2025-06-15T15:06:40Z", "lastUpdatedAt": "2025-06-15T15:06:40Z",
        "ttl": null, "pollInterval": 1000 });
    let body =
        json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": params });
    Input::Message {
        via: None,
        body: body.to_string(),
    }
}

#[test]
fn a_push_within_the_first_interval_leaves_every_end_to_the_pushes() {
    let mut h = legacy_node(61);
    h.server.push = true;
    let subs: Vec<SubId> = (0..3)
        .map(|i| h.call("job", json!({ "ms": 6_000 + 500 * i })))
        .collect();
    h.run_for(600);
    let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
    for id in &ids {
        h.input(progress(id, 1));
    }
    h.run_for(20_000);
    for (i, sub) in (0..).zip(subs) {
        let (id, _, ends) = task(&h, sub, 6_000 + 500 * i);
        assert_prompt(&h, sub, ends);
        assert_fetched_after_the_push(&h, &id, ends);
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn once_a_session_was_seen_pushing_its_tasks_hold_no_results() {
    let mut h = legacy_node(62);
    h.server.push = true;
    // Its end is pushed before its deferred hold was due.
    let first = h.call("job", json!({ "ms": 400 }));
    h.run_for(2_000);
    let later: Vec<SubId> = (0..4)
        .map(|i| h.call("job", json!({ "ms": 4_000 + 500 * i })))
        .collect();
    h.run_for(20_000);
    let (id, _, ends) = task(&h, first, 400);
    assert_prompt(&h, first, ends);
    assert_fetched_after_the_push(&h, &id, ends);
    for (i, sub) in (0..).zip(later) {
        let (id, _, ends) = task(&h, sub, 4_000 + 500 * i);
        assert_prompt(&h, sub, ends);
        assert_fetched_after_the_push(&h, &id, ends);
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn an_unknown_session_holds_one_interval_late_and_a_silent_one_at_once() {
    let mut h = legacy_node(63);
    let first = h.call("job", json!({ "ms": 10_000 }));
    h.run_for(3_000);
    let second = h.call("job", json!({ "ms": 10_000 }));
    h.run_for(20_000);
    let (id, created, ends) = task(&h, first, 10_000);
    assert_prompt(&h, first, ends);
    let results = results_of(&h, &id);
    assert_eq!(results.len(), 1, "{results:?}");
    // In place of the first poll: one interval after the create answer.
    let held = results.first().copied().unwrap_or(0);
    assert!(
        (created + 1_000..=created + 1_000 + 70).contains(&held),
        "held at {held}, created {created}"
    );
    assert!(h.get_times(&id).is_empty(), "{:?}", h.get_times(&id));
    let (id, created, ends) = task(&h, second, 10_000);
    assert_prompt(&h, second, ends);
    let results = results_of(&h, &id);
    assert!(
        results.len() == 1 && results.iter().all(|at| *at <= created + 70),
        "held at once: {results:?}, created {created}"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn an_end_no_push_told_brings_the_held_results_back() {
    let mut h = legacy_node(64);
    h.server.push = true;
    let first = h.call("job", json!({ "ms": 400 }));
    h.run_for(2_000);
    // The pushes stop coming (a stream lost on the way): the safety poll finds the end.
    h.server.push = false;
    let quiet = h.call("job", json!({ "ms": 3_000 }));
    h.run_for(25_000);
    let running = h.call("job", json!({ "ms": 3_000 }));
    h.run_for(10_000);
    assert!(matches!(h.done(first), End::Finished { .. }));
    let (id, _, ends) = task(&h, quiet, 3_000);
    assert!(matches!(h.done(quiet), End::Finished { .. }));
    assert_fetched_after_the_push(&h, &id, ends);
    let gets = h.get_times(&id);
    assert!(
        gets.len() == 1 && gets.iter().all(|at| *at >= ends + 15_000),
        "the safety poll: {gets:?}"
    );
    let (id, created, ends) = task(&h, running, 3_000);
    assert_prompt(&h, running, ends);
    let results = results_of(&h, &id);
    assert!(
        results.len() == 1 && results.iter().all(|at| *at <= created + 70),
        "held at once again: {results:?}, created {created}"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// A legacy engine (Node link) with its session open, watching `t1`: its first poll answered
/// `working`, its deferred hold out. Returns the engine, the time, the held stream's key.
fn holding_t1() -> (Engine, Millis, SendKey) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Node,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 9, T0);
    let (sent, _) = drain(&mut e, T0);
    let caps = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
    crate::engine::testkit::accept_initialize(&mut e, T0, &sent, "s1", caps);
    drain(&mut e, T0);
    e.watch(T0, "t1");
    let sent = drain(&mut e, T0).0;
    let sent = answer_working(&mut e, T0 + 10, &sent, "t1");
    assert!(method_key(&sent, "tasks/result").is_none(), "{sent:?}");
    let at = T0 + 10 + 1_100;
    let sent = drain(&mut e, at).0;
    let Some(res) = method_key(&sent, "tasks/result") else {
        panic!("no held result one interval later: {sent:?}");
    };
    e.handle_input(at, head(res, 200, None));
    (e, at, res)
}

fn method_key(sent: &[(SendKey, Value)], method: &str) -> Option<SendKey> {
    sent.iter()
        .find(|(_, b)| b["method"] == method)
        .map(|(k, _)| *k)
}

/// Answers the poll in `sent` for `task_id` with `working`; returns what followed.
fn answer_working(
    e: &mut Engine,
    now: Millis,
    sent: &[(SendKey, Value)],
    task_id: &str,
) -> Vec<(SendKey, Value)> {
    let Some((get, body)) = sent.iter().find(|(_, b)| b["method"] == "tasks/get") else {
        panic!("no poll: {sent:?}");
    };
    e.handle_input(now, head(*get, 200, None));
    let task = json!({ "taskId": task_id, "status": "working", "createdAt": "2025-06-15T15:06:40Z",
        "lastUpdatedAt": "2025-06-15T15:06:40Z", "ttl": null, "pollInterval": 1000 });
    crate::engine::testkit::answer(e, now, *get, &body["id"], task);
    drain(e, now).0
}

/// Watches `task_id` at `now`, answers its first poll `working`: whether its result is held at once.
fn held_at_once(e: &mut Engine, now: Millis, task_id: &str) -> bool {
    e.watch(now, task_id);
    let sent = drain(e, now).0;
    let sent = answer_working(e, now + 10, &sent, task_id);
    method_key(&sent, "tasks/result").is_some()
}

#[test]
fn only_a_push_on_the_sessions_own_stream_is_evidence() {
    let (mut e, at, res) = holding_t1();
    let Input::Message { body, .. } = progress("t1", 1) else {
        unreachable!()
    };
    let push: Value = serde_json::from_str(&body).unwrap_or_default();
    // On the held result's stream: it would not come without the hold.
    feed(&mut e, at + 100, Some(res), push.clone());
    drain(&mut e, at + 100);
    assert!(
        held_at_once(&mut e, at + 200, "t2"),
        "the session is silent"
    );
    // On the listening stream: the server pushes.
    feed(&mut e, at + 300, None, push);
    drain(&mut e, at + 300);
    assert!(
        !held_at_once(&mut e, at + 400, "t3"),
        "the pushes bring the end"
    );
}
