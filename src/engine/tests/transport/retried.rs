//! A `tasks/result` the server refused with `429, Retry-After` waits at the front of the queue
//! and goes out first when the hold ends. While it waits, nothing that settles the task again (a
//! pushed end, a new watcher, the poll timer) may send a second one: at most one `tasks/result`
//! per task is outstanding, and each refusal costs exactly one retry.

use crate::json::json;

use crate::engine::api::{Config, DialectChoice};
use crate::engine::tests::faults::{completed, config};
use crate::engine::tests::push::results_of;
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

/// A legacy server on a budget of one blocking result: running tasks are polled, and each
/// finished task's result is asked for once it ended.
fn polled_legacy(seed: u64) -> Harness {
    let cfg = Config {
        max_blocking_results: Some(1),
        ..config(DialectChoice::Legacy, 5_000)
    };
    Harness::with_config(cfg, Dialect::Legacy, seed)
}

#[test]
fn a_throttled_result_is_retried_once_per_refusal_after_the_hold() {
    for (seed, push, refusals) in [(61, false, 1), (62, true, 1), (63, true, 3), (64, false, 2)] {
        let mut h = polled_legacy(seed);
        h.server.push = push;
        h.server.faults.throttled_results = refusals;
        h.server.faults.throttle_ms = 3_000;
        let sub = h.call("job", json!({ "ms": 1_000 }));
        for _ in 0..200 {
            if h.count("tasks/result") > 0 {
                break;
            }
            h.run_for(50);
        }
        let task = h.task_of(sub).unwrap_or_default();
        let Some(&refused) = results_of(&h, &task).first() else {
            panic!("seed {seed}: no tasks/result sent");
        };
        // During the hold the task settles again: a new watcher, then the poll timer's turn.
        h.run_for(500);
        let late = h.watch(&task);
        h.run_for(60_000);

        let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
        let results = results_of(&h, &task);
        let expected = usize::try_from(refusals).unwrap_or(0) + 1;
        assert_eq!(
            results.len(),
            expected,
            "seed {seed}: one per refusal, {log:#?}"
        );
        assert!(
            results.windows(2).all(|w| w[1] >= w[0] + 3_000),
            "seed {seed}: each retry waits out the hold: {results:?}"
        );
        assert!(results[1] >= refused + 3_000, "seed {seed}: {results:?}");
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        assert!(
            completed(&h, sub) && completed(&h, late),
            "seed {seed}: {log:#?}"
        );
    }
}

/// Several tasks end inside one hold while one's result was refused: each still gets exactly
/// one `tasks/result` after it, the refused one first.
#[test]
fn results_refused_in_a_batch_each_go_out_once_after_the_hold() {
    for seed in 70..76 {
        let mut h = polled_legacy(seed);
        h.server.push = seed % 2 == 0;
        h.latency = (5, 40);
        h.server.faults.throttled_results = 2;
        h.server.faults.throttle_ms = 2_000;
        let subs: Vec<_> = (0..6)
            .map(|i| h.call("job", json!({ "ms": 800 + 150 * i })))
            .collect();
        h.run_for(60_000);

        let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        for sub in &subs {
            assert!(completed(&h, *sub), "seed {seed} {sub:?}: {log:#?}");
        }
        assert_eq!(h.count("tasks/result"), 6 + 2, "seed {seed}: {log:#?}");
    }
}
