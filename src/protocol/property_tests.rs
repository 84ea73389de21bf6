//! Property tests: arbitrary bytes and arbitrary JSON never panic the SSE decoder,
//! `Message::decode` or any dialect `parse_*`, and SSE decoding does not depend on chunking.
//! The checks themselves live in [`super::fuzz_entry`], shared with the fuzz targets.

use crate::json::{Map, Number, Value};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;

use super::fuzz_entry;
use super::jsonrpc::{DecodeError, Message, RpcError};
use super::model::Dialect;
use super::sse::DEFAULT_LIMIT;

const DIALECTS: [Dialect; 3] = [Dialect::Modern, Dialect::Legacy, Dialect::Draft];

/// Field names the parsers look at, so generated objects reach past the first checks.
const KEYS: &[&str] = &[
    "taskId",
    "status",
    "statusMessage",
    "createdAt",
    "lastUpdatedAt",
    "ttl",
    "ttlMs",
    "keepAlive",
    "pollInterval",
    "pollIntervalMs",
    "pollFrequency",
    "result",
    "error",
    "inputRequests",
    "resultType",
    "requestState",
    "task",
    "tasks",
    "nextCursor",
    "_meta",
    "method",
    "params",
    "code",
    "message",
    "data",
    "jsonrpc",
    "id",
    "io.modelcontextprotocol/related-task",
    "modelcontextprotocol.io/related-task",
];

/// String values the parsers branch on.
const WORDS: &[&str] = &[
    "submitted",
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
    "unknown",
    "task",
    "complete",
    "2.0",
    "elicitation/create",
    "2025-11-25T10:30:00Z",
    "",
];

fn arb_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        Just(Value::from(1e300)),
        Just(Value::from(-0.5)),
    ]
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(WORDS).prop_map(str::to_owned),
        any::<String>()
    ]
}

fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![3 => proptest::sample::select(KEYS).prop_map(str::to_owned), 1 => any::<String>()]
}

/// Arbitrary JSON, biased towards the shapes the dialects read.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number(),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(arb_key(), inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A task-shaped object: usually a valid id and status, plus known keys with plausible or
/// arbitrary values, sometimes nested under `task`.
fn arb_task_like() -> impl Strategy<Value = Value> {
    let value = || prop_oneof![3 => arb_string().prop_map(Value::String), 2 => arb_number(), 1 => arb_json()];
    let id = prop_oneof![4 => arb_string().prop_map(Value::String), 1 => value()];
    let status = prop_oneof![
        4 => proptest::sample::select(&WORDS[..7]).prop_map(Value::from),
        1 => value(),
    ];
    let extra = vec((proptest::sample::select(KEYS), value()), 0..10);
    (id, status, extra, any::<bool>()).prop_map(|(id, status, extra, nest)| {
        let mut obj: Map<String, Value> =
            extra.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        obj.entry("taskId").or_insert(id);
        obj.entry("status").or_insert(status);
        if nest {
            let mut outer = Map::new();
            outer.insert("task".into(), Value::Object(obj));
            Value::Object(outer)
        } else {
            Value::Object(obj)
        }
    })
}

/// A byte stream made of SSE tokens and arbitrary bytes.
fn arb_sse_stream() -> impl Strategy<Value = Vec<u8>> {
    const TOKENS: &[&[u8]] = &[
        b"data:",
        b"data: ",
        b"id:",
        b"id: ",
        b"event:",
        b"retry:",
        b"retry: 250",
        b":",
        b" ",
        b"\n",
        b"\r",
        b"\r\n",
        b"\n\n",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB",
        b"\0",
        b"1",
        b"{\"a\":1}",
        "é✓🎉".as_bytes(),
        b"\xF0\x9F",
        b"\xFF",
    ];
    let piece = prop_oneof![
        3 => proptest::sample::select(TOKENS).prop_map(<[u8]>::to_vec),
        1 => vec(any::<u8>(), 0..6),
    ];
    vec(piece, 0..48).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn sse_is_chunking_invariant(
        stream in arb_sse_stream(),
        cuts in vec(0usize..400, 0..24),
        small_limit in prop::option::of(0usize..48),
    ) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        let limit = small_limit.unwrap_or(DEFAULT_LIMIT);
        prop_assert_eq!(fuzz_entry::sse_chunked(&stream, &cuts, limit), Ok(()));
    }

    #[test]
    fn sse_arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..512)) {
        prop_assert_eq!(fuzz_entry::sse(&bytes), Ok(()));
    }

    #[test]
    fn message_decode_arbitrary_bytes(bytes in vec(any::<u8>(), 0..256)) {
        prop_assert_eq!(fuzz_entry::jsonrpc(&bytes), Ok(()));
    }

    #[test]
    fn message_decode_arbitrary_json_round_trips(value in arb_json()) {
        prop_assert_eq!(fuzz_entry::jsonrpc(value.to_string().as_bytes()), Ok(()));
    }

    #[test]
    fn message_decode_envelopes_round_trip(
        id in prop::option::of(arb_json()),
        method in prop::option::of(arb_json()),
        result in prop::option::of(arb_json()),
        error in prop::option::of(arb_task_like()),
    ) {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), Value::from("2.0"));
        for (key, value) in [("id", id), ("method", method), ("result", result), ("error", error)] {
            if let Some(value) = value {
                obj.insert(key.into(), value);
            }
        }
        prop_assert_eq!(fuzz_entry::jsonrpc(Value::Object(obj).to_string().as_bytes()), Ok(()));
    }

    #[test]
    fn message_decode_reads_like_the_value_way(
        id in prop::option::of(arb_json()),
        method in prop::option::of(arb_json()),
        params in prop::option::of(arb_json()),
        result in prop::option::of(arb_json()),
        error in prop::option::of(arb_task_like()),
        jsonrpc in prop::option::of(arb_json()),
        twice in prop::option::of(0usize..6),
    ) {
        // Members in order, `jsonrpc` usually "2.0", sometimes one member twice.
        let jsonrpc = jsonrpc.unwrap_or_else(|| Value::from("2.0"));
        let members = [("jsonrpc", Some(jsonrpc)), ("id", id), ("method", method),
            ("params", params), ("result", result), ("error", error)];
        let mut parts: Vec<String> = members
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{}:{v}", Value::from(*k))))
            .collect();
        if let Some(i) = twice.filter(|i| *i < parts.len()) {
            let again = parts[i].clone();
            parts.push(again);
        }
        let text = format!(" {{{}}}", parts.join(","));
        let value_way = serde_json::from_str::<Value>(&text)
            .map_err(|e| DecodeError::Json(e.to_string()))
            .and_then(Message::from_value);
        prop_assert_eq!(Message::decode(text.as_bytes(), usize::MAX), value_way.clone());
        prop_assert_eq!(Message::decode_str(&text, usize::MAX), value_way);
    }

    #[test]
    fn rpc_error_to_value_is_what_serialize_writes(
        code in any::<i64>(),
        message in ".{0,8}",
        data in prop::option::of(arb_json()),
    ) {
        let error = RpcError { code, message, data };
        prop_assert_eq!(Some(error.to_value()), crate::json::to_value(&error).ok());
    }

    #[test]
    fn object_is_what_json_writes(a in arb_json(), b in arb_json()) {
        let ours = super::object([("a", a.clone()), ("b", b.clone()), ("a", b.clone())]);
        prop_assert_eq!(ours, crate::json::json!({ "a": a, "b": b, "a": b }));
    }

    #[test]
    fn dialect_parsers_take_arbitrary_json(value in arb_json()) {
        for d in DIALECTS {
            prop_assert_eq!(fuzz_entry::dialect_value(d, &value), Ok(()));
        }
    }

    #[test]
    fn dialect_parsers_take_task_like_objects(value in arb_task_like()) {
        for d in DIALECTS {
            prop_assert_eq!(fuzz_entry::dialect_value(d, &value), Ok(()));
        }
    }

    #[test]
    fn dialect_parsers_take_arbitrary_bytes(bytes in vec(any::<u8>(), 0..256)) {
        for d in DIALECTS {
            prop_assert_eq!(fuzz_entry::dialect(d, &bytes), Ok(()));
        }
    }
}

#[test]
fn task_like_strategy_reaches_successful_parses() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    use super::dialect::LEGACY;
    // Guard against a strategy that only ever produces rejected input.
    let mut runner = TestRunner::deterministic();
    let strategy = arb_task_like();
    let parsed = (0..2000)
        .filter_map(|_| strategy.new_tree(&mut runner).ok())
        .filter(|tree| LEGACY.parse_get(tree.current()).is_ok())
        .count();
    assert!(parsed > 200, "only {parsed} task-like values parsed");
}

#[test]
fn decode_refuses_oversized_input_before_parsing() {
    assert_eq!(
        Message::decode(b"{}", 1),
        Err(DecodeError::TooLarge { len: 2, limit: 1 })
    );
}

#[test]
fn decode_accepts_integral_float_ids_and_codes() {
    let m = Message::decode(
        br#"{"jsonrpc":"2.0","id":3.0,"error":{"code":-32602.0,"message":"x"}}"#,
        1024,
    );
    assert!(
        matches!(m, Ok(Message::Error { id: Some(super::jsonrpc::Id::Number(3)), ref error }) if error.code == -32602)
    );
    let m = Message::decode(br#"{"jsonrpc":"2.0","id":3.5,"result":{}}"#, 1024);
    assert_eq!(m, Err(DecodeError::NotJsonRpc("id is not an integer")));
}

#[test]
fn decode_keeps_floats_exact_through_a_round_trip() {
    // Found by the jsonrpc fuzz target: without serde_json's `float_roundtrip` this number came
    // back as 5.000079999999999e28 after decode → encode → decode.
    let input = br#"{"jsonrpc":"2.0","id":1,"result":{"n":50000800000000000000000000000}}"#;
    assert_eq!(fuzz_entry::jsonrpc(input), Ok(()));
}
