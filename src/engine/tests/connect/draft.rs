//! The draft dialect end to end: tasks followed under the id the requestor generated from the
//! moment the request goes out (with and without `notifications/tasks/created`, i.e. a server
//! answering with plain JSON), `tasks/delete` (on request and once the result was delivered),
//! detection under `Auto`, and requests refused before anything is sent.

use crate::json::{json, Value};

use crate::engine::api::{
    Augment, CallOptions, ClientError, Config, DialectChoice, End, ErrorKind, Event, SubId,
};
use crate::engine::Engine;
use crate::protocol::model::{Dialect, Outcome, TaskStatus};
use crate::testkit::{answer, drain, head, Harness, T0};

/// A draft harness; `announce: false` is a JSON-only server (no `created`, one answer at the end).
fn draft(announce: bool, seed: u64) -> Harness {
    let mut h = Harness::new(DialectChoice::Draft, Dialect::Draft, seed);
    h.server.announce = announce;
    h
}

fn delete_on_done() -> CallOptions {
    CallOptions {
        delete_on_done: true,
        ..CallOptions::default()
    }
}

fn completed_with_result(end: &End) -> bool {
    matches!(end, End::Finished { task: Some(t), outcome: Some(Outcome::Result { .. }) }
        if t.status == TaskStatus::Completed)
}

fn failed_with(end: &End, kind: ErrorKind) -> bool {
    matches!(end, End::Failed { error: ClientError { kind: k, .. } } if *k == kind)
}

/// When the engine first told anyone about the task (its first transition).
fn first_seen(h: &Harness, task_id: &str) -> Option<u64> {
    h.events.iter().find_map(|e| match e {
        Event::Transition { task_id: t, at, .. } if t == task_id => Some(*at),
        _ => None,
    })
}

fn sent_at(h: &Harness, method: &str) -> Option<u64> {
    h.sent.iter().find(|s| s.method == method).map(|s| s.at)
}

#[test]
fn the_generated_id_is_followed_at_once_with_or_without_created() {
    for announce in [true, false] {
        let mut h = draft(announce, 21);
        let sub = h.call("job", json!({ "ms": 6_000, "interval": 1_000 }));
        h.run_for(60_000);
        let id = h.task_of(sub).unwrap_or_default();
        assert_eq!(id.len(), 32, "announce={announce}: {id:?}");
        assert!(
            h.server.intervals.contains_key(&id),
            "the server made the task under our id"
        );
        // Followed from the moment the request went out, not from the server's first word.
        assert_eq!(first_seen(&h, &id), sent_at(&h, "tools/call"));
        let seen = h.statuses(sub);
        assert_eq!(seen.first(), Some(&TaskStatus::Submitted), "{seen:?}");
        assert!(seen.contains(&TaskStatus::Working), "polled: {seen:?}");
        let gets = h.get_times(&id);
        assert!(
            gets.first().is_some_and(|t| *t < T0 + 6_000),
            "polled while it ran: {gets:?}"
        );
        assert!(completed_with_result(&h.done(sub)), "{:?}", h.done(sub));
        assert_eq!(
            h.count("tasks/result"),
            0,
            "the original response carried it"
        );
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

#[test]
fn a_named_task_can_be_watched_and_cancelled_without_created() {
    let mut h = draft(false, 22);
    let sub = h.call("job", json!({ "ms": 60_000, "interval": 1_000 }));
    h.run_for(2_000);
    let id = h.task_of(sub).unwrap_or_default();
    let watcher = h.watch(&id);
    h.run_for(3_000);
    assert!(h.statuses(watcher).contains(&TaskStatus::Working));
    cancel_ends_cancelled(&mut h, &id, &[sub, watcher]);
}

/// Cancels `id` (acknowledged, one `notifications/cancelled`); every sub in `subs` ends cancelled.
fn cancel_ends_cancelled(h: &mut Harness, id: &str, subs: &[SubId]) {
    let op = h.engine.cancel(h.now, id);
    h.pump();
    h.run_for(10_000);
    assert!(matches!(h.reply(op), Some(Ok(_))), "{:?}", h.reply(op));
    assert_eq!(h.count("notifications/cancelled"), 1);
    for s in subs {
        match h.done(*s) {
            End::Finished { task: Some(t), .. } => assert_eq!(t.status, TaskStatus::Cancelled),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn cancelled_before_any_poll_without_created_ends_cancelled() {
    // JSON-only: the server drops the original request; nothing confirmed the task yet.
    let mut h = draft(false, 31);
    let sub = h.call("job", json!({ "ms": 60_000 }));
    h.run_for(100);
    let id = h.task_of(sub).unwrap_or_default();
    assert!(h.get_times(&id).is_empty(), "not polled yet");
    cancel_ends_cancelled(&mut h, &id, &[sub]);
}

#[test]
fn not_found_while_the_original_request_is_open_is_not_expiry() {
    // The server never made the task and never answers: polls say "not found" meanwhile, which
    // must not end the task. Once the request timed out, "not found" means it never existed.
    let mut h = draft(false, 23);
    let sub = h.call("job", json!({ "ms": 600_000 }));
    h.run_for(100);
    let id = h.task_of(sub).unwrap_or_default();
    assert!(h.server.tasks.contains_key(&id), "{id:?}");
    h.server.forget(&id);
    h.run_for(30_000);
    assert!(h.dones(sub).is_empty(), "still waiting: {:?}", h.dones(sub));
    assert!(h.get_times(&id).len() >= 2, "polled meanwhile");
    assert!(!h.statuses(sub).contains(&TaskStatus::Expired));
    h.run_for(60_000);
    match h.done(sub) {
        End::Failed { error } => {
            assert_eq!((error.kind, error.code), (ErrorKind::Rpc, Some(-32602)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn delete_on_done_deletes_once_the_result_was_delivered() {
    for announce in [true, false] {
        let mut h = draft(announce, 24);
        let sub = h.call_with("job", json!({ "ms": 3_000 }), delete_on_done());
        h.run_for(30_000);
        let id = h.task_of(sub).unwrap_or_default();
        assert!(completed_with_result(&h.done(sub)));
        assert_eq!(h.count("tasks/delete"), 1, "announce={announce}");
        let deleted = h.sent.iter().find(|s| s.method == "tasks/delete");
        assert_eq!(deleted.and_then(|s| s.task_id.clone()), Some(id.clone()));
        let done_at = h.sent.iter().rev().find(|s| s.method == "tasks/delete");
        assert!(done_at.is_some_and(|s| s.at >= T0 + 3_000));
        assert!(!h.server.tasks.contains_key(&id), "gone on the server");
        assert!(h.engine.task(&id).is_none(), "and forgotten here");
    }
    // Without the option nothing is deleted; a stopped caller got no result: nothing either.
    let mut h = draft(true, 25);
    let kept = h.call("job", json!({ "ms": 3_000 }));
    let stopped = h.call_with("job", json!({ "ms": 3_000 }), delete_on_done());
    h.run_for(1_000);
    h.unsubscribe(stopped);
    h.run_for(30_000);
    assert!(completed_with_result(&h.done(kept)));
    assert_eq!(h.count("tasks/delete"), 0);
}

#[test]
fn delete_on_done_for_every_task_where_the_dialect_deletes() {
    for server in [Dialect::Draft, Dialect::Legacy] {
        let cfg = Config {
            dialect: DialectChoice::Auto,
            delete_on_done: true,
            ..Config::default()
        };
        let mut h = Harness::with_config(cfg, server, 32);
        h.server.announce = false;
        let sub = h.call("job", json!({ "ms": 3_000 }));
        h.run_for(30_000);
        assert!(completed_with_result(&h.done(sub)), "{server:?}");
        let deletes = usize::from(server == Dialect::Draft);
        assert_eq!(h.count("tasks/delete"), deletes, "{server:?}");
    }
}

#[test]
fn delete_task_on_request() {
    let mut h = draft(false, 26);
    let sub = h.call("job", json!({ "ms": 3_000 }));
    h.run_for(1_000);
    let id = h.task_of(sub).unwrap_or_default();
    // Running: the server refuses (cancel first); the error is the server's.
    let early = h.engine.delete_task(h.now, &id);
    h.pump();
    h.run_for(1_000);
    match h.reply(early) {
        Some(Err(e)) => assert_eq!((e.kind, e.code), (ErrorKind::Rpc, Some(-32602))),
        other => panic!("{other:?}"),
    }
    h.run_for(30_000);
    assert!(completed_with_result(&h.done(sub)));
    let op = h.engine.delete_task(h.now, &id);
    h.pump();
    h.run_for(1_000);
    assert_eq!(h.reply(op), Some(Ok(json!({}))));
    assert_eq!(h.count("tasks/delete"), 2);
    assert!(!h.server.tasks.contains_key(&id));
    assert!(h.engine.task(&id).is_none());
}

#[test]
fn dialects_without_delete_refuse_before_sending() {
    for server in [Dialect::Legacy, Dialect::Modern] {
        let mut h = Harness::new(DialectChoice::Auto, server, 27);
        let op = h.engine.delete_task(h.now, "t1");
        h.pump();
        let sub = h.call_with("job", json!({ "ms": 1_000 }), delete_on_done());
        h.run_for(10_000);
        match h.reply(op) {
            Some(Err(e)) => {
                assert_eq!(e.kind, ErrorKind::InvalidInput);
                assert!(e.message.contains("tasks/delete"), "{}", e.message);
            }
            other => panic!("{server:?}: {other:?}"),
        }
        assert!(failed_with(&h.done(sub), ErrorKind::InvalidInput));
        assert_eq!(h.count("tasks/delete"), 0, "{server:?}");
        assert_eq!(
            h.count("tools/call"),
            0,
            "{server:?}: the call was not sent"
        );
    }
}

#[test]
fn keep_alive_is_its_own_field_both_ways() {
    let mut h = draft(true, 28);
    let opts = CallOptions {
        keep_alive_ms: Some(60_000),
        ttl_ms: Some(5),
        ..CallOptions::default()
    };
    let sub = h.call_with("job", json!({ "ms": 2_000 }), opts);
    h.run_for(30_000);
    let End::Finished { task: Some(t), .. } = h.done(sub) else {
        panic!("{:?}", h.done(sub))
    };
    // The fake reports keepAlive from its own retention; ttl (lifetime from creation) stays unset.
    assert_eq!((t.keep_alive_ms, t.ttl_ms), (Some(3_600_000), None));
}

#[test]
fn keep_alive_and_ttl_go_where_they_belong() {
    let mut e = Engine::new(
        Config {
            dialect: DialectChoice::Draft,
            ..Config::default()
        },
        1,
        T0,
    );
    let (sent, _) = drain(&mut e, T0);
    open_session(&mut e, &sent, "2025-06-18", json!({ "tools": {} }));
    let opts = CallOptions {
        keep_alive_ms: Some(60_000),
        ttl_ms: Some(5),
        augment: Augment::Always,
        ..CallOptions::default()
    };
    e.request(T0, "resources/read", json!({ "uri": "x" }), opts);
    let (sent, _) = drain(&mut e, T0);
    let meta = sent
        .iter()
        .find(|(_, b)| b["method"] == json!("resources/read"))
        .map(|(_, b)| b["params"]["_meta"]["modelcontextprotocol.io/task"].clone())
        .unwrap_or_default();
    assert_eq!(meta["keepAlive"], json!(60_000), "{sent:?}");
    assert_eq!(meta["taskId"].as_str().map(str::len), Some(32));
}

/// Answers the `initialize` that `sent[0]` is with `version` and `capabilities`.
fn open_session(
    e: &mut Engine,
    sent: &[(crate::engine::api::SendKey, Value)],
    version: &str,
    capabilities: Value,
) {
    let (key, id) = (sent[0].0, &sent[0].1["id"]);
    assert_eq!(sent[0].1["method"], json!("initialize"));
    e.handle_input(T0, head(key, 200, Some("s1")));
    let result =
        json!({ "protocolVersion": version, "capabilities": capabilities, "serverInfo": {} });
    answer(e, T0, key, id, result);
}

/// An `Auto` engine whose probe was refused the legacy way: its `initialize` is out.
fn auto_at_initialize() -> (Engine, Vec<(crate::engine::api::SendKey, Value)>) {
    let mut e = Engine::new(Config::default(), 3, T0);
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent[0].1["method"], json!("server/discover"));
    e.handle_input(T0, head(sent[0].0, 400, None));
    e.handle_input(T0, crate::engine::api::Input::Ended { key: sent[0].0 });
    let (sent, _) = drain(&mut e, T0);
    (e, sent)
}

fn warnings(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Warning { error, .. } => Some(error.message.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn auto_detects_a_draft_server_by_its_capabilities() {
    let (mut e, sent) = auto_at_initialize();
    let caps = json!({ "tools": {}, "tasks": { "requests": { "tools": { "call": true } }, "list": true, "delete": true } });
    open_session(&mut e, &sent, "2025-06-18", caps);
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Draft));
    assert!(warnings(&events).is_empty(), "{events:?}");
    assert_eq!(sent[0].1["method"], json!("notifications/initialized"));
}

#[test]
fn auto_says_once_when_the_server_gives_no_sign() {
    let (mut e, sent) = auto_at_initialize();
    open_session(&mut e, &sent, "2025-06-18", json!({ "tools": {} }));
    let (_, events) = drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Legacy));
    let said = warnings(&events);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("dialect: \"draft\""), "{}", said[0]);
    // Connected comes first: the warning does not fail the connect.
    let connected = events
        .iter()
        .position(|e| matches!(e, Event::Connected { .. }));
    let warned = events
        .iter()
        .position(|e| matches!(e, Event::Warning { .. }));
    assert!(connected < warned);
    // A 2025-11-25 server with core tasks, or none: nothing to say.
    for (version, caps) in [
        (
            "2025-11-25",
            json!({ "tasks": { "requests": { "tools": { "call": {} } } } }),
        ),
        ("2025-11-25", json!({ "tools": {} })),
    ] {
        let (mut e, sent) = auto_at_initialize();
        open_session(&mut e, &sent, version, caps);
        let (_, events) = drain(&mut e, T0);
        assert_eq!(e.dialect(), Some(Dialect::Legacy));
        assert!(warnings(&events).is_empty(), "{events:?}");
    }
}

#[test]
fn always_on_a_method_that_cannot_be_a_task_is_refused_up_front() {
    for server in [Dialect::Draft, Dialect::Legacy, Dialect::Modern] {
        let mut h = Harness::new(DialectChoice::Auto, server, 30);
        h.run_for(2_000);
        let before = h.sent.len();
        let always = CallOptions {
            augment: Augment::Always,
            ..CallOptions::default()
        };
        let subs: Vec<SubId> = ["tools/list", "ping", "tasks/list", "resources/list"]
            .into_iter()
            .map(|m| h.engine.request(h.now, m, json!({}), always.clone()))
            .collect();
        h.pump();
        h.run_for(2_000);
        for sub in subs {
            assert!(
                failed_with(&h.done(sub), ErrorKind::InvalidInput),
                "{server:?}"
            );
        }
        assert_eq!(h.sent.len(), before, "{server:?}: nothing sent");
    }
}
