//! One verdict per task whatever the link: a task's terminal status comes from its status (a
//! poll or a push), never assumed from its result. A held `tasks/result` (running tasks hold
//! theirs: Node, a browser's HTTP/1.1) and polling (a tight budget) end the same task of the same
//! server the same way: the same status, the same outcome, the same error kind.

use crate::json::json;

use crate::engine::api::{End, Event, Link};
use crate::engine::registry::results::TIGHT_BUDGET;
use crate::engine::tests::push::{answer_working, legacy_on, method_of, results_of, watching};
use crate::engine::verdict::{verdict, Failure};
use crate::protocol::model::{Outcome, TaskStatus};
use crate::testkit::{answer, drain, head, T0};

/// How a subscription ended: the task's last status, the outcome's kind, and what the caller's
/// `result()` does with it.
type Ending = (Option<TaskStatus>, &'static str, String);

fn ending(end: &End) -> Ending {
    let (status, outcome) = match end {
        End::Finished { task, outcome } => (task.as_ref().map(|t| t.status), outcome.as_ref()),
        _ => (None, None),
    };
    let outcome = match outcome {
        Some(Outcome::Result { .. }) => "result",
        Some(Outcome::Error { .. }) => "error",
        None => "none",
    };
    let result = match verdict(end, None) {
        Ok(_) => "resolves".to_owned(),
        Err(Failure::Ended { how, .. }) => format!("{how:?}"),
        Err(Failure::Error(e)) => format!("{:?}", e.kind),
    };
    (status, outcome, result)
}

/// A task of 5 s that ends `end` on a legacy server over `link` (`budget`: held results at
/// most), the server forgetting a task once its result was answered (`consume`, as rmcp does):
/// how it ended, and whether its result was held while it ran.
fn run(link: Link, budget: Option<usize>, end: &str, consume: bool, seed: u64) -> (Ending, bool) {
    let mut h = legacy_on(link, seed);
    h.engine.cfg.max_blocking_results = budget;
    h.server.faults.consume_results = consume;
    let sub = h.call("job", json!({ "ms": 5_000, "end": end }));
    h.run_for(60_000);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    let task = h.task_of(sub).unwrap_or_default();
    let called = h
        .sent
        .iter()
        .find(|s| s.method == "tools/call")
        .map_or(0, |s| s.at);
    let held = results_of(&h, &task)
        .first()
        .is_some_and(|at| *at < called + 5_000);
    (ending(&h.done(sub)), held)
}

#[test]
fn a_held_result_and_polling_reach_the_same_verdict() {
    for (i, end) in (0..).zip(["completed", "failed", "error", "cancelled", "empty"]) {
        // A server that forgets a cancelled task as it answers its held result with an error, or
        // a failed one as it answers with an empty result, leaves nothing to tell the end by: not
        // compared.
        let consumes: &[bool] = if end == "cancelled" || end == "empty" {
            &[false]
        } else {
            &[false, true]
        };
        for &consume in consumes {
            let (held, was_held) = run(Link::Node, None, end, consume, 80 + i);
            let (in_page, page_held) = run(Link::Http1, None, end, consume, 80 + i);
            let (polled, polls_held) = run(Link::Http1, Some(TIGHT_BUDGET), end, consume, 80 + i);
            assert!(
                was_held && page_held && !polls_held,
                "{end}: held {was_held}, in a page {page_held}, polls held {polls_held}"
            );
            assert_eq!(held, polled, "{end}, consume {consume}");
            assert_eq!(in_page, polled, "{end}, consume {consume}");
        }
    }
    let (failed, _) = run(Link::Node, None, "failed", false, 90);
    assert_eq!(
        failed,
        (Some(TaskStatus::Failed), "result", "TaskFailed".into())
    );
    // A failed task whose result carries nothing but `_meta` (Python `mcp` for a raising tool).
    let (empty, _) = run(Link::Node, None, "empty", false, 91);
    assert_eq!(
        empty,
        (Some(TaskStatus::Failed), "result", "TaskFailed".into())
    );
}

/// A held result with `isError` whose confirming poll still says `working` (a server slow to
/// record the end): the result decides, and `isError` reads `failed`.
#[test]
fn a_tool_error_the_status_cannot_confirm_reads_failed() {
    let (mut e, sent) = watching(Link::Node);
    let (t, sent) = answer_working(&mut e, T0 + 10, &sent, "t1");
    let Some((res, res_id)) = method_of(&sent, "tasks/result") else {
        panic!("no held result: {sent:?}");
    };
    let at = t + 5_000;
    e.handle_input(at, head(res, 200, None));
    let failed = json!({ "content": [{ "type": "text", "text": "disk full" }], "isError": true });
    answer(&mut e, at, res, &res_id, failed);
    let (sent, events) = drain(&mut e, at);
    assert!(
        !events.iter().any(|ev| matches!(ev, Event::Done { .. })),
        "settled before its status was asked: {events:?}"
    );
    let Some((get, get_id)) = method_of(&sent, "tasks/get") else {
        panic!("the end was not confirmed: {sent:?}");
    };
    e.handle_input(at + 20, head(get, 200, None));
    let working = json!({ "taskId": "t1", "status": "working", "createdAt": "2026-12-01T00:00:00Z",
        "lastUpdatedAt": "2026-12-01T00:00:00Z", "ttl": null, "pollInterval": 1000 });
    answer(&mut e, at + 20, get, &get_id, working);
    let (sent, events) = drain(&mut e, at + 20);
    assert!(
        method_of(&sent, "tasks/get").is_none(),
        "one poll only: {sent:?}"
    );
    let end = events.iter().find_map(|ev| match ev {
        Event::Done { end, .. } => Some(end.clone()),
        _ => None,
    });
    let end = end.unwrap_or(End::Aborted);
    assert_eq!(
        ending(&end),
        (Some(TaskStatus::Failed), "result", "TaskFailed".into())
    );
}
