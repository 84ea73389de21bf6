//! Replicas behind a round-robin balancer without session affinity: every legacy session dies on
//! the next request that reaches the other replica. The client re-initializes with a growing gap,
//! says once why, and ends every task the server no longer knows `expired`, never with the
//! server's "no such task" error.

use crate::json::{json, Value};

use crate::engine::api::{
    Config, DialectChoice, End, ErrorKind, Event, Input, Link, Millis, SendKey,
};
use crate::engine::Engine;
use crate::protocol::model::{Dialect, TaskStatus};
use crate::testkit::balancer::Balancer;
use crate::testkit::{accept_initialize, drain, feed, head, Harness, T0};

const DIAGNOSIS: &str = "balancer without affinity";

fn harness(choice: DialectChoice, seed: u64) -> Harness<Balancer> {
    let cfg = Config {
        dialect: choice,
        ..Config::default()
    };
    Harness::with_world(cfg, Balancer::new(Dialect::Legacy, seed), seed)
}

fn warnings(h: &Harness<Balancer>) -> Vec<String> {
    h.events
        .iter()
        .filter_map(|ev| match ev {
            Event::Warning { error, .. } => Some(error.message.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn sessions_lost_between_replicas_back_off_are_diagnosed_once_and_tasks_end_expired() {
    for choice in [DialectChoice::Auto, DialectChoice::Legacy] {
        let mut h = harness(choice, 21);
        // A call a second for 20 s, as a page under use makes them.
        let mut subs = Vec::new();
        for i in 0..20 {
            subs.push(h.call("job", json!({ "ms": 3_000 + i * 100 })));
            h.run_for(1_000);
        }
        let initializes = h.count("initialize");
        assert!(
            (3..=10).contains(&initializes),
            "{choice:?}: {initializes} initializations in 20 s"
        );
        let warned = warnings(&h);
        let diagnosed = warned.iter().filter(|w| w.contains(DIAGNOSIS)).count();
        assert_eq!(diagnosed, 1, "{choice:?}: {warned:#?}");
        let expired = warned
            .iter()
            .filter(|w| w.contains("session expired"))
            .count();
        assert!(expired <= 2, "{choice:?}: {expired} expiry warnings");
        h.run_for(300_000);
        for sub in subs {
            match h.done(sub) {
                End::Finished {
                    task: Some(task), ..
                } => assert!(
                    matches!(task.status, TaskStatus::Expired | TaskStatus::Completed),
                    "{choice:?}: {:?}",
                    task.status
                ),
                End::Failed { error } => {
                    assert_ne!(error.kind, ErrorKind::Rpc, "{choice:?}: {error:?}")
                }
                other => panic!("{choice:?}: {other:?}"),
            }
        }
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// Answers request `(key, body)` with HTTP `status` (opening session `sid`) and `payload`
/// (`{"result": …}` or `{"error": …}`), then ends its stream.
fn respond(
    e: &mut Engine,
    now: Millis,
    sent: &(SendKey, Value),
    status: u16,
    sid: Option<&str>,
    payload: Value,
) {
    let (key, id) = (sent.0, sent.1["id"].clone());
    e.handle_input(now, head(key, status, sid));
    let mut msg = json!({ "jsonrpc": "2.0", "id": id });
    for (k, v) in payload.as_object().into_iter().flatten() {
        msg[k.as_str()] = v.clone();
    }
    feed(e, now, Some(key), msg);
    e.handle_input(now, Input::Ended { key });
}

/// A running task's held `tasks/result` is lost with its session; on the new session the server
/// answers it, and the poll after it, "Task not found": the task ends `expired`, not with the
/// server's error.
#[test]
fn a_task_unknown_to_the_new_session_ends_expired_not_with_the_servers_error() {
    let cfg = Config {
        link: Link::Node,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 5, T0);
    let caps = json!({ "tasks": { "list": {}, "requests": { "tools": { "call": {} } } } });
    let working = json!({ "result": { "taskId": "t1", "status": "working",
        "createdAt": "2025-06-15T00:00:00Z", "ttl": null, "pollInterval": 1000 } });
    let not_found = json!({ "error": { "code": -32602, "message": "Task not found" } });
    let (mut sessions, mut lost) = (0, false);
    let mut sub = None;
    let mut events = Vec::new();
    for step in 0..120 {
        let now = T0 + step * 500;
        if step == 1 {
            sub = Some(e.watch(now, "t1"));
        }
        loop {
            let (sent, evs) = drain(&mut e, now);
            events.extend(evs);
            if sent.is_empty() {
                break;
            }
            for s in &sent {
                match s.1["method"].as_str().unwrap_or("") {
                    "server/discover" => respond(&mut e, now, s, 400, None, not_found.clone()),
                    "initialize" => {
                        sessions += 1;
                        accept_initialize(
                            &mut e,
                            now,
                            std::slice::from_ref(s),
                            &format!("s{sessions}"),
                            caps.clone(),
                        );
                    }
                    "tasks/get" if !lost => respond(&mut e, now, s, 200, None, working.clone()),
                    "tasks/result" if !lost => {
                        lost = true;
                        let gone =
                            json!({ "error": { "code": -32001, "message": "Session not found" } });
                        respond(&mut e, now, s, 404, None, gone);
                    }
                    "tasks/get" | "tasks/result" => {
                        respond(&mut e, now, s, 200, None, not_found.clone())
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(lost && sessions == 2, "lost {lost}, {sessions} sessions");
    let end = events.iter().find_map(|ev| match ev {
        Event::Done { sub: s, end, .. } if Some(*s) == sub => Some(end.clone()),
        _ => None,
    });
    match end {
        Some(End::Finished {
            task: Some(task), ..
        }) => assert_eq!(task.status, TaskStatus::Expired),
        other => panic!("{other:?}"),
    }
}
