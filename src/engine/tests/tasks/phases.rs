//! A task's phase seen from outside: what a caller gets when a task ends during its last poll,
//! when an imported task (confirmed or not) is gone after its deadline, and what an imported
//! ended task exports.

use crate::json::{json, Value};

use crate::engine::api::{Config, End, Event, Input, Millis, SendKey, SubId, TransportError};
use crate::engine::snapshot::TaskSnapshot;
use crate::engine::Engine;
use crate::protocol::model::{Outcome, Task, TaskStatus};
use crate::testkit::{answer, drain, feed, modern_engine, T0};

const DEADLINE: Millis = T0 + 5_000;

/// Imports a working task `t1` (its deadline at [`DEADLINE`], polled every second) and watches it.
fn imported(known: bool, seed: u64) -> (Engine, SubId) {
    let mut e = modern_engine(Config::default(), seed);
    let mut task = Task::new("t1", TaskStatus::Working);
    task.poll_interval_ms = Some(1_000);
    let snap = TaskSnapshot {
        task,
        known,
        last_polled_at: Some(T0),
        status_since: None,
        next_poll_at: None,
        deadline: Some(DEADLINE),
        input_keys: Vec::new(),
    };
    assert!(e.import_task(T0, snap));
    let sub = e.watch(T0, "t1");
    (e, sub)
}

/// Answers `working` to every poll before the deadline; the last poll after it, and when it went.
fn last_poll(e: &mut Engine, sub: SubId) -> (SendKey, Value, Millis) {
    let mut t = T0;
    while t <= T0 + 20_000 {
        let (sent, events) = drain(e, t);
        let ended = events
            .iter()
            .any(|ev| matches!(ev, Event::Done { sub: s, .. } if *s == sub));
        assert!(!ended, "not expired before the last poll: {events:?}");
        for (key, body) in sent
            .into_iter()
            .filter(|(_, b)| b["method"] == json!("tasks/get"))
        {
            if t >= DEADLINE {
                return (key, body, t);
            }
            let working = json!({ "taskId": "t1", "status": "working", "pollIntervalMs": 1_000 });
            answer(e, t, key, &body["id"], working);
        }
        t += 250;
    }
    panic!("no last poll after the deadline");
}

/// Runs the engine's clock from `now` to `until`: every `tasks/get` sent, every `Done` for `sub`.
fn run(
    e: &mut Engine,
    now: Millis,
    until: Millis,
    sub: SubId,
) -> (Vec<(SendKey, Value)>, Vec<End>) {
    let (mut gets, mut ends) = (Vec::new(), Vec::new());
    let mut t = now;
    while t <= until {
        let (sent, events) = drain(e, t);
        gets.extend(
            sent.into_iter()
                .filter(|(_, b)| b["method"] == json!("tasks/get")),
        );
        ends.extend(events.into_iter().filter_map(|ev| match ev {
            Event::Done { sub: s, end, .. } if s == sub => Some(end),
            _ => None,
        }));
        t += 250;
    }
    (gets, ends)
}

/// The task ends (a push without its outcome) while its last poll after the deadline is out, and
/// that poll fails: the final status request is made again and brings the outcome.
#[test]
fn a_task_ending_during_its_last_poll_retries_a_failed_final_status_request() {
    let (mut e, sub) = imported(true, 31);
    let (key, _, at) = last_poll(&mut e, sub);
    let push = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": { "taskId": "t1", "status": "completed" } });
    feed(&mut e, at + 100, None, push);
    let failed = TransportError::network("connection reset");
    e.handle_input(at + 200, Input::Failed { key, error: failed });
    let (gets, ends) = run(&mut e, at + 200, at + 30_000, sub);
    assert!(ends.is_empty(), "the outcome is still to be had: {ends:?}");
    let Some((key, body)) = gets.first().cloned() else {
        panic!("the failed final status request was not made again");
    };
    let done = json!({ "taskId": "t1", "status": "completed", "result": { "content": [] } });
    answer(&mut e, at + 30_000, key, &body["id"], done);
    let (_, ends) = run(&mut e, at + 30_000, at + 31_000, sub);
    assert!(
        matches!(ends.as_slice(), [End::Finished { task: Some(t), outcome: Some(Outcome::Result { .. }) }]
            if t.status == TaskStatus::Completed),
        "{ends:?}"
    );
}

/// A confirmed import: its id unknown after the deadline means `expired`.
#[test]
fn a_confirmed_import_unknown_after_its_deadline_expires() {
    let (mut e, sub) = imported(true, 33);
    let (key, body, at) = last_poll(&mut e, sub);
    let gone = json!({ "jsonrpc": "2.0", "id": body["id"],
        "error": { "code": -32602, "message": "unknown task" } });
    feed(&mut e, at + 100, Some(key), gone);
    let (_, ends) = run(&mut e, at + 100, at + 1_000, sub);
    assert!(
        matches!(ends.as_slice(), [End::Finished { task: Some(t), .. }] if t.status == TaskStatus::Expired),
        "{ends:?}"
    );
}

/// Draft: a task the caller names by id (imported unconfirmed, then watched) whose deadline
/// passes before the server said anything about it. It stays unconfirmed through its last poll,
/// and that poll's "not found" means a wrong id, as it would before the deadline: not `expired`.
#[cfg(feature = "draft")]
#[test]
fn an_unconfirmed_task_unknown_after_its_deadline_is_a_wrong_id() {
    use crate::engine::api::{DialectChoice, ErrorKind};
    use crate::protocol::model::Dialect;
    use crate::testkit::Harness;

    let mut h = Harness::new(DialectChoice::Draft, Dialect::Draft, 35);
    let mut task = Task::new("t-named", TaskStatus::Working);
    task.poll_interval_ms = Some(1_000);
    let deadline = T0 + 500;
    let snap = TaskSnapshot {
        task,
        known: false,
        last_polled_at: Some(T0),
        status_since: None,
        next_poll_at: None,
        deadline: Some(deadline),
        input_keys: Vec::new(),
    };
    assert!(h.engine.import_task(T0, snap));
    let sub = h.watch("t-named");
    h.run_until(deadline + 100);
    assert!(
        h.get_times("t-named").is_empty(),
        "no poll before the deadline"
    );
    assert_eq!(
        h.engine.export_task("t-named").map(|s| s.known),
        Some(false),
        "past its deadline, still unconfirmed"
    );
    h.run_for(10_000);
    let polls = h.get_times("t-named");
    assert!(
        polls.first().is_some_and(|t| *t > deadline),
        "the last poll: {polls:?}"
    );
    assert!(!h.statuses(sub).contains(&TaskStatus::Expired));
    match h.done(sub) {
        End::Failed { error } => {
            assert_eq!((error.kind, error.code), (ErrorKind::Rpc, Some(-32602)))
        }
        other => panic!("{other:?}"),
    }
}

/// An imported task with a terminal status (only a server reports one) exports as confirmed.
#[test]
fn an_imported_ended_task_counts_as_confirmed() {
    let mut e = modern_engine(Config::default(), 34);
    let mut task = Task::new("t-done", TaskStatus::Completed);
    task.outcome = Some(Outcome::Result {
        result: json!({ "content": [] }),
    });
    let snap = TaskSnapshot {
        task,
        known: false,
        last_polled_at: None,
        status_since: None,
        next_poll_at: None,
        deadline: None,
        input_keys: Vec::new(),
    };
    assert!(e.import_task(T0, snap));
    assert_eq!(e.export_task("t-done").map(|s| s.known), Some(true));
    let sub = e.watch(T0, "t-done");
    let (gets, ends) = run(&mut e, T0, T0 + 2_000, sub);
    assert!(gets.is_empty(), "its outcome is known: {gets:?}");
    assert!(
        matches!(
            ends.as_slice(),
            [End::Finished {
                outcome: Some(_),
                ..
            }]
        ),
        "{ends:?}"
    );
}
