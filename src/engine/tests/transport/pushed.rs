//! Legacy servers that push task statuses: once a session's server was seen pushing on its own
//! stream, `input_required` included, running tasks hold no `tasks/result` (the terminal push
//! fetches it); until the session has shown either way, a task's held result waits one interval;
//! a silent session holds at once, and a missed push brings the held results back. A server seen
//! pushing other statuses only still has its running tasks hold (see `inputs.rs`).

use crate::json::{json, Value};

use crate::engine::api::{
    Cadence, CallOptions, Config, DialectChoice, End, Event, Input, Link, Millis, SendKey, SubId,
};
use crate::engine::requests::pool::DRAIN_MS;
use crate::engine::Engine;
use crate::protocol::model::{Dialect, Outcome};
use crate::testkit::{answer, drain, feed, head, Harness, T0};

use crate::engine::tests::push::{
    answer_working_now, completed, completed_at, legacy_on, method_of, results_of, watching,
};

/// The task of `sub`: its id, when the server created it and when it ends there.
fn task(h: &Harness, sub: SubId, ms: Millis) -> (String, Millis, Millis) {
    let id = h.task_of(sub).unwrap_or_default();
    let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
    (id, created, created + ms)
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
    let seen = completed_at(h, &id).unwrap_or(Millis::MAX);
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

/// Task `i` of `subs` ran `ms + 500·i`: each ended promptly, its result fetched after the push.
fn assert_left_to_pushes(h: &Harness, subs: &[SubId], ms: Millis) {
    for (i, sub) in (0..).zip(subs) {
        let (id, _, ends) = task(h, *sub, ms + 500 * i);
        assert_prompt(h, *sub, ends);
        assert_fetched_after_the_push(h, &id, ends);
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// `sub` (a task of `ms`) held its one `tasks/result` from its creation and ended promptly.
fn assert_held_at_once(h: &Harness, sub: SubId, ms: Millis) {
    let (id, created, ends) = task(h, sub, ms);
    assert_prompt(h, sub, ends);
    let results = results_of(h, &id);
    assert!(
        results.len() == 1 && results.iter().all(|at| *at <= created + 70),
        "held at once: {results:?}, created {created}"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// Opens `h`'s session and has its server push, on the session's own stream, an
/// `input_required` status (of a task of no interest here): it pushes every kind of status.
pub(in crate::engine::tests) fn shows_input_pushes(h: &mut Harness) {
    if !h.engine.session.is_ready() {
        h.engine.list_tasks(h.now, None);
        h.run_for(1_000);
    }
    let body = status_push("elsewhere", "input_required").to_string();
    h.input(Input::Message { via: None, body });
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
    let mut h = legacy_on(Link::Node, 61);
    shows_input_pushes(&mut h);
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
    assert_left_to_pushes(&h, &subs, 6_000);
}

#[test]
fn once_a_session_was_seen_pushing_its_tasks_hold_no_results() {
    let mut h = legacy_on(Link::Node, 62);
    shows_input_pushes(&mut h);
    h.server.push = true;
    // Its end is pushed before its deferred hold was due.
    let first = h.call("job", json!({ "ms": 400 }));
    h.run_for(2_000);
    let later: Vec<SubId> = (0..4)
        .map(|i| h.call("job", json!({ "ms": 4_000 + 500 * i })))
        .collect();
    h.run_for(20_000);
    assert_left_to_pushes(&h, &[first], 400);
    assert_left_to_pushes(&h, &later, 4_000);
}

#[test]
fn an_unknown_session_holds_one_interval_late_and_a_silent_one_at_once() {
    let mut h = legacy_on(Link::Node, 63);
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
    assert_held_at_once(&h, second, 10_000);
}

#[test]
fn an_end_no_push_told_brings_the_held_results_back() {
    let mut h = legacy_on(Link::Node, 64);
    shows_input_pushes(&mut h);
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
    assert_held_at_once(&h, running, 3_000);
}

/// A legacy engine (Node link) with its session open, watching `t1`: its first poll answered
/// `working`, its deferred hold out. Returns the engine, the time, the held stream's key.
fn holding_t1() -> (Engine, Millis, SendKey) {
    let (mut e, sent) = watching(Link::Node);
    let sent = answer_working_now(&mut e, T0 + 10, &sent, "t1");
    assert!(method_of(&sent, "tasks/result").is_none(), "{sent:?}");
    let at = T0 + 10 + 1_000;
    let sent = drain(&mut e, at).0;
    let Some((res, _)) = method_of(&sent, "tasks/result") else {
        panic!("no held result one interval later: {sent:?}");
    };
    e.handle_input(at, head(res, 200, None));
    (e, at, res)
}

/// Watches `task_id` at `now`, answers its first poll `working`: whether its result is held at once.
fn held_at_once(e: &mut Engine, now: Millis, task_id: &str) -> bool {
    e.watch(now, task_id);
    let sent = drain(e, now).0;
    let sent = answer_working_now(e, now + 10, &sent, task_id);
    method_of(&sent, "tasks/result").is_some()
}

#[test]
fn only_a_push_on_the_sessions_own_stream_is_evidence() {
    let (mut e, at, res) = holding_t1();
    let push = status_push("t0", "input_required");
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

/// `e` (a legacy engine with its session open) calls a tool: the call's key and id.
fn call_out(e: &mut Engine, now: Millis) -> (SubId, SendKey, Value) {
    let sub = e.call_tool(now, "job", json!({}), CallOptions::default());
    let sent = drain(e, now).0;
    if let Some((key, id)) = method_of(&sent, "tools/list") {
        answer(e, now, key, &id, json!({ "tools": [{ "name": "job" }] }));
    }
    let sent = drain(e, now).0;
    let Some((key, id)) = method_of(&sent, "tools/call") else {
        panic!("no call: {sent:?}");
    };
    (sub, key, id)
}

/// A legacy status push of `task_id` at `status`.
fn status_push(task_id: &str, status: &str) -> Value {
    let task = json!({ "taskId": task_id, "status": status, "createdAt": "2026-12-01T00:00:00Z",
        "lastUpdatedAt": "2026-12-01T00:00:01Z", "ttl": null, "pollInterval": 500 });
    json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task })
}

/// Answers `call` at `now`: it created `task_id`, `working`. Returns what went out at once.
fn created(
    e: &mut Engine,
    now: Millis,
    call: SendKey,
    id: &Value,
    task_id: &str,
) -> Vec<(SendKey, Value)> {
    let task = status_push(task_id, "working")["params"].clone();
    e.handle_input(now, head(call, 200, None));
    answer(e, now, call, id, json!({ "task": task }));
    drain(e, now).0
}

#[test]
fn an_end_pushed_before_the_create_answer_ends_the_task_at_once() {
    let (mut e, _) = watching(Link::Node);
    let (sub, call, call_id) = call_out(&mut e, T0);
    // The task ends, and its push on the listening stream overtakes the create answer.
    feed(&mut e, T0 + 200, None, status_push("t9", "completed"));
    drain(&mut e, T0 + 200);
    let sent = created(&mut e, T0 + 700, call, &call_id, "t9");
    let Some((res, res_id)) = method_of(&sent, "tasks/result") else {
        panic!("the pushed end did not fetch the result: {sent:?}");
    };
    e.handle_input(T0 + 710, head(res, 200, None));
    let outcome = json!({ "content": [{ "type": "text", "text": "done" }] });
    answer(&mut e, T0 + 710, res, &res_id, outcome);
    let events = drain(&mut e, T0 + 710).1;
    let finished = |ev: &Event| matches!(ev, Event::Done { sub: s, end: End::Finished { outcome: Some(Outcome::Result { .. }), .. }, .. } if *s == sub);
    assert!(events.iter().any(finished), "{events:?}");
}

#[test]
fn a_push_about_an_unknown_task_is_kept_only_while_a_call_is_out() {
    let (mut e, _) = watching(Link::Node);
    feed(&mut e, T0, None, status_push("t0", "input_required"));
    feed(&mut e, T0, None, status_push("t9", "completed"));
    drain(&mut e, T0);
    let (_, call, call_id) = call_out(&mut e, T0 + 100);
    let sent = created(&mut e, T0 + 200, call, &call_id, "t9");
    assert!(method_of(&sent, "tasks/result").is_none(), "{sent:?}");
}

#[test]
fn on_the_latency_cadence_a_push_counts_as_the_poll_it_makes_needless() {
    for seed in [63, 64] {
        // HTTP/1.1: running tasks hold nothing; the server pushes each task's status every
        // interval, never `input_required`.
        let mut h = legacy_on(Link::Http1, seed);
        h.engine.cfg.cadence = Cadence::Latency;
        h.server.push = true;
        let subs: Vec<SubId> = (0..3)
            .map(|i| h.call("job", json!({ "ms": 6_000 + 500 * i })))
            .collect();
        h.run_for(600);
        let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
        for step in 1..10 {
            for id in &ids {
                h.input(progress(id, step));
            }
            h.run_for(1_000);
        }
        h.run_for(5_000);
        for (i, sub) in (0..).zip(&subs) {
            let (id, _, ends) = task(&h, *sub, 6_000 + 500 * i);
            assert_prompt(&h, *sub, ends);
            let gets = h.get_times(&id);
            assert!(
                gets.iter().all(|at| *at >= ends),
                "{id}: polled at {gets:?}, ends {ends}"
            );
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn on_the_latency_cadence_pushes_a_little_late_still_postpone_every_poll() {
    for seed in [65, 66] {
        // As above, but the server's pushes come up to 60 ms late (a busy server or page): none
        // of them lets a poll of every task fall due before the next push.
        let mut h = legacy_on(Link::Http1, seed);
        h.engine.cfg.cadence = Cadence::Latency;
        h.server.push = true;
        let subs: Vec<SubId> = (0..3)
            .map(|i| h.call("job", json!({ "ms": 8_000 + 500 * i })))
            .collect();
        h.run_for(600);
        let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
        for step in 1..12 {
            for id in &ids {
                h.input(progress(id, step));
            }
            h.run_for(if step % 2 == 1 { 1_060 } else { 940 });
        }
        h.run_for(5_000);
        for (i, sub) in (0..).zip(&subs) {
            let (id, _, ends) = task(&h, *sub, 8_000 + 500 * i);
            assert_prompt(&h, *sub, ends);
            let gets = h.get_times(&id);
            assert!(
                gets.iter().all(|at| *at >= ends),
                "{id}: polled at {gets:?}, ends {ends}"
            );
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A legacy session on a link the browser did not name (assumed HTTP/1.1: six connections, the
/// listening stream holding one) whose server pushes each running task's status every interval.
fn hidden_link_pushing(seed: u64) -> Harness {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Http1,
        link_unseen: true,
        cadence: Cadence::Latency,
        request_timeout_ms: 5_000,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, seed);
    h.latency = (2, 20);
    h.pool = Some(6);
    h.drain_ms = DRAIN_MS;
    h.server.push = true;
    h
}

/// Runs `h` for `ms`, its server pushing every interval a status of each task of `subs` (of
/// `lens`) still running: when each subscription was done.
fn run_pushing(h: &mut Harness, subs: &[SubId], lens: &[Millis], ms: Millis) -> Vec<Millis> {
    let (start, mut step) = (h.now, 0);
    let mut done = vec![Millis::MAX; subs.len()];
    while h.now < start + ms {
        h.run_for(2);
        if h.now >= start + 1_000 * (step + 1) {
            step += 1;
            for (sub, ms) in subs.iter().zip(lens) {
                let (id, _, ends) = task(h, *sub, *ms);
                if h.now < ends {
                    h.input(progress(&id, step as u32));
                }
            }
        }
        for (at, sub) in done.iter_mut().zip(subs) {
            if *at == Millis::MAX && !h.dones(*sub).is_empty() {
                *at = h.now;
            }
        }
    }
    done
}

#[test]
fn on_a_hidden_link_a_pushing_server_s_ends_find_a_connection_for_their_results() {
    for seed in 0..4 {
        let mut h = hidden_link_pushing(700 + seed);
        h.engine.list_tasks(h.now, None);
        h.run_for(1_000);
        // 20 tasks of 2–4 s created at once: more than the connections, so the link could be
        // learnt; but held results would take the connections the pushed ends' results need.
        let lens: Vec<Millis> = (0..20)
            .map(|i| 2_000 + (i * 7_919 + seed * 131) % 2_000)
            .collect();
        let subs: Vec<SubId> = (lens.iter())
            .map(|ms| h.call("job", json!({ "ms": ms })))
            .collect();
        let done = run_pushing(&mut h, &subs, &lens, 8_000);
        for ((sub, ms), at) in subs.iter().zip(&lens).zip(&done) {
            let (id, _, ends) = task(&h, *sub, *ms);
            assert!(completed(&h, *sub), "seed {seed}: {id}");
            assert!(
                *at <= ends + 100,
                "seed {seed}: {id} ends {ends}, done {at}"
            );
            assert_fetched_after_the_push(&h, &id, ends);
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn on_a_hidden_link_pushed_ends_get_their_connections_before_polls() {
    for seed in [0, 3] {
        let mut h = hidden_link_pushing(710 + seed);
        h.engine.list_tasks(h.now, None);
        h.run_for(1_000);
        // 20 tasks of exactly 3 s created at once; the server's progress pushes come an interval
        // and 130 ms before their ends, the next one late (a busy server): each task's poll falls
        // due just before its end.
        let subs: Vec<SubId> = (0..20)
            .map(|_| h.call("job", json!({ "ms": 3_000 })))
            .collect();
        h.run_for(100);
        let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
        let first_end = (ids.iter())
            .filter_map(|id| h.server.tasks.get(id).map(|t| t.created + 3_000))
            .min()
            .unwrap_or(0);
        for (step, at) in [(1, 2_130), (2, 1_130)] {
            h.run_until(first_end - at);
            for id in &ids {
                h.input(progress(id, step));
            }
        }
        h.run_for(3_000);
        // Each task's result reached the server soon after its end: no poll made since took the
        // connection it needed.
        let waits: Vec<Millis> = (subs.iter())
            .map(|sub| {
                let (id, _, ends) = task(&h, *sub, 3_000);
                let first = results_of(&h, &id).into_iter().min().unwrap_or(Millis::MAX);
                first.saturating_sub(ends)
            })
            .collect();
        let mean = waits.iter().sum::<Millis>() / 20;
        assert!(mean <= 25, "seed {seed}: mean {mean} ms, {waits:?}");
        let polled = (subs.iter())
            .filter(|sub| {
                let (id, _, ends) = task(&h, **sub, 3_000);
                h.get_times(&id).iter().any(|at| *at + 100 >= ends)
            })
            .count();
        assert!(polled > 0, "seed {seed}: no poll fell due near the ends");
        for sub in &subs {
            let (_, _, ends) = task(&h, *sub, 3_000);
            assert_prompt(&h, *sub, ends);
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A session's first batch on the latency cadence against a pushing server: three tasks of 3 s,
/// each pushed `working` twice an interval apart from 300 ms on (before the session's first
/// interval, no `input_required` push ever), run past their ends.
fn pushed_first_batch(h: &mut Harness) -> Vec<SubId> {
    h.engine.cfg.cadence = Cadence::Latency;
    h.server.push = true;
    let subs: Vec<SubId> = (0..3)
        .map(|_| h.call("job", json!({ "ms": 3_000 })))
        .collect();
    h.run_for(300);
    let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
    for step in 1..3 {
        for id in &ids {
            h.input(progress(id, step));
        }
        h.run_for(1_000);
    }
    h.run_for(3_000);
    subs
}

#[test]
fn on_a_roomy_link_tasks_pushed_before_the_server_showed_its_kind_still_hold_their_results() {
    for seed in [5, 6] {
        // HTTP/2: running tasks hold their results where the server's pushes may not bring the
        // input requests. The first batch's holds wait for the session's first interval; the
        // server's first progress push comes before it (and no `input_required` push ever).
        let mut h = legacy_on(Link::Http2, seed);
        let subs = pushed_first_batch(&mut h);
        for sub in &subs {
            let (id, _, ends) = task(&h, *sub, 3_000);
            assert_prompt(&h, *sub, ends);
            // Held from its first push (a fresh request may race it at the pushed end, see
            // `race.rs`).
            let results = results_of(&h, &id);
            assert!(
                results.len() <= 2 && results.iter().any(|at| *at < ends - 2_000),
                "seed {seed}: {id} held from its first push: {results:?}, ends {ends}"
            );
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn on_a_link_with_few_connections_tasks_pushed_before_the_server_showed_its_kind_hold_nothing() {
    // As above on HTTP/1.1 with results held where the budget allows: the first batch leaves
    // its ends to the pushes, whose results need every free connection.
    let mut h = legacy_on(Link::Http1, 7);
    h.engine.cfg.max_blocking_results = Some(4);
    let subs = pushed_first_batch(&mut h);
    for sub in &subs {
        let (id, _, ends) = task(&h, *sub, 3_000);
        assert_prompt(&h, *sub, ends);
        let results = results_of(&h, &id);
        assert!(
            results.len() == 1 && results.iter().all(|at| *at >= ends),
            "{id}: {results:?}, ends {ends}"
        );
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}
