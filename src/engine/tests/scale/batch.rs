//! Faults the large browser batch (30 tasks per case, docs/fault-matrix.md) found: throttling
//! that leaves one task behind on every hold.

use crate::json::json;

use crate::engine::api::SubId;
use crate::engine::tests::faults::{completed, legacy, polled_legacy};
use crate::testkit::Harness;

/// The matrix's large batch: 30 tasks of 2.5 s started at once.
fn thirty_jobs(h: &mut Harness) -> Vec<SubId> {
    (0..30)
        .map(|_| h.call("job", json!({ "ms": 2_500 })))
        .collect()
}

/// Every subscription completed with its result.
fn all_completed(h: &Harness, subs: &[SubId], seed: u64) {
    for sub in subs {
        let dones = h.dones(*sub);
        assert!(completed(h, *sub), "seed {seed} {sub:?}: {dones:?}");
    }
}

/// The server refuses each task's every other poll with `429, Retry-After: 2 s` (a per-task
/// limit): the hold must still let every task through, the refused poll first.
#[test]
fn a_per_task_retry_after_lets_a_batch_of_thirty_finish() {
    let mut h = legacy(51);
    h.latency = (5, 15);
    h.server.faults.throttle_every = 2;
    h.server.faults.throttle_ms = 2_000;
    let subs = thirty_jobs(&mut h);
    h.run_for(60_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    let ended = subs.iter().filter(|s| h.dones(**s).len() == 1).count();
    assert_eq!(ended, subs.len(), "every task ended: {log:#?}");
    for sub in &subs {
        assert!(completed(&h, *sub), "{sub:?}: {:?}", h.done(*sub));
        let task = h.task_of(*sub).unwrap_or_default();
        let gets = h.get_times(&task);
        for (i, pair) in gets.windows(2).enumerate() {
            if i % 2 == 0 {
                assert!(
                    pair[1] - pair[0] >= 2_000,
                    "{task}: Retry-After honoured: {gets:?}"
                );
            }
        }
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

/// Each task's first poll stalls (head, then silence) while 30 tasks share a six-stream pool, and
/// requests reach the server late: as the server sees it, one status request at most is open per
/// task (the stalled one is closed before the next goes out), and every task still completes.
#[test]
fn stalled_polls_in_a_busy_pool_never_overlap_at_the_server() {
    for seed in 0..8 {
        let mut h = crate::engine::tests::faults::modern(60 + seed);
        h.server.push = seed % 2 == 0;
        h.pool = Some(6);
        h.request_delay = (0, 400);
        h.latency = (5, 120);
        h.server.faults.stall_every = 2;
        let subs = thirty_jobs(&mut h);
        h.run_for(90_000);
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        all_completed(&h, &subs, seed);
    }
}

/// The matrix's stalled-stream case on a server whose `tasks/result` consumes the task (rmcp 2):
/// every other poll stalls, each stalled poll the engine gives up on keeps its connection while
/// the browser drains it, so later requests wait in the browser's queue. A `tasks/result` that
/// waited there must not be abandoned by its timeout as it reaches the server: asking again
/// finds the task consumed, and the result is lost.
#[test]
fn a_result_queued_behind_draining_polls_is_not_lost_on_a_consuming_server() {
    for seed in 0..8 {
        let cfg =
            crate::engine::tests::faults::config(crate::engine::api::DialectChoice::Legacy, 2_500);
        let mut h = Harness::with_config(cfg, crate::protocol::model::Dialect::Legacy, 80 + seed);
        h.pool = Some(6);
        h.drain_ms = 5_000;
        h.latency = (5, 120);
        h.server.faults.stalled_gets = 30;
        h.server.faults.consume_results = true;
        let subs = thirty_jobs(&mut h);
        h.run_for(90_000);
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        all_completed(&h, &subs, seed);
    }
}

/// A push says the task ended while the server's `Retry-After` holds: its result waits too (the
/// fault matrix saw a `tasks/result` 1 s after a 503 with `retry-after-ms: 1500`, under load: it
/// had left the engine before the 503 reached it).
#[test]
fn a_push_during_a_hold_does_not_send_the_result_early() {
    let mut h = polled_legacy(52);
    h.server.push = true;
    h.latency = (10, 10);
    h.server.faults.throttled_gets = 1;
    h.server.faults.throttle_ms = 3_000;
    let sub = h.call("job", json!({ "ms": 1_800 }));
    h.run_for(30_000);
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    let refused = h.get_times(&h.task_of(sub).unwrap_or_default())[0];
    let early = h
        .sent
        .iter()
        .filter(|s| s.at > refused + 10 && s.at < refused + 10 + 3_000)
        .count();
    assert_eq!(early, 0, "nothing during the hold: {log:#?}");
    assert!(completed(&h, sub), "{log:#?}");
}
