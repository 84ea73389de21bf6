//! Task methods a server lacks (-32601 with HTTP 404) are remembered for the session: never
//! asked again, the caller told at once with `Unsupported`, pushes off without a loop.

use crate::json::json;

use crate::engine::api::{DialectChoice, End, ErrorKind, Event};
use crate::protocol::model::{Dialect, TaskStatus};
use crate::testkit::Harness;

fn harness(dialect: Dialect, missing: &'static str, seed: u64) -> Harness {
    let choice = match dialect {
        Dialect::Modern => DialectChoice::Modern,
        _ => DialectChoice::Legacy,
    };
    let mut h = Harness::new(choice, dialect, seed);
    h.server.faults.missing = vec![missing];
    h
}

fn unsupported(end: &End) -> bool {
    matches!(end, End::Failed { error } if error.kind == ErrorKind::Unsupported)
}

fn warnings(h: &Harness) -> usize {
    (h.events.iter())
        .filter(|e| matches!(e, Event::Warning { .. }))
        .count()
}

#[test]
fn a_missing_listen_is_asked_once_and_polling_carries_the_task() {
    let mut h = harness(Dialect::Modern, "subscriptions/listen", 41);
    let sub = h.call("job", json!({ "ms": 30_000 }));
    h.run_for(60_000);
    assert_eq!(h.count("subscriptions/listen"), 1, "never re-sent");
    assert_eq!(warnings(&h), 1, "one warning");
    assert!(
        matches!(h.done(sub), End::Finished { task: Some(t), .. } if t.status == TaskStatus::Completed)
    );
}

#[test]
fn a_missing_tasks_get_ends_watchers_at_once_and_is_not_asked_again() {
    let mut h = harness(Dialect::Modern, "tasks/get", 42);
    h.run_for(100);
    let first = h.watch("t-1");
    h.run_for(1_000);
    assert!(unsupported(&h.done(first)), "{:?}", h.dones(first));
    assert_eq!(h.count("tasks/get"), 1);
    let second = h.watch("t-2");
    assert!(unsupported(&h.done(second)), "ended within the call");
    h.run_for(10_000);
    assert_eq!(h.count("tasks/get"), 1, "not asked again");
}

#[test]
fn a_missing_tasks_list_and_cancel_fail_at_once_the_second_time() {
    for (method, seed) in [("tasks/list", 43), ("tasks/cancel", 44)] {
        let mut h = harness(Dialect::Legacy, method, seed);
        h.run_for(100);
        let ask = |h: &mut Harness| match method {
            "tasks/list" => h.engine.list_tasks(h.now, None),
            _ => h.engine.cancel(h.now, "t-1"),
        };
        let first = ask(&mut h);
        h.run_for(1_000);
        let second = ask(&mut h);
        h.run_for(1_000);
        for op in [first, second] {
            assert!(
                matches!(h.reply(op), Some(Err(e)) if e.kind == ErrorKind::Unsupported && e.code == Some(-32601)),
                "{method}: {:?}",
                h.reply(op)
            );
        }
        assert_eq!(h.count(method), 1, "{method} asked once");
        assert_eq!(
            h.count("initialize"),
            1,
            "{method}: a 404 carrying -32601 is not a dead session"
        );
    }
}
