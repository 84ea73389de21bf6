//! The modern listen stream (`subscriptions/listen`): tasks created together share one, and a
//! re-opened one replaces the old only once the server has accepted it.

use crate::json::json;

use crate::engine::api::{DialectChoice, Millis, SendKey};
use crate::engine::scheduler::cadence::{poll_gap, with_jitter_bound};
use crate::protocol::model::Dialect;
use crate::testkit::{Harness, T0};

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

/// The ids of the tasks `subs` follow.
fn task_ids(h: &Harness, subs: &[crate::engine::api::SubId]) -> Vec<String> {
    subs.iter().filter_map(|s| h.task_of(*s)).collect()
}

/// A modern server that pushes, with tasks of `ms` created `apart` ms after one another.
fn pushing(seed: u64, n: usize, ms: Millis, apart: Millis) -> (Harness, Vec<String>) {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, seed);
    h.server.push = true;
    let mut subs = Vec::new();
    for _ in 0..n {
        subs.push(h.call("job", json!({ "ms": ms })));
        h.run_for(apart);
    }
    h.run_for(500);
    let ids = task_ids(&h, &subs);
    assert_eq!(ids.len(), n);
    (h, ids)
}

/// Tasks created over a few hundred ms (answers arriving one by one) share one listen request,
/// each is read once after the server's acknowledgement names it, and then, while the stream
/// stays open, their polls are only the safety net: the stream brings their news.
#[test]
fn an_acknowledged_listen_stream_is_the_signal_and_polls_the_safety_net() {
    let (mut h, ids) = pushing(11, 6, 30_000, 40);
    h.run_for(40_000);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    let lines: Vec<String> = (h.sent.iter())
        .filter(|s| s.method != "tasks/get")
        .map(|s| s.line())
        .collect();
    assert_eq!(
        h.count("subscriptions/listen"),
        1,
        "one stream names all six: {lines:?}"
    );
    for id in &ids {
        let created = h.server.tasks.get(id).map_or(0, |t| t.created);
        let gets = h.get_times(id);
        let (read, net) = gets.split_at(gets.len().min(1));
        assert!(
            read.iter().all(|&g| g <= created + 2_000)
                && net.iter().all(|&g| g >= created + 20_000)
                && net.len() <= 1,
            "{id}: polled at {:?} (created {})",
            gets.iter().map(|g| g - T0).collect::<Vec<_>>(),
            created - T0
        );
    }
}

/// When the stream ends and the server refuses a new one, the tasks it pushed about are polled
/// again at once at their cadence: the first poll within one interval, no two sooner than it.
#[test]
fn tasks_a_lost_stream_pushed_about_resume_their_cadence_within_an_interval() {
    let (mut h, ids) = pushing(12, 4, 120_000, 0);
    h.run_for(5_000);
    assert!(ids.iter().all(|id| h.get_times(id).len() == 1), "read once");
    let listen = h
        .sent
        .iter()
        .rev()
        .find(|s| s.method == "subscriptions/listen");
    let key = listen.map(|s| s.key).expect("a listen stream");
    h.server.faults.missing.push("subscriptions/listen");
    let ended = h.now;
    h.input(crate::engine::api::Input::Ended { key });
    h.run_for(30_000);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    for id in &ids {
        let gets: Vec<Millis> = (h.get_times(id).into_iter())
            .filter(|&g| g >= ended)
            .collect();
        let first = gets.first().copied().unwrap_or(u64::MAX);
        assert!(
            first >= ended && first <= ended + 1_000 + 60,
            "{id}: first poll {} ms after the stream ended",
            first.saturating_sub(ended)
        );
        let created = h.server.tasks.get(id).map_or(0, |t| t.created);
        for w in gets.windows(2) {
            let bound = with_jitter_bound(poll_gap(None, w[1] - created, true)) + 60;
            assert!(
                (1_000..=bound).contains(&(w[1] - w[0])),
                "{id}: polls {} ms apart at age {}",
                w[1] - w[0],
                w[1] - created
            );
        }
    }
}

/// A modern server that pushes only what changes after a listen stream named the task.
fn pushing_to_listeners(seed: u64) -> Harness {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, seed);
    h.server.push = true;
    h.server.push_to_listeners = true;
    h
}

/// A task that asks for input before the listen stream is acknowledged: the change is never
/// pushed, so one status request after the acknowledgement finds it; answered, the task ends
/// long before the safety-net poll.
#[test]
fn input_asked_before_the_listen_ack_is_found_by_one_poll_after_it() {
    let mut h = pushing_to_listeners(21);
    let sub = h.call(
        "job",
        json!({ "ms": 60_000, "input": true, "input_after": 10 }),
    );
    h.run_for(6_000);
    assert_eq!(h.inputs_seen(), 1, "the input request reached the host");
    assert!(
        matches!(h.done(sub), crate::engine::api::End::Finished { .. }),
        "ended within 6 s: {:?}",
        h.done(sub)
    );
}

/// A task that ends before the listen stream is acknowledged (its end never pushed) ends for
/// the client at the poll after the acknowledgement, not at the safety net's.
#[test]
fn an_end_before_the_listen_ack_is_found_by_one_poll_after_it() {
    let mut h = pushing_to_listeners(22);
    let sub = h.call("job", json!({ "ms": 60 }));
    h.run_for(2_000);
    assert!(
        matches!(h.done(sub), crate::engine::api::End::Finished { .. }),
        "ended within 2 s: {:?}",
        h.done(sub)
    );
    let id = h.task_of(sub).unwrap_or_default();
    assert_eq!(h.get_times(&id).len(), 1, "one poll after the ack");
}
