//! One verdict per task whatever the link: a task's terminal status comes from its status (a
//! poll or a push), never assumed from its result. A held `tasks/result` (Node: running tasks
//! hold theirs) and polling (a browser's HTTP/1.1) end the same task of the same server the same
//! way: the same status, the same outcome, the same error kind.

use crate::json::json;

use super::push::{legacy_on, results_of};
use crate::engine::api::{End, Link};
use crate::engine::verdict::{verdict, Failure};
use crate::protocol::model::{Outcome, TaskStatus};

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

/// A task of 5 s that ends `end` on a legacy server over `link`, the server forgetting a task
/// once its result was answered (`consume`, as rmcp does): how it ended, and whether its result
/// was held while it ran.
fn run(link: Link, end: &str, consume: bool, seed: u64) -> (Ending, bool) {
    let mut h = legacy_on(link, seed);
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
    for (i, end) in (0..).zip(["completed", "failed", "error", "cancelled"]) {
        // A server that forgets a cancelled task as it answers its held result with an error
        // leaves nothing to tell the cancel by: not compared.
        let consumes: &[bool] = if end == "cancelled" {
            &[false]
        } else {
            &[false, true]
        };
        for &consume in consumes {
            let (held, was_held) = run(Link::Node, end, consume, 80 + i);
            let (polled, polls_held) = run(Link::Http1, end, consume, 80 + i);
            assert!(
                was_held && !polls_held,
                "{end}: held {was_held}, polls held {polls_held}"
            );
            assert_eq!(held, polled, "{end}, consume {consume}");
        }
    }
    let (failed, _) = run(Link::Node, "failed", false, 90);
    assert_eq!(
        failed,
        (Some(TaskStatus::Failed), "result", "TaskFailed".into())
    );
}
