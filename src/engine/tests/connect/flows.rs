//! End-to-end flows per dialect against the fake server.

use crate::json::json;

use crate::engine::api::{Augment, CallOptions, DialectChoice, End, ErrorKind, Event, Input};
use crate::protocol::model::{Dialect, Outcome, TaskList, TaskStatus};
use crate::testkit::{answer, drain, Harness, T0};

const ALL: &[(DialectChoice, Dialect)] = &[
    (DialectChoice::Auto, Dialect::Modern),
    (DialectChoice::Auto, Dialect::Legacy),
    #[cfg(feature = "draft")]
    (DialectChoice::Draft, Dialect::Draft),
];

fn finished(end: &End) -> (Option<TaskStatus>, Option<Outcome>) {
    match end {
        End::Finished { task, outcome } => (task.as_ref().map(|t| t.status), outcome.clone()),
        other => panic!("not finished: {other:?}"),
    }
}

#[test]
fn create_work_complete_in_every_dialect() {
    for &(choice, server) in ALL {
        let mut h = Harness::new(choice, server, 1);
        let sub = h.call("job", json!({ "ms": 5_000 }));
        h.run_for(60_000);
        assert_eq!(h.engine.dialect(), Some(server), "{server:?}");
        let (status, outcome) = finished(&h.done(sub));
        assert_eq!(status, Some(TaskStatus::Completed), "{server:?}");
        assert!(
            matches!(outcome, Some(Outcome::Result { .. })),
            "{server:?}: {outcome:?}"
        );
        let seen = h.statuses(sub);
        assert_eq!(
            seen.last(),
            Some(&TaskStatus::Completed),
            "{server:?}: {seen:?}"
        );
        assert!(
            seen.contains(&TaskStatus::Working) || seen.contains(&TaskStatus::Submitted),
            "{seen:?}"
        );
        let task = h.task_of(sub).unwrap_or_default();
        let tr = h.transitions(&task);
        assert_eq!(tr.first().map(|t| t.0), Some(None), "{tr:?}");
        assert_eq!(tr.last().map(|t| t.1), Some(TaskStatus::Completed));
        // The end came to a poll, or to the legacy result held while the task ran.
        assert!(h.count("tasks/get") + h.count("tasks/result") >= 1);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        let connected = h
            .events
            .iter()
            .filter(|e| matches!(e, Event::Connected { .. }))
            .count();
        assert_eq!(connected, 1);
    }
}

#[test]
fn legacy_detection_handshake_and_result_fetch() {
    let mut h = Harness::new(DialectChoice::Auto, Dialect::Legacy, 2);
    let sub = h.call("job", json!({ "ms": 4_000, "interval": 1_500 }));
    h.run_for(30_000);
    let methods: Vec<&str> = h.sent.iter().map(|s| s.method.as_str()).take(5).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list"
        ]
    );
    assert_eq!(
        h.listened.len(),
        1,
        "the GET listening stream is requested once"
    );
    let log: Vec<String> = h.sent.iter().map(|s| s.line()).collect();
    assert_eq!(h.count("tasks/result"), 1, "result fetched once: {log:#?}");
    assert!(matches!(
        finished(&h.done(sub)).1,
        Some(Outcome::Result { .. })
    ));
    assert_eq!(h.check_poll_spacing(|_| Some(1_500)), Ok(()));
}

#[cfg(feature = "draft")]
#[test]
fn draft_ids_are_ours_and_unguessable() {
    let mut h = Harness::new(DialectChoice::Draft, Dialect::Draft, 3);
    let a = h.call("job", json!({ "ms": 3_000 }));
    let b = h.call("job", json!({ "ms": 3_000 }));
    h.run_for(30_000);
    let (ta, tb) = (
        h.task_of(a).unwrap_or_default(),
        h.task_of(b).unwrap_or_default(),
    );
    assert_eq!(ta.len(), 32);
    assert!(ta.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(ta, tb);
    assert_eq!(h.statuses(a).first(), Some(&TaskStatus::Submitted));
    assert!(matches!(
        finished(&h.done(a)).1,
        Some(Outcome::Result { .. })
    ));
}

#[test]
fn failures_in_every_dialect() {
    for &(choice, server) in ALL {
        let mut h = Harness::new(choice, server, 4);
        let sub = h.call("job", json!({ "ms": 2_000, "end": "error" }));
        h.run_for(30_000);
        let (status, outcome) = finished(&h.done(sub));
        assert_eq!(status, Some(TaskStatus::Failed), "{server:?}");
        match outcome {
            Some(Outcome::Error { error }) => assert_eq!(error.code, -32603, "{server:?}"),
            other => panic!("{server:?}: {other:?}"),
        }
    }
    // Legacy `failed` with an isError tool result: the result is the outcome.
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 4);
    let sub = h.call("job", json!({ "ms": 2_000, "end": "failed" }));
    h.run_for(30_000);
    match finished(&h.done(sub)) {
        (Some(TaskStatus::Failed), Some(Outcome::Result { result })) => {
            assert_eq!(result["isError"], json!(true))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancel_in_every_dialect() {
    for &(choice, server) in ALL {
        let mut h = Harness::new(choice, server, 5);
        let sub = h.call("job", json!({ "ms": 60_000 }));
        h.run_for(3_000);
        let task = h.task_of(sub).unwrap_or_default();
        let op = h.engine.cancel(h.now, &task);
        h.pump();
        h.run_for(20_000);
        assert!(
            matches!(h.reply(op), Some(Ok(_))),
            "{server:?}: {:?}",
            h.reply(op)
        );
        let (status, _) = finished(&h.done(sub));
        assert_eq!(status, Some(TaskStatus::Cancelled), "{server:?}");
        let sent_cancel = h.count("tasks/cancel") + h.count("notifications/cancelled");
        assert_eq!(sent_cancel, 1, "{server:?}");
    }
}

#[test]
fn input_required_answered_then_completed_in_every_dialect() {
    for &(choice, server) in ALL {
        let mut h = Harness::new(choice, server, 6);
        let sub = h.call("job", json!({ "ms": 6_000, "input": true }));
        h.run_for(60_000);
        assert_eq!(h.inputs_seen(), 1, "{server:?}: surfaced exactly once");
        let (status, outcome) = finished(&h.done(sub));
        assert_eq!(status, Some(TaskStatus::Completed), "{server:?}");
        assert!(outcome.is_some());
        let input = h.events.iter().find_map(|e| match e {
            Event::Input {
                task_id, request, ..
            } => Some((task_id.clone(), request.method.clone())),
            _ => None,
        });
        assert_eq!(
            input,
            Some((h.task_of(sub), "elicitation/create".to_owned())),
            "{server:?}"
        );
        if server == Dialect::Modern {
            assert_eq!(h.count("tasks/update"), 1);
        }
    }
}

#[test]
fn modern_multi_round_trip_call() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 7);
    let sub = h.call("ask", json!({}));
    h.run_for(5_000);
    assert_eq!(h.inputs_seen(), 1);
    assert_eq!(h.count("tools/call"), 2, "retried once with the answer");
    match h.done(sub) {
        End::Finished {
            task: None,
            outcome: Some(Outcome::Result { result }),
        } => {
            assert_eq!(result["content"][0]["text"], json!("thanks"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deadline_expires_the_task() {
    for (choice, server) in [ALL[0], ALL[1]] {
        let mut h = Harness::new(choice, server, 8);
        let sub = h.call("job", json!({ "ms": 600_000, "ttl": 10_000 }));
        h.run_for(60_000);
        let (status, outcome) = finished(&h.done(sub));
        assert_eq!(status, Some(TaskStatus::Expired), "{server:?}");
        assert_eq!(outcome, None);
    }
}

#[test]
fn unknown_id_after_known_task_is_expired_and_unknown_watch_fails() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 9);
    let sub = h.call("job", json!({ "ms": 600_000, "ttl": null }));
    h.run_for(5_000);
    let task = h.task_of(sub).unwrap_or_default();
    h.server.forget(&task);
    h.run_for(120_000);
    assert_eq!(finished(&h.done(sub)).0, Some(TaskStatus::Expired));

    let w = h.watch("no-such-task");
    h.run_for(5_000);
    match h.done(w) {
        End::Failed { error } => {
            assert_eq!((error.kind, error.code), (ErrorKind::Rpc, Some(-32602)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn task_list_pages() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 10);
    for _ in 0..7 {
        h.call("job", json!({ "ms": 600_000 }));
    }
    h.run_for(2_000);
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    for page in 0..5 {
        let op = h.engine.list_tasks(h.now, cursor.as_deref());
        h.pump();
        h.run_for(500);
        let reply = h.reply(op).and_then(Result::ok).unwrap_or_default();
        // The reply is a `TaskList` as JS receives it.
        let list: TaskList = crate::json::from_value(reply).unwrap_or_else(|e| panic!("{e}"));
        assert!(list.tasks.iter().all(|t| t.status == TaskStatus::Working));
        seen += list.tasks.len();
        cursor = list.next_cursor;
        if cursor.is_none() {
            assert_eq!(page, 2);
            break;
        }
    }
    assert_eq!(seen, 7);
    // Modern has no tasks/list: a clear error, nothing sent.
    let mut m = Harness::new(DialectChoice::Modern, Dialect::Modern, 10);
    let op = m.engine.list_tasks(m.now, None);
    m.run_for(100);
    assert!(matches!(m.reply(op), Some(Err(e)) if e.kind == ErrorKind::Unsupported));
}

#[test]
fn dead_session_is_reinitialized_and_tasks_keep_being_tracked() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 11);
    // Longer than the first safety poll (its result is held): that poll finds the session dead.
    let sub = h.call("job", json!({ "ms": 40_000 }));
    h.run_for(5_000);
    h.server.kill_session();
    h.run_for(80_000);
    assert_eq!(h.count("initialize"), 2);
    assert_eq!(finished(&h.done(sub)).0, Some(TaskStatus::Completed));
    assert_eq!(
        h.listened.len(),
        2,
        "the listening stream is reopened for the new session"
    );
}

#[test]
fn forced_legacy_on_a_modern_only_server_is_refused_at_connect() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Modern, 12);
    let sub = h.call("job", json!({ "ms": 1_000 }));
    h.run_for(20_000);
    assert_eq!(h.engine.dialect(), None);
    assert_eq!(h.count("initialize"), 1, "refused for good: not retried");
    assert!(
        matches!(h.done(sub), End::Failed { error } if error.kind == ErrorKind::Unsupported),
        "the queued call fails with the reason"
    );
}

#[test]
fn task_support_is_enforced_client_side() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 13);
    let forbidden = h.call_with(
        "quick",
        json!({}),
        CallOptions {
            augment: Augment::Always,
            ..Default::default()
        },
    );
    let required = h.call_with(
        "must",
        json!({}),
        CallOptions {
            augment: Augment::Never,
            ..Default::default()
        },
    );
    let plain = h.call("quick", json!({}));
    let must = h.call("must", json!({ "ms": 1_000 }));
    h.run_for(20_000);
    for s in [forbidden, required] {
        assert!(
            matches!(h.done(s), End::Failed { error } if error.kind == ErrorKind::InvalidInput)
        );
    }
    assert!(matches!(
        h.done(plain),
        End::Finished {
            task: None,
            outcome: Some(Outcome::Result { .. })
        }
    ));
    assert_eq!(finished(&h.done(must)).0, Some(TaskStatus::Completed));
    assert_eq!(h.count("tools/call"), 2, "refused calls send nothing");
}

#[test]
fn subscribers_share_one_poll_loop_and_each_get_one_done() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 14);
    let a = h.call("job", json!({ "ms": 30_000, "interval": 2_000 }));
    h.run_for(1_000);
    let task = h.task_of(a).unwrap_or_default();
    let b = h.watch(&task);
    let c = h.watch(&task);
    h.run_for(5_000);
    h.unsubscribe(c);
    h.run_for(60_000);
    for s in [a, b] {
        assert_eq!(finished(&h.done(s)).0, Some(TaskStatus::Completed));
    }
    assert!(matches!(h.done(c), End::Aborted));
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    assert_eq!(h.check_poll_spacing(|_| Some(2_000)), Ok(()));
}

#[test]
fn abort_is_local_and_the_registry_empties_after_gc() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 15);
    let sub = h.call("job", json!({ "ms": 600_000 }));
    h.run_for(3_000);
    let before = h.sent.len();
    h.unsubscribe(sub);
    h.unsubscribe(sub);
    assert!(matches!(h.done(sub), End::Aborted));
    h.run_for(60_000);
    assert_eq!(
        h.sent.len(),
        before,
        "nothing sent after the last subscriber left"
    );
    assert!(!h.engine_is_empty(), "kept until GC");
    h.run_for(5 * 60_000);
    assert!(h.engine_is_empty());
}

#[test]
fn aborting_before_the_session_is_ready_sends_nothing() {
    let mut h = Harness::new(DialectChoice::Auto, Dialect::Legacy, 16);
    let sub = h.call("job", json!({}));
    h.unsubscribe(sub);
    h.run_for(10_000);
    assert_eq!(h.count("tools/call"), 0);
    assert!(matches!(h.done(sub), End::Aborted));
}

#[test]
fn finished_result_is_cached_for_late_watchers_until_gc() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 17);
    let sub = h.call("job", json!({ "ms": 1_000 }));
    h.run_for(20_000);
    let task = h.task_of(sub).unwrap_or_default();
    let results = h.count("tasks/result");
    let late = h.watch(&task);
    assert!(matches!(
        finished(&h.done(late)).1,
        Some(Outcome::Result { .. })
    ));
    assert_eq!(h.count("tasks/result"), results, "served from cache");
    h.run_for(10 * 60_000);
    assert!(h.engine_is_empty());
}

#[test]
fn pushes_update_state_and_postpone_polls() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 18);
    h.server.push = true;
    let sub = h.call("job", json!({ "ms": 9_000 }));
    // The job's time runs from when the call leaves, after the handshake.
    h.run_until_done(1_000, |h| h.count("tools/call") == 1);
    h.run_for(9_100);
    // Completed by the push before the next poll was due.
    assert_eq!(finished(&h.done(sub)).0, Some(TaskStatus::Completed));
}

#[test]
fn visibility_catch_up_is_throttled() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 19);
    h.call("job", json!({ "ms": 3_600_000, "ttl": null }));
    h.run_for(120_000);
    let gets = h.count("tasks/get");
    h.input(Input::Visibility { visible: false });
    h.input(Input::Visibility { visible: true });
    // Spread over one interval (1 s).
    h.run_for(1_100);
    assert_eq!(h.count("tasks/get"), gets + 1, "one catch-up poll");
    h.input(Input::Online);
    h.input(Input::Visibility { visible: true });
    h.run_for(1_100);
    assert_eq!(h.count("tasks/get"), gets + 1, "throttled");
}

#[test]
fn retry_after_and_error_backoff() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 20);
    h.server.faults.transport = 100;
    let sub = h.call("job", json!({ "ms": 3_600_000 }));
    h.run_for(120_000);
    let task = h.task_of(sub).unwrap_or_default();
    let times = h.get_times(&task);
    assert!(times.len() >= 3);
    assert!(
        times.windows(2).all(|w| w[1] - w[0] >= 3_000),
        "Retry-After honoured: {times:?}"
    );
    let warnings = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::Warning { .. }))
        .count();
    assert!(warnings >= times.len(), "every failure is surfaced");
    assert!(h.dones(sub).is_empty(), "never gives up silently");
}

#[test]
fn silent_server_times_out_polls_and_aborts_them() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 21);
    let sub = h.call("job", json!({ "ms": 3_600_000 }));
    h.run_for(1_000);
    h.server.faults.silence = 100;
    h.run_for(300_000);
    let timeouts = h
        .events
        .iter()
        .filter(|e| matches!(e, Event::Warning { error, .. } if error.kind == ErrorKind::Timeout))
        .count();
    assert!(timeouts >= 2);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    assert!(h.dones(sub).is_empty());
}

#[test]
fn close_ends_everything_once() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 22);
    let a = h.call("job", json!({ "ms": 600_000 }));
    h.run_for(3_000);
    let task = h.task_of(a).unwrap_or_default();
    let b = h.watch(&task);
    let op = h.engine.list_tasks(h.now, None);
    h.engine.close(h.now);
    h.pump();
    h.engine.close(h.now);
    let late = h
        .engine
        .call_tool(h.now, "job", json!({}), CallOptions::default());
    h.pump();
    h.run_for(60_000);
    for s in [a, b, late] {
        assert!(matches!(h.done(s), End::Failed { error } if error.kind == ErrorKind::Closed));
    }
    assert!(matches!(h.reply(op), Some(Err(e)) if e.kind == ErrorKind::Closed));
    assert_eq!(h.session_ends, 1);
    assert!(h.engine_is_empty());
    assert!(h.now > T0);
}

#[test]
fn a_passed_deadline_gets_one_last_poll_that_may_find_the_real_end() {
    use crate::engine::api::Config;
    for ends in ["completed", "working"] {
        let mut e = crate::testkit::modern_engine(Config::default(), 1);
        let sub = e.call_tool(T0, "job", json!({}), CallOptions::default());
        let (sent, _) = drain(&mut e, T0);
        assert_eq!(sent[0].1["method"], json!("tools/list"));
        answer(
            &mut e,
            T0,
            sent[0].0,
            &sent[0].1["id"],
            json!({ "tools": [] }),
        );
        let (sent, _) = drain(&mut e, T0);
        assert_eq!(sent[0].1["method"], json!("tools/call"));
        // The server's clock says the task was created an hour ago with a 1 s ttl.
        let task = json!({ "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2025-06-15T14:06:40Z", "lastUpdatedAt": "2025-06-15T14:06:40Z", "ttlMs": 1000 });
        answer(&mut e, T0, sent[0].0, &sent[0].1["id"], task);
        let (sent, events) = drain(&mut e, T0 + 1);
        assert!(
            !events.iter().any(|ev| matches!(ev, Event::Done { .. })),
            "not expired before the last poll"
        );
        let Some(get) = sent
            .iter()
            .find(|(_, b)| b["method"] == json!("tasks/get"))
            .cloned()
        else {
            panic!("no last poll: {sent:?}");
        };
        let mut last = json!({ "taskId": "t1", "status": ends, "createdAt": "2025-06-15T14:06:40Z", "ttlMs": 1000 });
        if ends == "completed" {
            last["result"] = json!({ "content": [] });
        }
        answer(&mut e, T0 + 2, get.0, &get.1["id"], last);
        let (_, events) = drain(&mut e, T0 + 2);
        let end = events.iter().find_map(|ev| match ev {
            Event::Done { sub: s, end, .. } if *s == sub => Some(end.clone()),
            _ => None,
        });
        let want = if ends == "completed" {
            TaskStatus::Completed
        } else {
            TaskStatus::Expired
        };
        assert_eq!(end.map(|e| finished(&e).0), Some(Some(want)), "{ends}");
    }
}

#[test]
fn modern_task_already_ended_at_creation_gets_its_outcome_from_one_poll() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 23);
    let sub = h.call("job", json!({ "ms": 0 }));
    h.run_for(10_000);
    assert!(matches!(
        finished(&h.done(sub)),
        (Some(TaskStatus::Completed), Some(Outcome::Result { .. }))
    ));
    assert_eq!(h.count("tasks/get"), 1);
}

#[test]
fn a_final_poll_that_keeps_failing_ends_with_result_unavailable() {
    let mut h = Harness::new(DialectChoice::Modern, Dialect::Modern, 24);
    h.server.faults.transport = 100;
    let sub = h.call("job", json!({ "ms": 0 }));
    h.run_for(120_000);
    match h.done(sub) {
        End::Failed { error } => {
            assert_eq!(error.kind, ErrorKind::ResultUnavailable);
            assert_eq!(
                error.http_status,
                Some(503),
                "the last failure's status is kept"
            );
            assert_eq!(error.code, None, "an HTTP status is never a JSON-RPC code");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.count("tasks/get"), 4, "the final poll and three retries");
}
