//! The held-result budget of a page on HTTP/1.1 (six connections, a budget of three): two
//! running tasks hold their results from their first interval on, the third slot stays for a task
//! waiting for input, the tasks waiting for a slot keep the server's interval, a caller's request
//! finds a connection, a server that consumes results loses none, and a session whose pushes
//! bring the ends holds results only for input.

use crate::json::json;

use crate::engine::api::{Config, DialectChoice, End, Input, Link, Millis, SubId, TransportError};
use crate::engine::tests::push::{completed, completed_at, legacy_on, results_of};
use crate::protocol::model::{Dialect, Outcome};
use crate::testkit::Harness;

/// The server's interval in these tests.
const IV: Millis = 1_000;
/// What a poll may lag behind its grid point here: the grid's hundredth, the ways there and back.
const MARGIN: Millis = 120;

/// A legacy session in a page on HTTP/1.1: the browser's six connections modelled.
fn page(seed: u64) -> Harness {
    let mut h = legacy_on(Link::Http1, seed);
    h.pool = Some(6);
    h.latency = (5, 30);
    h
}

/// Three tasks of a minute, created together `ahead` ms before what comes next.
fn three_long(h: &mut Harness, ahead: Millis) -> Vec<String> {
    let subs: Vec<SubId> = (0..3)
        .map(|_| h.call("job", json!({ "ms": 60_000, "interval": IV })))
        .collect();
    h.run_for(ahead);
    subs.iter().filter_map(|s| h.task_of(*s)).collect()
}

/// How many of `tasks` hold their results.
fn holding(h: &Harness, tasks: &[String]) -> usize {
    (tasks.iter())
        .filter(|t| !h.results_held(t).is_empty())
        .count()
}

/// When the first answer to an input request reached the server (the harness answers each at
/// once).
fn answered_at(h: &Harness) -> Option<Millis> {
    (h.sent.iter())
        .find(|s| s.method == "(response)")
        .map(|s| s.at)
}

/// A short task behind three long ones (two hold their results, every slot a running task may
/// take is taken): it waits for a slot, and meanwhile it is polled at the server's interval from
/// its first one on, so its end is seen within an interval, not at the safety poll's 22 s (nor
/// an interval late: its first poll is not skipped for the hold it could not get). Made 300 ms
/// after them, its first poll's time was to be its hold's (the session's pushes were not known
/// yet); made 1.5 s after, it was to hold from the start.
#[test]
fn a_task_waiting_for_a_slot_is_polled_at_the_server_s_interval() {
    let cases = [800, 1_500, 3_000]
        .into_iter()
        .flat_map(|ms| [(ms, 300), (ms, 1_500)]);
    for (seed, (short, ahead)) in (0..).zip(cases) {
        let mut h = page(60 + seed);
        let long = three_long(&mut h, ahead);
        let sub = h.call("job", json!({ "ms": short, "interval": IV }));
        h.run_for(8_000);
        assert!(holding(&h, &long) >= 2, "{short} ms, {ahead} ms after");
        let id = h.task_of(sub).unwrap_or_default();
        let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
        let gets = h.get_times(&id);
        let first = gets.first().map(|at| at - created);
        assert!(
            first.is_some_and(|f| f <= IV + MARGIN),
            "{short} ms, {ahead} ms after: first poll {first:?} ms after the creation"
        );
        assert!(
            gets.windows(2).all(|w| w[1] - w[0] <= IV + MARGIN),
            "{short} ms, {ahead} ms after: polls {gets:?}"
        );
        let seen = completed_at(&h, &id).map(|at| at - (created + short));
        assert!(
            seen.is_some_and(|s| s <= IV + MARGIN),
            "{short} ms, {ahead} ms after: end seen {seen:?} ms after it"
        );
        assert!(completed(&h, sub), "{short} ms, {ahead} ms after");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A task that comes to wait for input behind long tasks holding their results: the slot kept
/// for input is its at once (its input request only comes on a held result), not when a long
/// task ends.
#[test]
fn a_task_waiting_for_input_behind_long_held_results_gets_the_kept_slot() {
    for seed in 0..4 {
        let mut h = page(70 + seed);
        let long = three_long(&mut h, IV + 500);
        assert!(holding(&h, &long) >= 2, "seed {seed}");
        let sub = h.call(
            "job",
            json!({ "ms": 5_000, "input": true, "input_after": 1_500, "interval": IV }),
        );
        h.run_for(10_000);
        let id = h.task_of(sub).unwrap_or_default();
        let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
        let answered = answered_at(&h).map(|at| at - created);
        // Asked at 1.5 s: seen by the next poll (on the interval's grid), then its held result
        // brings the request.
        assert!(
            answered.is_some_and(|a| a <= 1_500 + IV + 2 * MARGIN),
            "seed {seed}: input answered {answered:?} ms after the creation"
        );
        assert_eq!(h.inputs_seen(), 1, "seed {seed}");
        assert!(completed(&h, sub), "seed {seed}");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A page that learns its link (the server on another origin): on a server that keeps results,
/// a batch starts the probe, which holds as many results as the six connections allow; the
/// browser's queue proves HTTP/1.1. From then on, at most the budget's three results are held,
/// so a new call, an input answer and a cancel never wait in the browser behind held results
/// and polls longer than one poll's answer takes.
#[test]
fn a_caller_s_requests_never_wait_behind_held_results_and_polls() {
    for seed in 0..4 {
        let cfg = Config {
            dialect: DialectChoice::Legacy,
            link: Link::Http1,
            link_unseen: true,
            request_timeout_ms: 5_000,
            ..Config::default()
        };
        let mut h = Harness::with_config(cfg, Dialect::Legacy, 80 + seed);
        h.pool = Some(6);
        h.latency = (5, 30);
        h.call("job", json!({ "ms": 200 }));
        h.run_for(1_000);
        let long: Vec<SubId> = (0..12)
            .map(|_| h.call("job", json!({ "ms": 60_000, "interval": IV })))
            .collect();
        let learnt = h.run_until_done(10_000, |h| !h.engine.cfg.link_unseen);
        assert_eq!(h.engine.cfg.link, Link::Http1, "seed {seed}: at {learnt}");
        h.run_for(1_000);
        let ids: Vec<String> = long.iter().filter_map(|s| h.task_of(*s)).collect();
        let held = |h: &Harness| holding(h, &ids);
        assert!(held(&h) <= 3, "seed {seed}: {} held", held(&h));
        let after = h.now;
        let asking = h.call(
            "job",
            json!({ "ms": 4_000, "input": true, "input_after": 1_000, "interval": IV }),
        );
        h.run_for(300);
        let plain = h.call("job", json!({ "ms": 2_000, "interval": IV }));
        h.run_for(700);
        let cancelled = ids.first().cloned().unwrap_or_default();
        h.engine.cancel(h.now, &cancelled);
        h.pump();
        for _ in 0..10 {
            h.run_for(1_000);
            assert!(held(&h) <= 3, "seed {seed}: {} held", held(&h));
        }
        let callers: Vec<_> = (h.sent.iter())
            .filter(|s| s.at >= after)
            .filter(|s| ["tools/call", "tasks/cancel", "(response)"].contains(&s.method.as_str()))
            .collect();
        assert!(
            callers.len() >= 4,
            "seed {seed}: {} caller requests",
            callers.len()
        );
        for s in callers {
            let waited = (h.waited.iter())
                .find(|(k, _)| *k == s.key)
                .map_or(0, |w| w.1);
            assert!(
                waited <= h.latency.1,
                "seed {seed}: {} waited {waited} ms",
                s.line()
            );
        }
        assert_eq!(h.inputs_seen(), 1, "seed {seed}");
        assert!(completed(&h, asking) && completed(&h, plain), "seed {seed}");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A server that consumes a task as it answers its result (rmcp 2): the held results of a page
/// are never closed while their tasks run, each is asked once, and every outcome arrives. A held
/// result the link drops (after the refusal window) is held again: the server, which never
/// answered the dropped one, answers the new one with the outcome.
#[test]
fn a_consuming_server_loses_no_held_result_even_when_the_link_drops_one() {
    for seed in 0..4 {
        let mut h = page(90 + seed);
        h.server.faults.consume_results = true;
        let subs: Vec<SubId> = (0..4)
            .map(|_| h.call("job", json!({ "ms": 15_000, "interval": IV })))
            .collect();
        h.run_for(8_000);
        let ids: Vec<String> = subs.iter().filter_map(|s| h.task_of(*s)).collect();
        let dropped: Vec<String> = (ids.iter())
            .filter(|t| !h.results_held(t).is_empty())
            .cloned()
            .collect();
        assert!(!dropped.is_empty(), "seed {seed}: held");
        for t in &dropped {
            for key in h.results_held(t) {
                h.server.abort(key);
                let error = TransportError::network("network error");
                h.input(Input::Failed { key, error });
            }
        }
        h.run_for(30_000);
        for (sub, id) in subs.iter().zip(&ids) {
            let asked = results_of(&h, id).len();
            let again = usize::from(dropped.contains(id));
            assert_eq!(
                asked,
                1 + again,
                "seed {seed} {id}: asked once (again once dropped)"
            );
            assert!(
                matches!(
                    h.done(*sub),
                    End::Finished {
                        outcome: Some(Outcome::Result { .. }),
                        ..
                    }
                ),
                "seed {seed} {id}: {:?}",
                h.done(*sub)
            );
        }
        assert!(h.aborted.is_empty(), "seed {seed}: closed {:?}", h.aborted);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// A server that pushes every status but `input_required` (its input requests come on a held
/// result): once a first task's end came pushed, on a page's HTTP/1.1 link the pushed ends are
/// enough, no running task holds its result (its connection is the one a pushed end's
/// `tasks/result` needs), the polls keep their cadence, and a task that comes to wait for input
/// still holds its result for the request.
#[test]
fn a_page_whose_server_pushes_the_ends_holds_results_only_for_input() {
    for seed in 0..4 {
        let mut h = page(100 + seed);
        h.server.push = true;
        h.server.unpushed = Some("input_required");
        let first = h.call("job", json!({ "ms": 500, "interval": IV }));
        h.run_for(2_000);
        assert!(completed(&h, first), "seed {seed}");
        let plain: Vec<SubId> = (0..4)
            .map(|_| h.call("job", json!({ "ms": 6_000, "interval": IV })))
            .collect();
        let asking = h.call(
            "job",
            json!({ "ms": 6_000, "input": true, "input_after": 2_000, "interval": IV }),
        );
        h.run_for(20_000);
        for sub in &plain {
            let id = h.task_of(*sub).unwrap_or_default();
            let end = completed_at(&h, &id).unwrap_or(0);
            let held: Vec<Millis> = results_of(&h, &id)
                .into_iter()
                .filter(|at| *at < end)
                .collect();
            assert!(held.is_empty(), "seed {seed} {id}: held at {held:?}");
            assert!(completed(&h, *sub), "seed {seed} {id}");
        }
        assert_eq!(h.inputs_seen(), 1, "seed {seed}");
        assert!(completed(&h, asking), "seed {seed}");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// While the server's `Retry-After` holds the session (a poll was refused), a slot frees: a task
/// waiting in line for it has its result sent when the hold passes, and its poll, due meanwhile,
/// waited too. The poll must not follow its result at once (a server still refusing would see
/// the task's poll right after refusing its result): a running task whose result is on its way
/// is polled an interval after it went out at the soonest.
#[test]
fn a_poll_that_waited_beside_its_task_s_result_keeps_an_interval_after_it() {
    let mut paired = Vec::new();
    for seed in 0..24 {
        let mut h = page(90 + seed);
        h.request_delay = (0, 150);
        h.server.faults.throttled_gets = 1 + (seed % 3) as u32;
        h.server.faults.throttle_ms = 2_000;
        // Two hold (the first ends soon, freeing its slot), three wait in line and are polled.
        let subs: Vec<SubId> = [1_200, 60_000, 60_000, 60_000, 60_000]
            .into_iter()
            .map(|ms| h.call("job", json!({ "ms": ms, "interval": IV })))
            .collect();
        h.run_for(10_000);
        for sub in &subs[1..] {
            let id = h.task_of(*sub).unwrap_or_default();
            let gets = h.get_times(&id);
            for r in results_of(&h, &id) {
                if let Some(g) = gets.iter().find(|g| **g > r && **g <= r + 300) {
                    paired.push(format!("seed {seed} {id}: result at {r}, poll at {g}"));
                }
            }
        }
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        assert!(completed(&h, subs[0]), "seed {seed}");
    }
    assert!(
        paired.is_empty(),
        "a poll right after its task's result: {paired:#?}"
    );
}
