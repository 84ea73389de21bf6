//! A page whose server is on another origin without `Timing-Allow-Origin` cannot read the HTTP
//! version: the link starts as assumed HTTP/1.1 and its tasks are polled; once more tasks are
//! tracked than the browser has connections, six results are held: a seventh request answered
//! while they stay open switches it to HTTP/2 (held results instead of polls), a request stuck
//! behind them to HTTP/1.1 for good (the held results answer, nothing new is held).

use crate::json::json;

use crate::engine::api::{Cadence, Config, DialectChoice, Link, Millis, SendKey, SubId};
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
        let ms = 6_000 + 500 * seed;
        let subs = batch(&mut h, ms);
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert!(!h.engine.cfg.link_unseen, "seed {seed}: learnt");
        // The probe's cost: the six connections held until the held tasks end (none is closed).
        let id = h.task_of(subs[20]).unwrap_or_default();
        let first = h.get_times(&id).first().map(|t| t - T0);
        let bound = ms + 1_000;
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

/// Whether `key` is a `tasks/result` request.
fn is_result(h: &Harness, key: SendKey) -> bool {
    (h.sent.iter()).any(|s| s.key == key && s.method == "tasks/result")
}

/// The probe finds HTTP/1.1 on a server that consumes a task when it answers its result, behind
/// a proxy that keeps answering what the page closed: no held result is closed, none is lost, no
/// running task holds a new one. Once the held tasks ended, the tasks the probe did not hold poll
/// on the grid their creation set.
#[test]
fn a_link_found_http1_closes_no_held_result_and_polls_the_rest() {
    for seed in 0..6 {
        let mut h = assumed_http1(true, 700 + seed);
        h.engine.cfg.cadence = Cadence::Latency;
        h.record = true;
        h.pool = Some(6);
        h.drain_ms = 0;
        h.server.faults.consume_results = true;
        h.server.faults.deaf_to_aborts = true;
        // The probe holds the oldest tasks' results: here they end first.
        let short = 3_000 + 100 * seed;
        let mut subs = create(&mut h, 6, short);
        h.run_for(200);
        subs.extend(create(&mut h, 6, 12_000));
        let learnt = h.run_until_done(10_000, |h| !h.engine.cfg.link_unseen);
        assert!(learnt < T0 + short, "seed {seed}: decided");
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert_eq!(
            h.engine.take_learnt_link(),
            Some(Link::Http1),
            "seed {seed}"
        );
        assert_eq!(h.engine.take_learnt_link(), None, "seed {seed}: told once");
        // Each task, when it ends (a consumed task leaves the server), and whether its result
        // was held when HTTP/1.1 was found (the browser's queue may still hold it).
        let tasks: Vec<(String, Millis, Millis, bool)> = (subs.iter().enumerate())
            .filter_map(|(i, s)| {
                let id = h.task_of(*s)?;
                let e = h.server.tasks.get(&id)?;
                let ms = if i < 6 { short } else { 12_000 };
                let held = (h.engine.tasks.get(&id)).is_some_and(|e| e.result.req().is_some());
                Some((id, e.created, e.created + ms, held))
            })
            .collect();
        assert_eq!(tasks.len(), subs.len(), "seed {seed}");
        let held = tasks.iter().filter(|t| t.3).count();
        assert!((1..=6).contains(&held), "seed {seed}: {held} held");
        h.run_for(30_000);
        let closed: Vec<_> = (h.aborted.iter())
            .filter(|(_, k)| is_result(&h, *k))
            .collect();
        assert!(closed.is_empty(), "seed {seed}: closed {closed:?}");
        let freed = (tasks.iter().filter(|t| t.3))
            .map(|t| t.2)
            .max()
            .unwrap_or(0);
        let mut on_grid = 0;
        for (id, created, end, held) in &tasks {
            let mine = |s: &&Sent| s.task_id.as_deref() == Some(id.as_str());
            let results = (h.sent.iter().filter(mine)).filter(|s| s.method == "tasks/result");
            let early: Vec<String> = results.filter(|s| s.at < *end).map(Sent::line).collect();
            assert!(
                *held || early.is_empty(),
                "seed {seed}: held on HTTP/1.1: {early:?}"
            );
            let gets = (h.sent.iter().filter(mine)).filter(|s| s.method == "tasks/get");
            for at in gets
                .map(|s| s.at)
                .filter(|at| !*held && *at > freed + 1_000)
            {
                let off = (at - created - with_jitter_bound(1_000)) % 1_000;
                assert!(off <= 200, "seed {seed} {id}: a poll {off} ms off its grid");
                on_grid += 1;
            }
        }
        assert!(
            on_grid >= 6 * 6,
            "seed {seed}: {on_grid} polls on their grid"
        );
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed} {sub:?}: lost");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}
