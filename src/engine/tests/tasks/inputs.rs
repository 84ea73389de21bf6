//! How soon a server's input request reaches the host: at once when a task is created already
//! waiting for input (modern), and at the speed of a held result, or of a young task's polls,
//! when the server pushes some statuses but not `input_required` (legacy); and a task whose input
//! request never comes.

use crate::json::json;

use crate::engine::api::{Cadence, Config, DialectChoice, End, ErrorKind, Link, Millis};
use crate::engine::calls::no_input::NO_INPUT_MS;
use crate::engine::tests::push::legacy_on;
use crate::protocol::model::Dialect;
use crate::testkit::server::RunningResults;
use crate::testkit::Harness;

/// Runs `h` in 50 ms steps for up to `limit` ms: when its first input request reached the host.
fn first_input_at(h: &mut Harness, limit: Millis) -> Option<Millis> {
    let end = h.now + limit;
    while h.now < end {
        if h.inputs_seen() > 0 {
            return Some(h.now);
        }
        h.run_for(50);
    }
    None
}

#[test]
fn a_task_created_waiting_for_input_has_its_requests_fetched_at_once() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 96);
    let called = h.now;
    h.call(
        "job",
        json!({ "ms": 60_000, "input": true, "input_after": 0, "interval": 5_000 }),
    );
    let seen = first_input_at(&mut h, 10_000).unwrap_or(Millis::MAX);
    assert!(seen <= called + 1_000, "after {} ms", seen - called);
    let gets = h.get_times("task-1");
    assert!(gets.len() == 1, "one tasks/get: {gets:?}");
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// A legacy server that pushes every status but `input_required`, its pushes seen (a first task
/// ran to its pushed end): a second task asks for input 10 s in. The request reaches the host
/// within `within` ms.
fn input_without_its_push(link: Link, within: Millis, seed: u64) {
    let mut h = legacy_on(link, seed);
    h.server.push = true;
    h.server.unpushed = Some("input_required");
    h.call("job", json!({ "ms": 400 }));
    h.run_for(3_000);
    let raised = h.now + 10_000;
    h.call(
        "job",
        json!({ "ms": 60_000, "input": true, "input_after": 10_000 }),
    );
    let seen = first_input_at(&mut h, 30_000).unwrap_or(Millis::MAX);
    assert!(
        seen <= raised + within,
        "{link:?}: {} ms after it was raised",
        seen.saturating_sub(raised)
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn input_a_pushing_server_does_not_push_comes_at_hold_speed() {
    input_without_its_push(Link::Node, 300, 97);
    input_without_its_push(Link::WebSocket, 300, 98);
}

#[test]
fn input_a_pushing_server_does_not_push_comes_at_a_young_tasks_cadence() {
    // A browser's HTTP/1.1: running tasks hold no result; a 10 s-old task is polled each second.
    input_without_its_push(Link::Http1, 1_000 + 20 + 400 + 300, 99);
}

/// A server that leaves a task `input_required` without ever sending its input request (pmcp's
/// 2025-11-25 side answers `tasks/result` at once with an error): the call fails naming the
/// deviation soon after the client asked, not before, and the task is no longer polled.
fn input_never_sent(choice: DialectChoice, server: Dialect, seed: u64) {
    let mut h = Harness::new(choice, server, seed);
    h.server.faults.mute_inputs = true;
    h.server.faults.running_results = RunningResults::Refuse;
    let raised = h.now + 1_000;
    let sub = h.call(
        "job",
        json!({ "ms": 600_000, "input": true, "input_after": 1_000, "interval": 2_000 }),
    );
    h.run_for(1_000 + NO_INPUT_MS);
    assert!(
        h.dones(sub).is_empty(),
        "{server:?}: not before it was asked"
    );
    let ended = h.run_until_done(20_000, |h| !h.dones(sub).is_empty());
    let End::Failed { error } = h.done(sub) else {
        panic!("{server:?}: {:?}", h.done(sub));
    };
    assert_eq!(error.kind, ErrorKind::Protocol, "{server:?}");
    assert!(
        error.message.contains("sent no input request"),
        "{}",
        error.message
    );
    assert!(
        ended - raised <= NO_INPUT_MS + 2 * 2_000 + 100,
        "{server:?}: {} ms",
        ended - raised
    );
    let polls = h.count("tasks/get");
    h.run_for(30_000);
    assert_eq!(
        h.count("tasks/get"),
        polls,
        "{server:?}: the task is no longer polled"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_task_whose_input_request_never_comes_fails_naming_it() {
    input_never_sent(DialectChoice::Legacy, Dialect::Legacy, 101);
    input_never_sent(DialectChoice::Modern, Dialect::Modern, 102);
}

/// An input request the host takes its time to answer: the task waits as long as it takes.
#[test]
fn a_slow_answer_to_an_input_request_fails_nothing() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 103);
    h.auto_answer = false;
    let sub = h.call(
        "job",
        json!({ "ms": 600_000, "input": true, "input_after": 1_000, "interval": 2_000 }),
    );
    h.run_for(60_000);
    assert_eq!(h.inputs_seen(), 1);
    assert!(h.dones(sub).is_empty(), "{:?}", h.dones(sub));
}

/// pmcp's shape over a WebSocket, with the JS default cadence: a 5 s interval, a deferred held
/// result refused at once (twice: before and after the task is seen waiting), no input request
/// ever. The poll on the task's grid due a few ms before the 5 s since the last `tasks/result`
/// waits for them: the call fails at that poll, not one interval later, whatever the latencies.
#[test]
fn a_poll_due_just_before_the_no_input_deadline_waits_for_it() {
    for seed in 0..40 {
        let cfg = Config {
            dialect: DialectChoice::Legacy,
            link: Link::WebSocket,
            cadence: Cadence::Latency,
            ..Config::default()
        };
        let mut h = Harness::with_config(cfg, Dialect::Legacy, 110 + seed);
        h.latency = (1, 40);
        h.server.faults.mute_inputs = true;
        h.server.faults.running_results = RunningResults::Refuse;
        let sub = h.call(
            "job",
            json!({ "ms": 600_000, "input": true, "input_after": 10, "interval": 5_000 }),
        );
        let ended = h.run_until_done(30_000, |h| !h.dones(sub).is_empty());
        assert!(
            matches!(h.done(sub), End::Failed { .. }),
            "{:?}",
            h.done(sub)
        );
        let asked = (h.sent.iter().rev())
            .find(|s| s.method == "tasks/result")
            .map_or(0, |s| s.at);
        let took = ended - asked;
        assert!(
            (NO_INPUT_MS..NO_INPUT_MS + 100).contains(&took),
            "seed {seed}: failed {took} ms after the last tasks/result"
        );
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}
