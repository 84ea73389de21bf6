//! A page whose server is on another origin without `Timing-Allow-Origin` cannot read the HTTP
//! version: the link starts as assumed HTTP/1.1 (two running tasks hold their results, the others
//! are polled); once more tasks are tracked than the browser has connections, on a server seen to
//! keep a task's result after answering it, six results are held: a seventh request answered
//! while they stay open switches it to HTTP/2 (held results instead of polls), a request stuck
//! behind them to HTTP/1.1 for good (the held results beyond two close, their tasks polled on
//! their creation's grid). A server that consumes results is never probed.

use crate::json::json;

use crate::engine::api::{Cadence, Config, DialectChoice, Link, Millis, SendKey, SubId};
use crate::engine::scheduler::cadence::with_grid_margin;
use crate::engine::tests::push::{completed, completed_at};
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

/// A first task whose result is fetched, then (a second later) 21 tasks of `ms` created at
/// once; run until they all ended.
fn batch(h: &mut Harness, ms: Millis) -> Vec<SubId> {
    let mut subs = create(h, 1, 200);
    h.run_for(1_000);
    subs.extend(create(h, 21, ms));
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

/// The batch made as soon as the first task's result came, before any task's first interval
/// passed (the session not yet known silent): the batch's first holds, due one interval after its
/// creation, find the session silent and start the probe.
#[test]
fn a_batch_made_before_any_interval_passed_still_starts_the_probe() {
    for seed in 0..6 {
        let mut h = assumed_http1(true, 320 + seed);
        let first = create(&mut h, 1, 100);
        h.run_until_done(2_000, |h| !h.dones(first[0]).is_empty());
        h.run_for(50);
        let subs = create(&mut h, 12, 4_000);
        h.run_for(24_000);
        assert_eq!(h.engine.cfg.link, Link::Http2, "seed {seed}");
        assert!(
            h.max_results_open > 6,
            "seed {seed}: {}",
            h.max_results_open
        );
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed} {sub:?}");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
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
        // The probe's cost: the connections of the held results it closes are busy until then.
        // A task whose result was not held by then is polled.
        let bound = 1_000 + ms + 1_000;
        let mut polled = 0;
        for sub in &subs {
            let id = h.task_of(*sub).unwrap_or_default();
            let held = (h.sent.iter())
                .any(|s| s.method == "tasks/result" && s.task_id == Some(id.clone()));
            let first = h.get_times(&id).first().map(|t| t - T0);
            polled += usize::from(first.is_some());
            assert!(
                held || first.is_some_and(|t| t <= bound),
                "seed {seed}: {id}, not held, is polled by {bound} ms: {first:?}"
            );
        }
        assert!(polled >= 10, "seed {seed}: {polled} tasks polled");
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
fn fewer_tasks_than_connections_hold_the_http1_budget_and_are_polled() {
    for seed in 0..4 {
        for pool in [None, Some(6)] {
            let mut h = assumed_http1(true, 600 + seed);
            h.pool = pool;
            let subs = create(&mut h, 5, 8_000);
            h.run_for(20_000);
            // The HTTP/1.1 budget until HTTP/2 is proven: two running tasks hold their results.
            assert_eq!(
                results_before(&h, T0 + 8_000),
                2,
                "seed {seed} pool {pool:?}"
            );
            assert!(
                h.engine.cfg.link_unseen,
                "seed {seed}: nothing to learn from"
            );
            let mut polled = 0;
            for sub in subs {
                let id = h.task_of(sub).unwrap_or_default();
                polled += usize::from(h.get_times(&id).len() >= 7);
                assert!(completed(&h, sub), "seed {seed} {sub:?}");
            }
            assert_eq!(polled, 3, "seed {seed}: the tasks not held are polled");
            assert!(h.violations.is_empty(), "{:?}", h.violations);
        }
    }
}

/// Whether `key` is a `tasks/result` request.
fn is_result(h: &Harness, key: SendKey) -> bool {
    (h.sent.iter()).any(|s| s.key == key && s.method == "tasks/result")
}

/// `tasks/result` requests of `task_id`.
fn results_of(h: &Harness, task_id: &str) -> usize {
    (h.sent.iter())
        .filter(|s| s.method == "tasks/result" && s.task_id.as_deref() == Some(task_id))
        .count()
}

/// A legacy session on a real six-connection pool, behind a proxy that keeps answering what the
/// page closed; a first task's result fetched, then five tasks of `short` and six of 12 s, the
/// short ones first (the twelfth task tracked starts the probe).
fn first_then_eleven(seed: u64, short: Millis, consume: bool) -> (Harness, String, Vec<SubId>) {
    let mut h = assumed_http1(true, seed);
    h.engine.cfg.cadence = Cadence::Latency;
    h.record = true;
    h.pool = Some(6);
    h.drain_ms = 0;
    h.server.faults.consume_results = consume;
    h.server.faults.deaf_to_aborts = true;
    let first = create(&mut h, 1, 200);
    h.run_for(1_000);
    let first = h.task_of(first[0]).unwrap_or_default();
    let mut subs = create(&mut h, 5, short);
    h.run_for(200);
    subs.extend(create(&mut h, 6, 12_000));
    (h, first, subs)
}

/// A server that consumes a task when it answers its result: asked again, the first result
/// fetched is refused, so the probe never starts; the link stays assumed HTTP/1.1 (nothing
/// learnt), two running tasks at most hold their results at once, each task's result is asked
/// once, and nothing is closed or lost.
#[test]
fn a_server_that_consumes_results_is_never_probed() {
    for seed in 0..6 {
        let short = 3_000 + 100 * seed;
        let (mut h, first, subs) = first_then_eleven(800 + seed, short, true);
        h.run_for(1_000);
        // Each task and when it ends (a consumed task leaves the server).
        let ends: Vec<(String, Millis)> = (subs.iter().enumerate())
            .filter_map(|(i, s)| {
                let id = h.task_of(*s)?;
                let ms = if i < 5 { short } else { 12_000 };
                Some((id.clone(), h.server.tasks.get(&id)?.created + ms))
            })
            .collect();
        assert_eq!(ends.len(), subs.len(), "seed {seed}");
        h.run_for(40_000);
        assert_eq!(results_of(&h, &first), 2, "seed {seed}: asked again once");
        assert!(h.engine.cfg.link_unseen, "seed {seed}: never probed");
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert_eq!(h.engine.take_learnt_link(), None, "seed {seed}");
        // When each held result went out and its task ended.
        let mut holds: Vec<(Millis, Millis)> = Vec::new();
        for (id, end) in &ends {
            let mine = |s: &&Sent| s.task_id.as_deref() == Some(id.as_str());
            let results: Vec<Millis> = (h.sent.iter().filter(mine))
                .filter(|s| s.method == "tasks/result")
                .map(|s| s.at)
                .collect();
            assert_eq!(results.len(), 1, "seed {seed} {id}: asked once");
            holds.extend(
                results
                    .iter()
                    .filter(|at| **at < *end)
                    .map(|at| (*at, *end)),
            );
        }
        assert!(!holds.is_empty(), "seed {seed}: results held");
        for (from, _) in &holds {
            let open = (holds.iter())
                .filter(|(f, to)| f <= from && from < to)
                .count();
            assert!(open <= 2, "seed {seed}: {open} held at {from}: {holds:?}");
        }
        let closed: Vec<_> = (h.aborted.iter())
            .filter(|(_, k)| is_result(&h, *k))
            .collect();
        assert!(closed.is_empty(), "seed {seed}: closed {closed:?}");
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed} {sub:?}: lost");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A server that keeps a task's result after answering it: the probe runs and finds HTTP/1.1;
/// the held results beyond two close (the server still answers them: it keeps the results, so
/// nothing is lost), and their tasks poll on the grid their creation set.
#[test]
fn a_link_found_http1_closes_held_results_beyond_two_on_a_server_that_keeps_them() {
    for seed in 0..6 {
        let short = 3_000 + 100 * seed;
        let (mut h, first, subs) = first_then_eleven(700 + seed, short, false);
        let learnt = h.run_until_done(10_000, |h| !h.engine.cfg.link_unseen);
        assert!(learnt < T0 + 1_000 + short, "seed {seed}: decided");
        assert_eq!(results_of(&h, &first), 2, "seed {seed}: asked again once");
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}");
        assert_eq!(
            h.engine.take_learnt_link(),
            Some(Link::Http1),
            "seed {seed}"
        );
        assert_eq!(h.engine.take_learnt_link(), None, "seed {seed}: told once");
        let tasks: Vec<(String, Millis, bool)> = (subs.iter())
            .filter_map(|s| {
                let id = h.task_of(*s)?;
                let e = h.server.tasks.get(&id)?;
                let held = (h.engine.tasks.get(&id)).is_some_and(|e| e.result.req().is_some());
                Some((id, e.created, held))
            })
            .collect();
        assert_eq!(tasks.len(), subs.len(), "seed {seed}");
        let held = tasks.iter().filter(|t| t.2).count();
        assert_eq!(held, 2, "seed {seed}: kept on HTTP/1.1");
        let closed = (h.aborted.iter())
            .filter(|(_, k)| is_result(&h, *k))
            .count();
        assert!((1..=4).contains(&closed), "seed {seed}: {closed} closed");
        let decided = learnt - T0;
        h.run_for(30_000);
        let mut on_grid = 0;
        for (id, created, held) in &tasks {
            let mine = |s: &&Sent| s.task_id.as_deref() == Some(id.as_str());
            let gets = (h.sent.iter().filter(mine)).filter(|s| s.method == "tasks/get");
            for at in gets
                .map(|s| s.at)
                .filter(|at| !*held && *at > T0 + decided + 1_000)
            {
                let off = (at - created - with_grid_margin(1_000)) % 1_000;
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

/// A batch of twenty tasks of 2–4 s on a page that learns its link (six connections, the
/// listening stream in one): the probe's witnesses end one after another, so it decides nothing
/// for the batch's life. Once one ended, the held results leave a connection free: the status
/// requests made after it find one (they waited behind re-held results for the next task's end,
/// an end seen half an interval later), and every end is seen within an interval.
#[test]
fn a_probe_whose_witnesses_end_leaves_their_connections_to_the_polls() {
    const IV: Millis = 1_000;
    let mut undecided = 0;
    for seed in 0..6 {
        let mut h = assumed_http1(true, 110 + seed);
        h.pool = Some(6);
        h.latency = (5, 30);
        let lengths: Vec<Millis> = (0..20)
            .map(|i| 2_000 + (i * 7_919 + seed * 131) % 2_000)
            .collect();
        let subs: Vec<SubId> = (lengths.iter())
            .map(|ms| h.call("job", json!({ "ms": ms, "interval": IV })))
            .collect();
        h.run_for(300);
        let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
        let held = |h: &Harness| ids.iter().map(|t| h.results_held(t).len()).sum::<usize>();
        // When the probe's first witness ended: fewer results held than the most since it started.
        let (mut most, mut ended) = (0, None);
        for _ in 0..1_200 {
            h.run_for(10);
            let now = held(&h);
            if h.engine.probing() && now < most {
                ended.get_or_insert(h.now);
            }
            most = if h.engine.probing() { most.max(now) } else { 0 };
        }
        // The polls made after it: how long the longest waited in the browser.
        let waited = (h.sent.iter())
            .filter(|s| s.method == "tasks/get")
            .map(|s| (s, h.waited.iter().find(|w| w.0 == s.key).map_or(0, |w| w.1)))
            .filter(|(s, waited)| ended.is_some_and(|at| s.at - waited > at))
            .map(|(_, waited)| waited)
            .max();
        undecided += usize::from(ended.is_some());
        assert!(
            waited.is_none_or(|w| w <= 250),
            "seed {seed}: a poll waited {waited:?} ms"
        );
        for ((sub, id), ms) in subs.iter().zip(&ids).zip(&lengths) {
            let created = h.server.tasks.get(id).map_or(0, |t| t.created);
            let seen = completed_at(&h, id).map(|at| at - (created + ms));
            assert!(
                seen.is_some_and(|s| s <= IV + 120),
                "seed {seed} {id}: seen {seen:?} ms after its end"
            );
            assert!(completed(&h, *sub), "seed {seed} {id}");
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
    assert!(undecided >= 3, "{undecided} batches saw a witness end");
}
