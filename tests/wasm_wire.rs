//! wasm-level tests of JSON in the host: the JS ↔ JSON conversions (`js::convert`), numbers read
//! through the host's `Number()`, and the codes the JS client shares with Rust. Pure: no server,
//! runs in Node (`cargo test --target wasm32-unknown-unknown --test wasm_wire`) and in browsers
//! alike. The readers of the package's own JSON are target-independent and tested natively
//! (`bridge::tests`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Object, Reflect};
use mcp_task_client::js::codes;
use mcp_task_client::js::convert::{from_js, to_js};
use mcp_task_client::json::{json, Value};
use mcp_task_client::protocol::jsonrpc::{DecodeError, Id, Message};
use mcp_task_client::protocol::model::{Outcome, Task, TaskStatus};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

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
    let task = Task {
        // Beyond 2^53, yet exact as a double: reads back equal through `JSON.parse` in JS.
        poll_interval_ms: Some(1 << 60),
        outcome: Some(Outcome::Result {
            result: json!({ "n": 50000800000000000000000000000.0, "x": -1.5e-300 }),
        }),
        ..Task::new("t-1", TaskStatus::Working)
    };
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
