//! A held `tasks/result` is closed in the step the running task's last subscriber leaves, not
//! when the task is dropped: its connection and its slot are free at once, and a watch that comes
//! back holds again.

use crate::json::json;

use crate::engine::api::{Config, DialectChoice, Link};
use crate::engine::tests::push::{completed, legacy_on, results_of};
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

#[test]
fn the_held_result_is_closed_in_the_step_the_last_subscriber_leaves() {
    let mut h = legacy_on(Link::Node, 201);
    let call = h.call("job", json!({ "ms": 600_000, "ttl": null }));
    h.run_for(3_000);
    let id = h.task_of(call).unwrap_or_default();
    let watch = h.watch(&id);
    let held = h.results_held(&id);
    assert_eq!(held.len(), 1, "held while the task runs");

    h.unsubscribe(call);
    assert_eq!(h.results_held(&id), held, "one subscriber is left");
    h.unsubscribe(watch);
    assert!(
        h.results_held(&id).is_empty(),
        "closed with the last subscriber"
    );
    assert!(h.aborted.contains(&(h.now, held[0])), "{:?}", h.aborted);

    let sent = h.sent.len();
    h.run_for(60_000);
    assert_eq!(h.sent.len(), sent, "nothing sent for an unfollowed task");
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_watch_that_comes_back_holds_again_and_gets_the_result() {
    let mut h = legacy_on(Link::Node, 202);
    let call = h.call("job", json!({ "ms": 120_000, "ttl": null }));
    h.run_for(3_000);
    let id = h.task_of(call).unwrap_or_default();
    h.unsubscribe(call);
    h.run_for(60_000);
    assert!(h.results_held(&id).is_empty());

    let back = h.watch(&id);
    assert_eq!(h.results_held(&id).len(), 1, "held again at the watch");
    h.run_for(120_000);
    assert!(completed(&h, back), "{:?}", h.done(back));
    assert_eq!(results_of(&h, &id).len(), 2, "{:?}", results_of(&h, &id));
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn the_freed_slot_goes_to_a_waiting_task_at_once() {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Node,
        max_blocking_results: Some(4),
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, 203);
    // Four slots: three for running tasks, one kept for a task waiting for input.
    let subs: Vec<_> = (0..4)
        .map(|_| h.call("job", json!({ "ms": 600_000, "ttl": null })))
        .collect();
    h.run_for(3_000);
    let ids: Vec<String> = (subs.iter()).filter_map(|&s| h.task_of(s)).collect();
    assert_eq!(ids.len(), 4);
    let waiting: Vec<&String> = (ids.iter())
        .filter(|t| h.results_held(t).is_empty())
        .collect();
    assert_eq!(waiting.len(), 1, "three slots for four running tasks");
    let waiting = waiting[0].clone();
    let Some(leaving) = (subs.iter().zip(&ids)).find(|(_, t)| **t != waiting) else {
        panic!("no holding task")
    };
    h.unsubscribe(*leaving.0);
    assert!(h.results_held(leaving.1).is_empty());
    assert_eq!(
        h.results_held(&waiting).len(),
        1,
        "the freed slot is taken in the same step"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_task_waiting_for_a_slot_leaves_the_line_with_its_last_subscriber() {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Node,
        max_blocking_results: Some(4),
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, 204);
    // Four slots: three for running tasks, one kept for a task waiting for input.
    let subs: Vec<_> = (0..4)
        .map(|_| h.call("job", json!({ "ms": 600_000, "ttl": null })))
        .collect();
    h.run_for(3_000);
    let tasks: Vec<_> = (subs.iter())
        .filter_map(|&s| h.task_of(s).map(|t| (s, t)))
        .collect();
    let Some((waiting_sub, waiting)) = (tasks.iter()).find(|(_, t)| h.results_held(t).is_empty())
    else {
        panic!("three slots for four running tasks")
    };
    let Some((holding_sub, _)) = (tasks.iter()).find(|(_, t)| t != waiting) else {
        panic!("no holding task")
    };
    h.unsubscribe(*waiting_sub);
    h.unsubscribe(*holding_sub);
    assert!(h.results_held(waiting).is_empty(), "nobody follows it");

    h.watch(waiting);
    h.run_for(10_000);
    assert_eq!(
        h.results_held(waiting).len(),
        1,
        "held once, in the freed slot"
    );
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}
