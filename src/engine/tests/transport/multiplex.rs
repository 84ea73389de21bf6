//! A page whose server is on another origin without `Timing-Allow-Origin` cannot read the HTTP
//! version: the link starts as assumed HTTP/1.1 with six held results; a seventh request answered
//! while they stay open switches it to HTTP/2 (held results instead of polls), a request stuck
//! behind them to HTTP/1.1 for good (polls, as before).

use crate::json::json;

use crate::engine::api::{Config, DialectChoice, Link, Millis, SubId};
use crate::engine::requests::multiplex::STALL_MS;
use crate::engine::requests::pool::DRAIN_MS;
use crate::engine::tests::push::completed;
use crate::protocol::model::Dialect;
use crate::testkit::{Harness, T0};

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

/// 21 tasks of `ms` created at once, as a page creates a batch; run until they all ended.
fn batch(h: &mut Harness, ms: Millis) -> Vec<SubId> {
    let subs: Vec<SubId> = (0..21)
        .map(|_| h.call("job", json!({ "ms": ms })))
        .collect();
    h.run_for(ms + 20_000);
    subs
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
