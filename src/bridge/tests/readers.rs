//! The hand-written readers pinned to the derives' format: what `Serialize` writes reads back
//! equal, and where the types still derive `Deserialize`, both readers agree.

use std::collections::BTreeSet;

use super::samples::*;
use crate::bridge::channel;
use crate::bridge::json;
use crate::bridge::records::{SessionRecord, TaskRecord};
use crate::bridge::scope::Scope;
use crate::coord::wire::Msg;
use crate::engine::api::{ClientError, ErrorKind, Event};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::json::{json, Value};
use crate::protocol::model::{Dialect, TaskStatus};

#[test]
fn every_channel_message_reads_back_equal() {
    let all = msgs();
    let names: BTreeSet<String> = all.iter().map(msg_name).collect();
    // 7 plain messages, 10 operations, 9 kinds of event (three of them `done`).
    assert_eq!(names.len(), 26, "a sample for every variant: {names:?}");
    for m in all {
        let text = m.encode();
        assert_eq!(channel::decode(&text).as_ref(), Some(&m), "{text}");
    }
}

/// The hand-written writers of the channel's messages and the records write what the derives
/// write: the same members in the same order, the numbers spelled as the crate's writer spells
/// them (`5e28`, where serde_json writes `5e+28`).
#[test]
fn messages_and_records_are_written_as_the_derives_write_them() {
    fn derived<T: serde::Serialize>(t: &T) -> String {
        crate::json::text(&crate::json::parse(&serde_json::to_string(t).unwrap()).unwrap())
    }
    for m in msgs() {
        assert_eq!(m.encode(), derived(&m));
    }
    for r in records() {
        assert_eq!(r.text(), derived(&r));
    }
    let s = session_record();
    assert_eq!(s.text(), derived(&s));
}

#[test]
fn event_reader_agrees_with_the_derived_deserialize() {
    for e in events() {
        let v = to_value(&e).unwrap();
        let derived: Option<Event> = from_value(v.clone()).ok();
        assert_eq!(json::event(v), derived.clone(), "{e:?}");
        assert_eq!(derived, Some(e));
    }
    // Shapes the derive accepts that our writer never produces: absent optional members,
    // members in any order, unknown members.
    let v = json!({ "extra": 1, "task": { "status": "working", "taskId": "a" }, "sub": 1, "type": "status" });
    let derived: Option<Event> = from_value(v.clone()).ok();
    assert!(derived.is_some());
    assert_eq!(json::event(v), derived);
}

#[test]
fn snapshots_read_like_the_derives() {
    let snap = TaskSnapshot {
        task: full_task(TaskStatus::InputRequired),
        known: true,
        last_polled_at: Some(5),
        status_since: Some(4),
        next_poll_at: None,
        deadline: Some(u64::MAX),
        input_keys: vec!["k1".into(), "k0".into()],
    };
    let v = to_value(&snap).unwrap();
    assert_eq!(json::task_snapshot(v.clone()), Some(snap.clone()));
    assert_eq!(from_value::<TaskSnapshot>(v).ok(), Some(snap));
    let v = json!({ "task": { "taskId": "a", "status": "failed" }, "known": false });
    assert_eq!(
        json::task_snapshot(v.clone()),
        from_value::<TaskSnapshot>(v).ok()
    );

    let s = SessionSnapshot {
        dialect: Dialect::Draft,
        protocol_version: "2025-06-18".into(),
        session_id: Some("sid".into()),
        capabilities: json!({ "tasks": { "list": {} } }),
        server_info: Value::Null,
    };
    let v = to_value(&s).unwrap();
    assert_eq!(json::session_snapshot(v.clone()), Some(s.clone()));
    assert_eq!(from_value::<SessionSnapshot>(v).ok(), Some(s));
}

fn records() -> [TaskRecord; 2] {
    let scope = Scope::new("https://example.test/mcp", Some("user"));
    let minimal = TaskRecord::new(&scope, "t-9", 42);
    let mut full = TaskRecord::new(&scope, "t-1", 1);
    full.dialect = Some(Dialect::Modern);
    full.status = Some(TaskStatus::Completed);
    full.snapshot = Some(TaskSnapshot {
        task: full_task(TaskStatus::Completed),
        known: true,
        last_polled_at: None,
        status_since: None,
        next_poll_at: Some(3),
        deadline: None,
        input_keys: vec![],
    });
    full.answered_inputs = ["b".to_string(), "a".to_string()].into_iter().collect();
    full.fired = true;
    full.fired_at = Some(2);
    full.updated_at = 3;
    [minimal, full]
}

fn session_record() -> SessionRecord {
    SessionRecord {
        session: SessionSnapshot {
            dialect: Dialect::Legacy,
            protocol_version: "2025-11-25".into(),
            session_id: None,
            capabilities: json!({}),
            server_info: json!({ "name": "n" }),
        },
        saved_at: 9,
    }
}

#[test]
fn stored_records_read_back_equal() {
    for r in records() {
        let text = r.text();
        assert_eq!(TaskRecord::read(&text).as_ref(), Some(&r), "{text}");
    }
    // What an older writer left: no `answeredInputs` / `fired` (serde defaults), nulls for `None`.
    let old = r#"{"url":"u","identity":null,"taskId":"x","dialect":"legacy","snapshot":null,
        "status":"working","firedAt":null,"createdAt":1,"updatedAt":2}"#;
    let r = TaskRecord::read(old).unwrap();
    assert!(!r.fired && r.answered_inputs.is_empty() && r.status == Some(TaskStatus::Working));

    let s = session_record();
    assert_eq!(SessionRecord::read(&s.text()), Some(s));
}

#[test]
fn wrong_shapes_read_as_nothing() {
    for text in [
        "",
        "null",
        "[]",
        "{}",
        "{\"t\":\"nope\",\"from\":1}",
        "{\"t\":\"hello\",\"from\":\"1\",\"visible\":true}",
        "{\"t\":\"hello\",\"from\":-1,\"visible\":true}",
        "{\"t\":\"hello\",\"from\":1.5,\"visible\":true}",
        "{\"t\":\"hello\",\"from\":18446744073709551616,\"visible\":true}",
        "{\"t\":\"hello\",\"visible\":true}",
        "{\"t\":\"op\",\"from\":1,\"epoch\":1,\"id\":1,\"op\":{\"op\":\"answerInput\",\"id\":1,\"answer\":{\"Ok\":1,\"Err\":2}}}",
        "{\"t\":\"op\",\"from\":1,\"epoch\":1,\"id\":1,\"op\":{\"op\":\"callTool\",\"name\":\"x\",\"opts\":{}}}",
        "{\"t\":\"op\",\"from\":1,\"epoch\":1,\"id\":1,\"op\":{\"op\":\"callTool\",\"name\":\"x\",\"arguments\":{},\"opts\":{\"augment\":\"sometimes\"}}}",
        "{\"t\":\"ev\",\"to\":null,\"epoch\":1,\"event\":{\"type\":\"status\",\"sub\":1,\"task\":{\"taskId\":\"a\",\"status\":\"busy\"}}}",
        "{\"t\":\"ev\",\"to\":null,\"epoch\":1,\"event\":{\"type\":\"done\",\"sub\":1,\"end\":{\"kind\":\"finished\",\"outcome\":{\"kind\":\"maybe\"}}}}",
        "{\"t\":\"leader\",\"from\":1,\"epoch\":1,\"hiddenMs\":0,\"session\":{\"dialect\":\"ancient\"}}",
        "{\"t\":\"hello\",\"from\":1,\"visible\":true",
    ] {
        assert_eq!(channel::decode(text), None, "{text}");
    }
    // Optional members: `null` and absence both read as `None`.
    assert_eq!(
        channel::decode("{\"t\":\"ev\",\"epoch\":1,\"event\":{\"type\":\"warning\",\"error\":{\"kind\":\"rpc\",\"message\":\"m\"}}}"),
        Some(Msg::Ev {
            to: None,
            epoch: 1,
            event: Event::Warning {
                task_id: None,
                error: ClientError::new(ErrorKind::Rpc, "m"),
            },
        })
    );
    assert_eq!(TaskRecord::read("{\"url\":\"u\"}"), None);
    assert_eq!(SessionRecord::read("[1]"), None);
}

/// A serde type's value, through serde_json's text (as the derives write it).
fn to_value<T: serde::Serialize + ?Sized>(t: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&serde_json::to_string(t)?)
}

/// A serde type as its derived `Deserialize` reads `v`.
fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&crate::json::text(&v))
}
