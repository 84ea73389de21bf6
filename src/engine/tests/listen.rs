//! The modern listen stream (`subscriptions/listen`): tasks created together share one, and a
//! re-opened one replaces the old only once the server has accepted it.

use serde_json::json;

use crate::engine::api::{DialectChoice, Millis, SendKey};
use crate::engine::testkit::{Harness, T0};
use crate::protocol::model::Dialect;

#[test]
fn modern_listen_covers_tasks_created_together_within_a_second() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 7);
    let subs: Vec<_> = (0..5)
        .map(|_| h.call("job", json!({ "ms": 20_000 })))
        .collect();
    h.run_for(8_000);
    assert!(subs.iter().all(|s| h.task_of(*s).is_some()));
    let listens: Vec<Millis> = h
        .sent
        .iter()
        .filter(|s| s.method == "subscriptions/listen")
        .map(|s| s.at - T0)
        .collect();
    assert!(
        !listens.is_empty() && listens.len() <= 2 && listens.iter().all(|&at| at <= 1_500),
        "the listen stream settles on all five tasks within ~1 s: {listens:?}"
    );
}

/// A re-opened listen stream replaces the old one only once the server has accepted it: pushes
/// already on their way on the old stream are not cut off (seen in the Chromium throughput
/// bench, where a re-open cut a stream mid-burst and lost every task's last status).
#[test]
fn a_reopened_listen_stream_replaces_the_old_one_once_accepted() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 9);
    h.latency = (20, 40);
    let first = h.call("job", json!({ "ms": 20_000 }));
    h.run_for(500);
    let second = h.call("job", json!({ "ms": 20_000 }));
    h.run_for(3_000);
    assert!(h.task_of(first).is_some() && h.task_of(second).is_some());
    let listens: Vec<(Millis, SendKey)> = (h.sent.iter())
        .filter(|s| s.method == "subscriptions/listen")
        .map(|s| (s.at, s.key))
        .collect();
    let [(_, old), (reopened_at, new)] = listens[..] else {
        panic!("two listen requests expected: {listens:?}");
    };
    let closed: Vec<Millis> = (h.aborted.iter())
        .filter(|(_, k)| *k == old)
        .map(|(at, _)| *at)
        .collect();
    assert_eq!(closed.len(), 1, "the old stream is closed once: {closed:?}");
    assert!(
        closed[0] >= reopened_at + 20,
        "closed at {} (re-opened at {}): not before the new one was accepted",
        closed[0] - T0,
        reopened_at - T0
    );
    assert!(
        !h.aborted.iter().any(|(_, k)| *k == new),
        "the new one stays open"
    );
}

/// `subscribe: false`: no listen request; the tasks end by polling alone.
#[test]
fn without_subscribing_no_listen_goes_out_and_polls_end_the_tasks() {
    let cfg = crate::engine::api::Config {
        dialect: DialectChoice::Modern,
        subscribe: false,
        ..Default::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Modern, 5);
    h.server.push = true;
    let subs: Vec<_> = (0..3)
        .map(|_| h.call("job", json!({ "ms": 4_000 })))
        .collect();
    h.run_for(10_000);
    assert_eq!(h.count("subscriptions/listen"), 0);
    for s in subs {
        assert!(
            matches!(h.done(s), crate::engine::api::End::Finished { .. }),
            "{:?}",
            h.done(s)
        );
    }
}
