//! Completion at push speed on legacy servers: within the link's connection budget (all but one
//! slot, kept for a task waiting for input), each running task holds one blocking `tasks/result`
//! (its outcome arrives the moment the task ends) and polls drop to the safety interval; a tight
//! budget keeps results for input; servers that refuse to hold are remembered and polled.

use crate::json::{json, Value};

use crate::engine::api::{Config, DialectChoice, End, Event, Input, Link, Millis, SendKey, SubId};
use crate::engine::registry::results::TIGHT_BUDGET;
use crate::engine::scheduler::cadence::CAP_VISIBLE_MS;
use crate::engine::Engine;
use crate::protocol::model::{Dialect, Outcome, TaskStatus};
use crate::testkit::server::RunningResults;
use crate::testkit::{accept_initialize, answer, drain, feed, head, Harness, T0};

pub(in crate::engine::tests) fn legacy_on(link: Link, seed: u64) -> Harness {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link,
        request_timeout_ms: 5_000,
        ..Config::default()
    };
    Harness::with_config(cfg, Dialect::Legacy, seed)
}

pub(in crate::engine::tests) fn completed(h: &Harness, sub: SubId) -> bool {
    matches!(
        h.done(sub),
        End::Finished { task: Some(t), outcome: Some(Outcome::Result { .. }) }
            if t.status == TaskStatus::Completed
    )
}

/// When the engine saw `task_id` complete.
pub(in crate::engine::tests) fn completed_at(h: &Harness, task_id: &str) -> Option<Millis> {
    h.events.iter().find_map(|e| match e {
        Event::Transition {
            task_id: t,
            to: TaskStatus::Completed,
            at,
            ..
        } if t == task_id => Some(*at),
        _ => None,
    })
}

/// The `tasks/result` requests sent for `task_id`, by time.
pub(in crate::engine::tests) fn results_of(h: &Harness, task_id: &str) -> Vec<Millis> {
    h.sent
        .iter()
        .filter(|s| s.method == "tasks/result" && s.task_id.as_deref() == Some(task_id))
        .map(|s| s.at)
        .collect()
}

#[test]
fn each_link_holds_as_many_results_as_its_budget_allows() {
    // Every slot but one: it stays for a task waiting for input.
    for (link, tasks, held) in [
        (Link::Http1, 8, 2),
        (Link::Http2, 95, 89),
        (Link::Node, 260, 255),
        (Link::WebSocket, 300, 300),
    ] {
        let mut h = legacy_on(link, 41);
        h.record = false;
        let subs: Vec<SubId> = (0..tasks)
            .map(|_| h.call("job", json!({ "ms": 30_000 })))
            .collect();
        h.run_for(10_000);
        assert_eq!(h.max_results_open, held, "{link:?} while the tasks run");
        h.run_for(60_000);
        for sub in subs {
            assert!(completed(&h, sub), "{link:?} {sub:?}");
        }
        assert!(h.violations.is_empty(), "{link:?}: {:?}", h.violations);
    }
}

#[test]
fn a_tight_budget_holds_results_only_for_input() {
    let mut h = legacy_on(Link::Http1, 42);
    h.engine.cfg.max_blocking_results = Some(TIGHT_BUDGET);
    let sub = h.call("job", json!({ "ms": 6_000, "input": true }));
    let plain = h.call("job", json!({ "ms": 6_000 }));
    h.run_for(30_000);
    assert!(completed(&h, sub) && completed(&h, plain));
    assert_eq!(h.inputs_seen(), 1);
    let id = h.task_of(plain).unwrap_or_default();
    let end = completed_at(&h, &id).unwrap_or(0);
    assert!(
        results_of(&h, &id).iter().all(|at| *at >= end),
        "a task not asking for input fetches its result only once it ended"
    );
}

#[test]
fn a_held_result_delivers_the_end_at_once_with_one_request_and_safety_polls() {
    for link in [Link::Node, Link::WebSocket, Link::Http2] {
        let mut h = legacy_on(link, 43);
        let subs: Vec<SubId> = (0..5)
            .map(|i| h.call("job", json!({ "ms": 45_000 + 1_000 * i, "input": i == 0 })))
            .collect();
        h.run_for(120_000);
        assert_eq!(
            h.inputs_seen(),
            1,
            "the input request came on the held stream"
        );
        for sub in subs {
            assert!(completed(&h, sub), "{link:?}");
            let id = h.task_of(sub).unwrap_or_default();
            assert_eq!(results_of(&h, &id).len(), 1, "{link:?}: one tasks/result");
            // The outcome came on the held stream: no poll had to see the end.
            let created = h.server.tasks.get(&id).map_or(0, |t| t.created);
            let seen = completed_at(&h, &id).unwrap_or(Millis::MAX);
            let ends_by = created + 45_000 + 4_000 + 100;
            assert!(
                seen <= ends_by,
                "{link:?}: seen at {seen}, ended by {ends_by}"
            );
            // Polls while the stream is held: the safety net only.
            let gets = h.get_times(&id);
            assert!(gets.len() <= 4, "{link:?}: {gets:?}");
            let gaps = gets.windows(2).map(|w| w[1] - w[0]);
            assert!(
                gaps.clone().all(|g| g >= CAP_VISIBLE_MS),
                "{link:?}: {gets:?}"
            );
        }
        assert!(h.violations.is_empty(), "{link:?}: {:?}", h.violations);
    }
}

#[test]
fn servers_that_do_not_hold_results_are_remembered_and_polled() {
    for mode in [RunningResults::Refuse, RunningResults::Close] {
        let mut h = legacy_on(Link::Node, 44);
        h.server.faults.running_results = mode;
        let first = h.call("job", json!({ "ms": 5_000 }));
        h.run_for(1_000);
        let later: Vec<SubId> = (0..3)
            .map(|_| h.call("job", json!({ "ms": 5_000 })))
            .collect();
        h.run_for(30_000);
        assert!(completed(&h, first), "{mode:?}");
        let first_id = h.task_of(first).unwrap_or_default();
        assert_eq!(
            results_of(&h, &first_id).len(),
            2,
            "{mode:?}: refused, then fetched"
        );
        for sub in later {
            assert!(completed(&h, sub), "{mode:?}");
            let id = h.task_of(sub).unwrap_or_default();
            let end = completed_at(&h, &id).unwrap_or(0);
            let results = results_of(&h, &id);
            assert_eq!(results.len(), 1, "{mode:?}: fetched once, after the end");
            assert!(results.iter().all(|at| *at >= end), "{mode:?}");
            // Polled at the cadence again (1 s while young), not the safety interval.
            assert!(h.get_times(&id).len() >= 4, "{mode:?}");
        }
        assert!(h.violations.is_empty(), "{mode:?}: {:?}", h.violations);
    }
}

#[test]
fn a_result_that_consumes_the_task_stays_final() {
    // The harness: a server that forgets a task once its result is read, polls racing it.
    for seed in 0..8 {
        let mut h = legacy_on(Link::Node, 50 + seed);
        h.server.faults.consume_results = true;
        h.latency = (5, 400);
        let subs: Vec<SubId> = (0..6)
            .map(|i| h.call("job", json!({ "ms": 19_000 + 300 * i })))
            .collect();
        h.run_for(90_000);
        for sub in subs {
            assert!(completed(&h, sub), "seed {seed}: {:?}", h.done(sub));
        }
    }
}

#[test]
fn an_error_on_the_held_stream_is_the_outcome_of_a_task_that_failed() {
    // A failed task's held result answers with its JSON-RPC error; rmcp also forgets the task.
    for consume in [false, true] {
        let mut h = legacy_on(Link::Node, 47);
        h.server.faults.consume_results = consume;
        let failing = h.call("job", json!({ "ms": 300, "end": "error" }));
        let later = h.call("job", json!({ "ms": 3_000 }));
        h.run_for(20_000);
        match h.done(failing) {
            End::Finished {
                task: Some(t),
                outcome: Some(Outcome::Error { error }),
            } => {
                assert_eq!(t.status, TaskStatus::Failed, "consume {consume}");
                assert_eq!(error.code, -32603);
            }
            other => panic!("consume {consume}: {other:?}"),
        }
        // Not taken for a refusal: the next task still holds its result.
        assert!(completed(&h, later));
        let id = h.task_of(later).unwrap_or_default();
        assert_eq!(results_of(&h, &id).len(), 1, "consume {consume}");
    }
}

#[test]
fn a_task_past_its_deadline_expires_without_waiting_for_its_held_result() {
    let mut h = legacy_on(Link::Node, 48);
    let sub = h.call("job", json!({ "ms": 20_000, "ttl": 2_000 }));
    h.run_for(30_000);
    assert_eq!(h.statuses(sub).last(), Some(&TaskStatus::Expired));
    let expired_at = h.events.iter().find_map(|e| match e {
        Event::Transition {
            to: TaskStatus::Expired,
            at,
            ..
        } => Some(*at),
        _ => None,
    });
    // The deadline's last poll finds the task gone: expired then, not a request timeout later.
    assert!(
        expired_at.is_some_and(|at| at <= T0 + 2_000 + 2_000),
        "{expired_at:?}"
    );
}

/// A legacy engine on `link`, its session open, watching task `t1`; returns the engine and
/// the transmissions that followed (the first poll).
pub(in crate::engine::tests) fn watching(link: Link) -> (Engine, Vec<(SendKey, Value)>) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 7, T0);
    let (sent, _) = drain(&mut e, T0);
    let caps = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
    accept_initialize(&mut e, T0, &sent, "s1", caps);
    drain(&mut e, T0);
    e.watch(T0, "t1");
    let sent = drain(&mut e, T0).0;
    (e, sent)
}

pub(in crate::engine::tests) fn method_of(
    sent: &[(SendKey, Value)],
    method: &str,
) -> Option<(SendKey, Value)> {
    sent.iter()
        .find(|(_, b)| b["method"] == method)
        .map(|(k, b)| (*k, b["id"].clone()))
}

/// Answers the poll of `task_id` in `sent` with `working` at `now`; returns what followed, and
/// when: a held result waits out one interval (the poll's, with its jitter) while the session
/// has not shown whether its server pushes.
pub(in crate::engine::tests) fn answer_working(
    e: &mut Engine,
    now: Millis,
    sent: &[(SendKey, Value)],
    task_id: &str,
) -> (Millis, Vec<(SendKey, Value)>) {
    let sent = answer_working_now(e, now, sent, task_id);
    if method_of(&sent, "tasks/result").is_some() {
        return (now, sent);
    }
    let later = now + 1_100;
    (later, drain(e, later).0)
}

/// Answers the poll of `task_id` in `sent` with `working` at `now`; returns what followed at once.
pub(in crate::engine::tests) fn answer_working_now(
    e: &mut Engine,
    now: Millis,
    sent: &[(SendKey, Value)],
    task_id: &str,
) -> Vec<(SendKey, Value)> {
    let Some((get, get_id)) = method_of(sent, "tasks/get") else {
        panic!("no poll: {sent:?}");
    };
    e.handle_input(now, head(get, 200, None));
    let task = json!({ "taskId": task_id, "status": "working", "createdAt": "2026-12-01T00:00:00Z",
        "lastUpdatedAt": "2026-12-01T00:00:00Z", "ttl": null, "pollInterval": 1000 });
    answer(e, now, get, &get_id, task);
    drain(e, now).0
}

#[test]
fn a_stream_closed_soon_is_a_refusal_and_one_dropped_after_a_long_hold_is_held_again() {
    for (closed_after, refused) in [(20, true), (60_000, false)] {
        let (mut e, sent) = watching(Link::Node);
        let (t, sent) = answer_working(&mut e, T0 + 10, &sent, "t1");
        let Some((res, _)) = method_of(&sent, "tasks/result") else {
            panic!("no held result: {sent:?}");
        };
        let at = t + closed_after;
        e.handle_input(at, head(res, 200, None));
        e.handle_input(at, Input::Ended { key: res });
        let again = drain(&mut e, at).0;
        let held_again = method_of(&again, "tasks/result").is_some();
        assert_eq!(
            held_again, !refused,
            "closed after {closed_after} ms: {again:?}"
        );
        e.watch(at, "t2");
        let sent = drain(&mut e, at).0;
        let (_, sent) = answer_working(&mut e, at + 10, &sent, "t2");
        let held = method_of(&sent, "tasks/result").is_some();
        assert_eq!(held, !refused, "closed after {closed_after} ms: {sent:?}");
    }
}

#[test]
fn a_poll_answering_gone_while_the_result_is_held_waits_for_the_stream() {
    let (mut e, sent) = watching(Link::Node);
    let (t, sent) = answer_working(&mut e, T0 + 10, &sent, "t1");
    let Some((res, res_id)) = method_of(&sent, "tasks/result") else {
        panic!("no held result: {sent:?}");
    };
    e.handle_input(t + 10, head(res, 200, None));
    // The safety poll goes out; the task ends and its result (read on the stream) consumes it.
    let at = t + CAP_VISIBLE_MS + CAP_VISIBLE_MS / 10;
    let sent = drain(&mut e, at).0;
    let Some((get, get_id)) = method_of(&sent, "tasks/get") else {
        panic!("no safety poll: {sent:?}");
    };
    e.handle_input(at, head(get, 200, None));
    let gone = json!({ "code": -32002, "message": "Task not found" });
    feed(
        &mut e,
        at,
        Some(get),
        json!({ "jsonrpc": "2.0", "id": get_id, "error": gone }),
    );
    let events = drain(&mut e, at).1;
    assert!(
        !events.iter().any(|ev| matches!(ev, Event::Done { .. })),
        "not expired while the stream may still bring the end: {events:?}"
    );
    let result = json!({ "content": [{ "type": "text", "text": "done" }] });
    answer(&mut e, at + 5, res, &res_id, result);
    let events = drain(&mut e, at + 5).1;
    let done = events.iter().find_map(|ev| match ev {
        Event::Done { end, .. } => Some(end.clone()),
        _ => None,
    });
    assert!(
        matches!(
            done,
            Some(End::Finished { task: Some(ref t), outcome: Some(Outcome::Result { .. }) })
                if t.status == TaskStatus::Completed
        ),
        "{done:?}"
    );
}

#[cfg(feature = "draft")]
#[test]
fn the_draft_dialect_never_holds_a_result() {
    let cfg = Config {
        dialect: DialectChoice::Draft,
        link: Link::WebSocket,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Draft, 45);
    let sub = h.call("job", json!({ "ms": 8_000 }));
    h.run_for(30_000);
    assert!(completed(&h, sub));
    let id = h.task_of(sub).unwrap_or_default();
    let end = completed_at(&h, &id).unwrap_or(0);
    assert!(results_of(&h, &id).iter().all(|at| *at >= end));
}

/// The end a `Done` event in `events` carries.
fn done_end(events: &[Event]) -> Option<End> {
    events.iter().find_map(|ev| match ev {
        Event::Done { end, .. } => Some(end.clone()),
        _ => None,
    })
}

#[test]
fn a_held_result_answered_before_the_cancel_waits_for_the_cancels_verdict() {
    // Python's SDK answers a cancelled task's held `tasks/result` with an empty result, and it
    // may arrive before the cancel's own answer.
    for cancel_answer in ["cancelled", "refused"] {
        let (mut e, sent) = watching(Link::Node);
        let (t, sent) = answer_working(&mut e, T0 + 10, &sent, "t1");
        let Some((res, res_id)) = method_of(&sent, "tasks/result") else {
            panic!("no held result: {sent:?}");
        };
        e.handle_input(t + 10, head(res, 200, None));
        e.cancel(t + 90, "t1");
        let sent = drain(&mut e, t + 90).0;
        let Some((cancel, cancel_id)) = method_of(&sent, "tasks/cancel") else {
            panic!("no cancel: {sent:?}");
        };
        let empty =
            json!({ "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "t1" } } });
        answer(&mut e, t + 100, res, &res_id, empty);
        let (_, events) = drain(&mut e, t + 100);
        assert_eq!(done_end(&events), None, "no end before the cancel's answer");
        e.handle_input(t + 110, head(cancel, 200, None));
        let status = |s: &str| {
            json!({ "taskId": "t1", "status": s, "createdAt": "2026-12-01T00:00:00Z",
                "lastUpdatedAt": "2026-12-01T00:00:00Z", "ttl": null, "pollInterval": 1000 })
        };
        let at = t + 110;
        let events = if cancel_answer == "cancelled" {
            answer(&mut e, at, cancel, &cancel_id, status("cancelled"));
            drain(&mut e, at).1
        } else {
            let err = json!({ "code": -32602, "message": "Task already terminal" });
            feed(
                &mut e,
                at,
                Some(cancel),
                json!({ "jsonrpc": "2.0", "id": cancel_id, "error": err }),
            );
            // The status decides: one poll, answered `cancelled`.
            let (sent, _) = drain(&mut e, at + 1_000);
            let Some((get, get_id)) = method_of(&sent, "tasks/get") else {
                panic!("no poll after the refused cancel: {sent:?}");
            };
            e.handle_input(at + 1_000, head(get, 200, None));
            answer(&mut e, at + 1_000, get, &get_id, status("cancelled"));
            drain(&mut e, at + 1_000).1
        };
        let end = done_end(&events);
        assert!(
            matches!(end, Some(End::Finished { task: Some(ref t), .. }) if t.status == TaskStatus::Cancelled),
            "{cancel_answer}: {end:?}"
        );
    }
}
