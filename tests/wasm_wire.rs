//! wasm-level tests of the hand-written JSON readers (`driver::json`, `wire::decode`, the stored
//! records) and of the JS ↔ JSON conversions (`js::convert`). Pure: no server, runs in Node
//! (`cargo test --target wasm32-unknown-unknown --test wasm_wire`) and in browsers alike.
//!
//! The readers replace derived `Deserialize` impls to keep the wasm small, so every test here
//! pins them to the derives' format: what `Serialize` writes reads back equal, and where the
//! engine's types still derive `Deserialize`, both readers agree.
#![cfg(target_arch = "wasm32")]

use std::collections::BTreeSet;

use js_sys::{Object, Reflect};
use mcp_task_client::driver::json;
use mcp_task_client::driver::persist::{Scope, SessionRecord, TaskRecord};
use mcp_task_client::driver::tabs::wire::{self, Msg, Op, SessionWire};
use mcp_task_client::engine::api::{
    Augment, CallOptions, ClientError, End, ErrorKind, Event, InputId, OpId, SubId,
};
use mcp_task_client::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use mcp_task_client::js::codes;
use mcp_task_client::js::convert::{from_js, to_js};
use mcp_task_client::json::{json, Value};
use mcp_task_client::protocol::auth::AuthChallenge;
use mcp_task_client::protocol::jsonrpc::{DecodeError, Id, Message, RpcError};
use mcp_task_client::protocol::model::{Dialect, InputRequest, Outcome, Task, TaskStatus};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

fn full_task(status: TaskStatus) -> Task {
    Task {
        task_id: "t-1".into(),
        status,
        status_message: Some("working \"hard\" \u{e9}\n".into()),
        created_at: Some("2026-01-01T00:00:00Z".into()),
        last_updated_at: Some("2026-01-01T00:00:01Z".into()),
        ttl_ms: Some(60_000),
        keep_alive_ms: Some(30_000),
        // Beyond 2^53, yet exact as a double: reads back equal through `JSON.parse` in JS.
        poll_interval_ms: Some(1 << 60),
        outcome: Some(Outcome::Result {
            result: json!({ "content": [{ "type": "text", "text": "hi" }], "n": 50000800000000000000000000000.0, "x": -1.5e-300 }),
        }),
        input_requests: vec![InputRequest {
            key: "k1".into(),
            method: "elicitation/create".into(),
            params: json!({ "message": "ok?", "requestedSchema": { "type": "object" } }),
        }],
    }
}

fn error(kind: ErrorKind) -> ClientError {
    ClientError {
        kind,
        message: "boom".into(),
        code: Some(-32_000),
        data: Some(json!({ "why": [1, 2.5, null] })),
        http_status: Some(401),
        auth: Some(Box::new(AuthChallenge {
            www_authenticate: Some("Bearer scope=\"a, b\"".into()),
            resource_metadata: Some("https://a/.well-known/oauth-protected-resource".into()),
            scope: Some("a, b".into()),
            error: Some("invalid_token".into()),
            error_description: None,
        })),
    }
}

fn rpc_error() -> RpcError {
    RpcError {
        code: -32602,
        message: "bad".into(),
        data: Some(json!("details")),
    }
}

fn events() -> Vec<Event> {
    let mut out = vec![
        Event::Connected {
            dialect: Dialect::Legacy,
            protocol_version: "2025-11-25".into(),
            server_info: json!({ "name": "s", "version": "1" }),
            capabilities: json!({ "tasks": {} }),
        },
        Event::Done {
            sub: SubId(7),
            task_id: None,
            end: End::Aborted,
        },
        Event::Done {
            sub: SubId(8),
            task_id: Some("t-1".into()),
            end: End::Finished {
                task: Some(full_task(TaskStatus::Completed)),
                outcome: Some(Outcome::Error { error: rpc_error() }),
            },
        },
        Event::Done {
            sub: SubId(9),
            task_id: None,
            end: End::Finished {
                task: None,
                outcome: None,
            },
        },
        Event::Input {
            id: InputId((1 << 53) - 1),
            task_id: Some("t-1".into()),
            request: InputRequest {
                key: "7".into(),
                method: "roots/list".into(),
                params: Value::Null,
            },
        },
        Event::Reply {
            op: OpId(3),
            result: Ok(json!({ "tasks": [] })),
        },
        Event::Reply {
            op: OpId(4),
            result: Err(ClientError::new(ErrorKind::Closed, "closed")),
        },
        Event::Warning {
            task_id: None,
            error: error(ErrorKind::Transport),
        },
        Event::Transition {
            task_id: "t-1".into(),
            from: None,
            to: TaskStatus::Submitted,
            at: 1_700_000_000_000,
        },
        Event::Transition {
            task_id: "t-1".into(),
            from: Some(TaskStatus::Working),
            to: TaskStatus::Expired,
            at: 0,
        },
    ];
    for s in TaskStatus::ALL {
        out.push(Event::Status {
            sub: SubId(1),
            task: full_task(s),
        });
        out.push(Event::Status {
            sub: SubId(2),
            task: Task::new("bare", s),
        });
    }
    for k in ErrorKind::ALL {
        out.push(Event::Done {
            sub: SubId(10),
            task_id: Some("t-2".into()),
            end: End::Failed { error: error(k) },
        });
    }
    out
}

fn ops() -> Vec<Op> {
    vec![
        Op::CallTool {
            name: "slow".into(),
            arguments: json!({ "ms": 10, "nested": { "a": [true, false] } }),
            opts: CallOptions {
                ttl_ms: Some(5_000),
                keep_alive_ms: Some(60_000),
                augment: Augment::Always,
                delete_on_done: true,
            },
        },
        Op::Request {
            method: "tools/list".into(),
            params: json!({}),
            opts: CallOptions::default(),
        },
        Op::Request {
            method: "x".into(),
            params: Value::Null,
            opts: CallOptions {
                augment: Augment::Never,
                ..CallOptions::default()
            },
        },
        Op::Watch {
            task_id: "t-1".into(),
        },
        Op::Unsubscribe { sub: SubId(4) },
        Op::Cancel {
            task_id: "t-1".into(),
        },
        Op::DeleteTask {
            task_id: "t-1".into(),
        },
        Op::AnswerInput {
            id: InputId(5),
            answer: Ok(json!({ "action": "accept" })),
        },
        Op::AnswerInput {
            id: InputId(6),
            answer: Err(rpc_error()),
        },
        Op::ListTasks { cursor: None },
        Op::ListTasks {
            cursor: Some("c2".into()),
        },
        Op::ListTools,
        Op::Forget {
            task_id: "t-1".into(),
        },
    ]
}

fn session() -> SessionWire {
    SessionWire {
        dialect: Dialect::Modern,
        protocol_version: "2026-07-28".into(),
        server_info: json!({ "name": "s" }),
        capabilities: json!({}),
    }
}

fn msgs() -> Vec<Msg> {
    let mut out = vec![
        Msg::Hello {
            from: 1,
            visible: true,
        },
        Msg::Leader {
            from: 2,
            epoch: (1 << 53) - 1,
            hidden_ms: 0,
            session: None,
            session_id: None,
        },
        Msg::Leader {
            from: 2,
            epoch: 3,
            hidden_ms: 61_000,
            session: Some(session()),
            session_id: Some("sid-1".into()),
        },
        Msg::Ack {
            to: 1,
            epoch: 3,
            id: 9,
        },
        Msg::Vis {
            from: 1,
            visible: false,
        },
        Msg::Online { from: 1 },
        Msg::Got {
            from: 2,
            epoch: 3,
            id: (1 << 53) - 1,
        },
        // Tab ids have 53 bits: every one is exact in a JS number.
        Msg::Bye {
            from: (1 << 53) - 1,
        },
    ];
    for (i, op) in ops().into_iter().enumerate() {
        out.push(Msg::Op {
            from: 1,
            epoch: 3,
            id: i as u64,
            op,
        });
    }
    for (i, event) in events().into_iter().enumerate() {
        out.push(Msg::Ev {
            to: (i % 2 == 0).then_some(1),
            epoch: 3,
            event,
        });
    }
    out
}

/// Exhaustive: a new variant fails to compile here until the samples (and the readers) know it.
fn msg_name(m: &Msg) -> String {
    match m {
        Msg::Hello { .. } => "hello".into(),
        Msg::Leader { .. } => "leader".into(),
        Msg::Op { op, .. } => match op {
            Op::CallTool { .. } => "op callTool",
            Op::Request { .. } => "op request",
            Op::Watch { .. } => "op watch",
            Op::Unsubscribe { .. } => "op unsubscribe",
            Op::Cancel { .. } => "op cancel",
            Op::DeleteTask { .. } => "op deleteTask",
            Op::AnswerInput { .. } => "op answerInput",
            Op::ListTasks { .. } => "op listTasks",
            Op::ListTools => "op listTools",
            Op::Forget { .. } => "op forget",
        }
        .into(),
        Msg::Ack { .. } => "ack".into(),
        Msg::Ev { event, .. } => match event {
            Event::Connected { .. } => "ev connected".into(),
            Event::Status { .. } => "ev status".into(),
            Event::Done { end, .. } => match end {
                End::Finished { .. } => "ev done finished",
                End::Aborted => "ev done aborted",
                End::Failed { .. } => "ev done failed",
            }
            .into(),
            Event::Input { .. } => "ev input".into(),
            Event::Reply { .. } => "ev reply".into(),
            Event::Warning { .. } => "ev warning".into(),
            Event::Transition { .. } => "ev transition".into(),
        },
        Msg::Vis { .. } => "vis".into(),
        Msg::Online { .. } => "online".into(),
        Msg::Got { .. } => "got".into(),
        Msg::Bye { .. } => "bye".into(),
    }
}

#[wasm_bindgen_test]
fn every_channel_message_reads_back_equal() {
    let all = msgs();
    let names: BTreeSet<String> = all.iter().map(msg_name).collect();
    // 7 plain messages, 10 operations, 9 kinds of event (three of them `done`).
    assert_eq!(names.len(), 26, "a sample for every variant: {names:?}");
    for m in all {
        let text = m.encode();
        assert_eq!(wire::decode(&text).as_ref(), Some(&m), "{text}");
    }
}

#[wasm_bindgen_test]
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

#[wasm_bindgen_test]
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

#[wasm_bindgen_test]
fn stored_records_read_back_equal() {
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
    for r in [minimal, full] {
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(TaskRecord::read(&text).as_ref(), Some(&r), "{text}");
    }
    // What an older writer left: no `answeredInputs` / `fired` (serde defaults), nulls for `None`.
    let old = r#"{"url":"u","identity":null,"taskId":"x","dialect":"legacy","snapshot":null,
        "status":"working","firedAt":null,"createdAt":1,"updatedAt":2}"#;
    let r = TaskRecord::read(old).unwrap();
    assert!(!r.fired && r.answered_inputs.is_empty() && r.status == Some(TaskStatus::Working));

    let s = SessionRecord {
        session: SessionSnapshot {
            dialect: Dialect::Legacy,
            protocol_version: "2025-11-25".into(),
            session_id: None,
            capabilities: json!({}),
            server_info: json!({ "name": "n" }),
        },
        saved_at: 9,
    };
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(SessionRecord::read(&text), Some(s));
}

#[wasm_bindgen_test]
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
        assert_eq!(wire::decode(text), None, "{text}");
    }
    // Optional members: `null` and absence both read as `None`.
    assert_eq!(
        wire::decode("{\"t\":\"ev\",\"epoch\":1,\"event\":{\"type\":\"warning\",\"error\":{\"kind\":\"rpc\",\"message\":\"m\"}}}"),
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

#[wasm_bindgen(inline_js = r#"
export function own(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
"#)]
extern "C" {
    fn own(obj: &JsValue, key: &str) -> bool;
}

fn get(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

/// What the JS client hands over of a JS value: the JSON text its `json` writes (tested on its own
/// in `tests/js/node/json.test.mjs`).
#[wasm_bindgen(module = "/src/js/npm/client.js")]
extern "C" {
    #[wasm_bindgen(js_name = json)]
    fn text_of(v: &JsValue) -> JsValue;
}

// The modules `client.js` imports, named so that they are copied beside it.
#[wasm_bindgen(module = "/src/js/npm/extras.js")]
extern "C" {
    type McpTaskError;
}
#[wasm_bindgen(module = "/src/js/npm/handle.js")]
extern "C" {
    type TaskHandle;
}

#[wasm_bindgen_test]
fn json_text_is_read() {
    assert_eq!(from_js(&JsValue::UNDEFINED), None);
    assert_eq!(from_js(&JsValue::from_str("{")), None);
    let text = JsValue::from_str(r#"{"a":[1,-2,1.5,18446744073709551615,null,true,"x"]}"#);
    assert_eq!(
        from_js(&text),
        Some(json!({ "a": [1, -2, 1.5, u64::MAX, null, true, "x"] }))
    );
}

#[wasm_bindgen_test]
fn json_values_become_plain_js_objects() {
    let v = json!({ "__proto__": { "polluted": true }, "list": [1, "two", null, { "x": 2.5 }], "big": u64::MAX });
    let js = to_js(&v);
    assert!(own(&js, "__proto__"), "an own property, not the prototype");
    assert!(get(&Object::new().into(), "polluted").is_undefined());
    let back = from_js(&text_of(&js)).unwrap();
    assert_eq!(back["list"], v["list"]);
    assert_eq!(back["__proto__"], v["__proto__"]);
    assert_eq!(back["big"].as_f64(), Some(u64::MAX as f64));
    let task = full_task(TaskStatus::Working);
    let expected = to_value(&task).unwrap();
    assert_eq!(from_js(&text_of(&to_js(&task))), Some(expected));
}

/// Reads `text` as a JSON-RPC message, as the engine does with what the server sends.
fn decode(text: &str) -> Result<Message, DecodeError> {
    Message::decode_str(text, 1 << 20)
}

/// Numbers as `JSON.parse` reads them (the host's `Number()` for fractions and exponents, an
/// integral double as an integer), integers exactly.
#[wasm_bindgen_test]
fn numbers_read_as_the_host_reads_them() {
    let text = "[1.5, 1e3, 2.0, -0, -2.5e-3, 1e400, 18446744073709551616, 9007199254740993, -9223372036854775808]";
    assert_eq!(
        mcp_task_client::json::parse(text).unwrap(),
        json!([
            1.5,
            1000,
            2,
            0,
            -0.0025,
            null,
            1.844_674_407_370_955_2e19,
            9_007_199_254_740_993u64,
            i64::MIN
        ])
    );
}

#[wasm_bindgen_test]
fn ids_beyond_2_pow_53_round_trip_exactly() {
    for id in [
        (1i64 << 53) + 1,
        -(1i64 << 53) - 1,
        i64::MAX,
        i64::MIN,
        1_234_567_890_123_456_789,
    ] {
        let text = format!(
            r#"{{"params":{{"id":1.5,"n":{id}}},"jsonrpc":"2.0", "id" :{id},"method":"elicitation/create"}}"#
        );
        let m = decode(&text).unwrap();
        let Message::Request {
            id: got, params, ..
        } = &m
        else {
            panic!("{m:?}")
        };
        assert_eq!(got, &Id::Number(id), "{text}");
        // Numbers inside params are JS numbers: only the id is read again from the text.
        assert_eq!(params.as_ref().unwrap()["id"], json!(1.5));
        assert_eq!(decode(&m.encode()).unwrap(), m);
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        assert!(
            matches!(decode(&answer), Ok(Message::Response { id: Id::Number(n), .. }) if n == id)
        );
    }
    // As natively: beyond i64 an id is refused, a string id is kept as written.
    assert!(decode(r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#).is_err());
    let m = decode(r#"{"jsonrpc":"2.0","id":"9007199254740993","result":{}}"#).unwrap();
    assert!(matches!(m, Message::Response { id: Id::String(s), .. } if s == "9007199254740993"));
}

#[wasm_bindgen_test]
fn floats_read_as_the_nearest_double() {
    let texts = [
        "0.1",
        "-0.30000000000000004",
        "1e300",
        "5e-324",
        "1.7976931348623157e308",
        "123456789.123456789",
        "2.2250738585072011e-308",
        "9007199254740993",
        "1e23",
    ];
    for text in texts {
        let ours = mcp_task_client::json::parse(text).unwrap();
        let exact: f64 = text.parse().unwrap();
        assert_eq!(ours.as_f64(), Some(exact), "{text}");
    }
    // JS does not tell 1.0 from 1: an integral float reads as an integer.
    assert_eq!(
        mcp_task_client::json::parse("[1.0, -2e0]").unwrap(),
        json!([1, -2])
    );
}

#[wasm_bindgen_test]
fn unicode_and_escapes_read_like_serde_json() {
    let text = r#"{"a":"é\u00e9 \ud83d\ude00😀","b\"\\":"\n\t\u0000","ключ":["日本語"]}"#;
    let ours = mcp_task_client::json::parse(text).unwrap();
    let reference: Value = serde_json::from_str(text).unwrap();
    assert_eq!(ours, reference);
    // A lone surrogate (which serde_json refuses) becomes U+FFFD rather than a panic.
    let lone = mcp_task_client::json::parse(r#""\ud800x""#).unwrap();
    assert_eq!(lone, json!("\u{fffd}x"));
}

#[wasm_bindgen_test]
fn what_is_not_json_is_an_error() {
    for text in ["", "{", "[1,]", "{'a':1}", "NaN", "01", "\"\\x\""] {
        assert!(mcp_task_client::json::parse(text).is_err(), "{text:?}");
    }
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    assert!(mcp_task_client::json::parse(&deep).is_err());
    assert!(matches!(decode("[1]"), Err(DecodeError::Batch)));
}

/// A serde type's value, through serde_json's text (as the derives write it).
fn to_value<T: serde::Serialize + ?Sized>(t: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&serde_json::to_string(t)?)
}

/// A serde type as its derived `Deserialize` reads `v`.
fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&mcp_task_client::json::text(&v))
}

/// Every `const NAME = n` client.js declares at its top level (names in capitals, numbers only).
fn js_codes() -> Vec<(String, u8)> {
    let source = include_str!("../src/js/npm/client.js");
    let declarations = source.lines().filter_map(|l| l.strip_prefix("const "));
    let mut codes: Vec<(String, u8)> = declarations
        .flat_map(|l| l.trim_end_matches(';').split(", "))
        .filter_map(|d| {
            let (name, value) = d.split_once(" = ")?;
            let capitals = name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
            Some((name.to_owned(), value.parse().ok().filter(|_| capitals)?))
        })
        .collect();
    codes.sort();
    codes
}

#[wasm_bindgen_test]
fn client_js_spells_every_code_as_rust_defines_it() {
    let mut rust: Vec<(String, u8)> = [codes::HEARD, codes::CALLS, codes::ASKS]
        .concat()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
    rust.sort();
    assert_eq!(js_codes(), rust);
}
