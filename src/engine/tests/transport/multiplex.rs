//! A page whose server is on another origin without `Timing-Allow-Origin` cannot read the HTTP
//! version: the link starts as assumed HTTP/1.1 and its tasks are polled; once more tasks are
//! tracked than the browser has connections, six results are held: a seventh request answered
//! while they stay open switches it to HTTP/2 (held results instead of polls), a request stuck
//! behind them to HTTP/1.1 for good (two results kept, the rest polled).

use crate::json::json;

use crate::engine::api::{Cadence, Config, DialectChoice, Link, Millis, SubId};
use crate::engine::requests::multiplex::{KEPT_ON_HTTP1, STALL_MS};
use crate::engine::requests::pool::DRAIN_MS;
use crate::engine::scheduler::cadence::with_jitter_bound;
use crate::engine::tests::push::completed;
use crate::protocol::model::Dialect;
use crate::testkit::{Harness, Sent, T0};

/// A legacy session whose link is assumed HTTP/1.1 (`unseen`) or known to be.
fn assumed_http1(unseen: bool, seed: u64) -> Harness {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Http1,
        link_unseen: unseen,
        request_timeout_ms: 5_000,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, seed);
    h.latency = (2, 40);
    h
}

/// `n` tasks of `ms` created at once, as a page creates a batch.
fn create(h: &mut Harness, n: usize, ms: Millis) -> Vec<SubId> {
    (0..n).map(|_| h.call("job", json!({ "ms": ms }))).collect()
}

/// 21 tasks of `ms` created at once; run until they all ended.
fn batch(h: &mut Harness, ms: Millis) -> Vec<SubId> {
    let subs = create(h, 21, ms);
    h.run_for(ms + 20_000);
    subs
}

/// `tasks/result` requests sent before `until`.
fn results_before(h: &Harness, until: Millis) -> usize {
    (h.sent.iter())
        .filter(|s| s.method == "tasks/result" && s.at < until)
        .count()
}

#[test]
fn a_multiplexed_link_the_browser_hid_is_learned_from_a_batch_and_holds_results() {
    for seed in 0..6 {
        let mut learned = assumed_http1(true, 300 + seed);
        let subs = batch(&mut learned, 12_000);
        assert_eq!(learned.engine.cfg.link, Link::Http2, "seed {seed}");
        assert!(
            learned.max_results_open > 3,
            "seed {seed}: running tasks hold their results: {}",
            learned.max_results_open
        );
        for sub in subs {
            assert!(completed(&learned, sub), "seed {seed} {sub:?}");
        }
        assert!(learned.violations.is_empty(), "{:?}", learned.violations);
        let mut assumed = assumed_http1(false, 300 + seed);
        batch(&mut assumed, 12_000);
        let (gets, polled) = (learned.count("tasks/get"), assumed.count("tasks/get"));
        assert!(
            gets * 3 < polled,
            "seed {seed}: {gets} status requests once learned, {polled} while assumed"
        );
    }
}

#[test]
fn a_real_six_connection_pool_never_switches_the_link() {
    for seed in 0..6 {
        let mut h = assumed_http1(true, 400 + seed);
        h.pool = Some(6);
        h.drain_ms = 5_000;
        h.request_delay = (0, 30);
        let subs = batch(&mut h, 6_000 + 500 * seed);
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert!(!h.engine.cfg.link_unseen, "seed {seed}: learnt");
        // The probe's cost: the six connections held until the line stalled, then drained.
        let id = h.task_of(subs[20]).unwrap_or_default();
        let first = h.get_times(&id).first().map(|t| t - T0);
        let bound = 2_000 + STALL_MS + DRAIN_MS + 1_000;
        assert!(
            first.is_some_and(|t| t <= bound),
            "seed {seed}: a task the probe did not hold is polled by {bound} ms: {first:?}"
        );
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed} {sub:?}");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn a_link_the_browser_named_is_never_relearned() {
    let mut h = assumed_http1(false, 500);
    let subs = batch(&mut h, 6_000);
    assert_eq!(h.engine.cfg.link, Link::Http1);
    for sub in subs {
        assert!(completed(&h, sub), "{sub:?}");
    }
}

#[test]
fn fewer_tasks_than_connections_are_polled_and_hold_nothing() {
    for seed in 0..4 {
        for pool in [None, Some(6)] {
            let mut h = assumed_http1(true, 600 + seed);
            h.pool = pool;
            let subs = create(&mut h, 5, 8_000);
            h.run_for(20_000);
            // No running task held its result: the HTTP/1.1 budget until HTTP/2 is proven.
            assert_eq!(
                results_before(&h, T0 + 8_000),
                0,
                "seed {seed} pool {pool:?}"
            );
            assert!(
                h.engine.cfg.link_unseen,
                "seed {seed}: nothing to learn from"
            );
            for sub in subs {
                let id = h.task_of(sub).unwrap_or_default();
                assert!(h.get_times(&id).len() >= 7, "seed {seed}: {id} polled");
                assert!(completed(&h, sub), "seed {seed} {sub:?}");
            }
            assert!(h.violations.is_empty(), "{:?}", h.violations);
        }
    }
}

#[test]
fn a_link_found_http1_keeps_two_held_results_and_polls_the_rest() {
    for seed in 0..6 {
        let mut h = assumed_http1(true, 700 + seed);
        h.engine.cfg.cadence = Cadence::Latency;
        h.record = true;
        h.pool = Some(6);
        // Released results free their connections at once (no head came: the server answers a
        // held result only at the end, as the bench server does).
        h.drain_ms = 0;
        let subs = create(&mut h, 12, 15_000);
        let learnt = h.run_until_done(10_000, |h| !h.engine.cfg.link_unseen);
        assert!(learnt < T0 + 10_000, "seed {seed}: decided");
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert_eq!(
            h.engine.take_learnt_link(),
            Some(Link::Http1),
            "seed {seed}"
        );
        assert_eq!(h.engine.take_learnt_link(), None, "seed {seed}: told once");
        h.run_for(1_000);
        let held = (subs.iter())
            .filter_map(|s| h.task_of(*s))
            .filter(|id| (h.engine.tasks.get(id)).is_some_and(|e| e.result.req().is_some()))
            .count();
        assert_eq!(held, KEPT_ON_HTTP1, "seed {seed}: results kept on HTTP/1.1");
        assert!(
            h.max_results_open <= 6,
            "seed {seed}: {}",
            h.max_results_open
        );
        h.run_for(30_000);
        // Once decided, the probe's stall moved no polled task's polls off the grid its creation
        // set (one interval and a fiftieth after it, then every interval; behind it by the ways
        // there and back).
        for sub in &subs {
            let id = h.task_of(*sub).unwrap_or_default();
            let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
            let mine = |s: &&Sent| s.task_id.as_deref() == Some(id.as_str());
            let held = (h.sent.iter().filter(mine))
                .any(|s| s.method == "tasks/result" && s.at < created + 15_000);
            let gets = (h.sent.iter().filter(mine)).filter(|s| s.method == "tasks/get" && !held);
            let after = |at: &Millis| *at > learnt + 200 && *at < created + 15_000;
            for at in gets.map(|s| s.at).filter(after) {
                let off = (at - created - with_jitter_bound(1_000)) % 1_000;
                assert!(off <= 200, "seed {seed} {id}: a poll {off} ms off its grid");
            }
            // A poll that waited behind the probe reached the server late: the next one keeps
            // nine tenths of the interval from it there.
            for w in h.get_times(&id).windows(2) {
                assert!(
                    w[1] - w[0] >= 900,
                    "seed {seed} {id}: polls {} ms apart",
                    w[1] - w[0]
                );
            }
            assert!(completed(&h, *sub), "seed {seed} {sub:?}");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}
