//! A pushed end while a `tasks/result` is held: a fresh request races the held one, the first
//! outcome wins, and what the server showed is remembered (see `race.rs`).

use crate::json::json;

use crate::engine::api::{Link, Millis, SendKey, SubId};
use crate::engine::session::quirks::Quirk;
use crate::engine::tests::push::{completed, legacy_on, results_of};
use crate::engine::tests::pushed::shows_input_pushes;
use crate::testkit::Harness;

/// Four tasks at once on a pushing server whose held results take `lag` to notice an end; each
/// task's subscription, id and end.
fn run(h: &mut Harness, lag: Millis) -> Vec<(SubId, String, Millis)> {
    let tasks = start(h, lag);
    h.run_for(30_000);
    tasks
}

/// [`run`]'s first half second: the tasks made, none ended.
fn start(h: &mut Harness, lag: Millis) -> Vec<(SubId, String, Millis)> {
    h.server.push = true;
    h.server.faults.held_result_lag = lag;
    let subs: Vec<(SubId, Millis)> = (0..4)
        .map(|i| {
            (
                h.call("job", json!({ "ms": 3_000 + 500 * i })),
                3_000 + 500 * i,
            )
        })
        .collect();
    h.run_for(500);
    let tasks = (subs.into_iter())
        .map(|(sub, ms)| {
            let id = h.task_of(sub).unwrap_or_default();
            let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
            (sub, id, created + ms)
        })
        .collect();
    tasks
}

/// The `tasks/result` streams of `task_id`, by time.
fn result_keys(h: &Harness, task_id: &str) -> Vec<SendKey> {
    (h.sent.iter())
        .filter(|s| s.method == "tasks/result" && s.task_id.as_deref() == Some(task_id))
        .map(|s| s.key)
        .collect()
}

/// When the engine closed stream `key`.
fn aborted_at(h: &Harness, key: SendKey) -> Option<Millis> {
    h.aborted.iter().find(|(_, k)| *k == key).map(|(at, _)| *at)
}

#[test]
fn a_fresh_result_wins_over_a_lagging_held_one_and_the_lag_is_learned() {
    let mut h = legacy_on(Link::Node, 46);
    for (i, (sub, id, ends)) in run(&mut h, 900).into_iter().enumerate() {
        assert!(
            completed(&h, sub),
            "task {i}: exactly one Done, with the outcome"
        );
        let results = results_of(&h, &id);
        assert_eq!(results.len(), 2, "task {i}: the held one, then one more");
        // Asked again on the push (the first task races; later ones close and ask).
        assert!(
            results[1] <= ends + 40,
            "task {i}: {results:?}, ends {ends}"
        );
        // The held stream closes once the fresh one brought the outcome, long before its lag.
        let held = result_keys(&h, &id).first().copied();
        let closed = held.and_then(|k| aborted_at(&h, k));
        assert!(
            closed.is_some_and(|at| at <= ends + 100),
            "task {i}: {closed:?}"
        );
    }
    let quirks = h.engine.session.quirks;
    assert!(quirks.has(Quirk::HeldResultLags) && !quirks.has(Quirk::HeldResultPrompt));
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn once_held_results_lag_behind_pushes_running_tasks_close_theirs() {
    let mut h = legacy_on(Link::Node, 49);
    let tasks = start(&mut h, 900);
    // The tasks hold their results; then the server shows it pushes every kind of status.
    h.run_for(1_500);
    shows_input_pushes(&mut h);
    h.run_for(30_000);
    let first_end = tasks.first().map_or(0, |t| t.2);
    for (i, (sub, id, ends)) in tasks.iter().enumerate().skip(1) {
        assert!(completed(&h, *sub), "task {i}");
        let keys = result_keys(&h, id);
        assert_eq!(
            keys.len(),
            2,
            "task {i}: the held one, then one after its push"
        );
        // Closed when the first task's race taught the lag, long before this task ended.
        let closed = aborted_at(&h, keys[0]);
        assert!(
            closed.is_some_and(|at| at <= first_end + 100 && at + 400 < *ends),
            "task {i}: closed {closed:?}, first end {first_end}, ends {ends}"
        );
        let results = results_of(&h, id);
        assert!(
            results[1] <= ends + 40,
            "task {i}: {results:?}, ends {ends}"
        );
    }
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_prompt_held_result_wins_and_later_ends_wait_for_it_unless_it_lags() {
    let mut h = legacy_on(Link::Node, 47);
    // Answers arrive within 5–6 ms: the held one comes before a fresh one's round trip.
    h.latency = (5, 6);
    let tasks = run(&mut h, 0);
    for (i, (sub, id, _)) in tasks.iter().enumerate() {
        assert!(completed(&h, *sub), "task {i}");
        let keys = result_keys(&h, id);
        // The first task races: its fresh request is closed; later ends wait for the held one.
        assert_eq!(keys.len(), if i == 0 { 2 } else { 1 }, "task {i}");
        let fresh = keys.get(1).copied();
        assert!(
            fresh.is_none_or(|k| aborted_at(&h, k).is_some()),
            "task {i}"
        );
        assert!(
            aborted_at(&h, keys[0]).is_none(),
            "task {i}: the held one answered"
        );
    }
    let quirks = h.engine.session.quirks;
    assert!(quirks.has(Quirk::HeldResultPrompt) && !quirks.has(Quirk::HeldResultLags));
    // The server now lags (a new session: its pushes are not known yet, its tasks hold their
    // results): the held stream's grace passes, the race starts, the lag is learned.
    h.server.kill_session();
    let later = run(&mut h, 900);
    let (sub, id, ends) = &later[0];
    assert!(completed(&h, *sub));
    let results = results_of(&h, id);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        (ends + 100..=ends + 140).contains(&results[1]),
        "{results:?}, ends {ends}"
    );
    assert!(h.engine.session.quirks.has(Quirk::HeldResultLags));
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn a_consumed_tasks_second_result_error_waits_for_the_held_outcome() {
    // The server forgets a task once its held result is answered, and that answer lags: the
    // fresh request's "Task not found" comes first.
    let mut h = legacy_on(Link::Node, 48);
    h.server.faults.consume_results = true;
    for (i, (sub, id, ends)) in run(&mut h, 300).into_iter().enumerate() {
        assert!(completed(&h, sub), "task {i}: the held outcome, no failure");
        let keys = result_keys(&h, &id);
        assert_eq!(keys.len(), 2, "task {i}");
        assert!(
            aborted_at(&h, keys[0]).is_none(),
            "task {i}: the held one answered"
        );
        let results = results_of(&h, &id);
        assert!(
            results[1] <= ends + 40,
            "task {i}: {results:?}, ends {ends}"
        );
    }
    assert!(!h.engine.session.quirks.has(Quirk::HeldResultLags));
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}
