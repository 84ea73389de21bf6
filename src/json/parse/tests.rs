use super::*;
use crate::json::{json, text, Number};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;

/// serde_json's reading of `text` through the crate's `Deserialize` for `Value`.
fn serde(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text)
}

#[test]
fn reads_every_kind() {
    let text =
        r#" { "a" : [ 1 , -2 , 2.5 , null , true , false ] , "b" : { } , "c" : [ ] , "d" : "x" } "#;
    let expected = json!({ "a": [1, -2, 2.5, null, true, false], "b": {}, "c": [], "d": "x" });
    assert_eq!(parse(text).unwrap(), expected);
    assert_eq!(serde(text).unwrap(), expected);
    assert_eq!(parse("\t\r\n0\n").unwrap(), json!(0));
}

#[test]
fn integers_are_exact() {
    for n in [
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        "0",
        "-1",
    ] {
        assert_eq!(parse(n).unwrap(), serde(n).unwrap(), "{n}");
    }
    assert_eq!(
        parse(r#"{"id":9007199254740993}"#).unwrap()["id"],
        json!(9_007_199_254_740_993u64)
    );
    assert_eq!(
        parse("[-9223372036854775807]").unwrap(),
        json!([i64::MIN + 1])
    );
}

#[test]
fn other_numbers_are_doubles() {
    assert_eq!(parse("2.5").unwrap(), json!(2.5));
    assert_eq!(parse("-1.5e-3").unwrap(), json!(-0.0015));
    assert_eq!(parse("1E2").unwrap(), serde("1E2").unwrap());
    // Beyond u64 and i64: the nearest double, as serde_json and `JSON.parse` read it.
    assert_eq!(
        parse("18446744073709551616").unwrap(),
        json!(1.8446744073709552e19)
    );
    assert_eq!(
        parse("-9223372036854775809").unwrap(),
        json!(-9.223372036854776e18)
    );
    // Beyond the doubles: no number (JSON.parse reads Infinity, which JSON cannot spell).
    assert_eq!(parse("1e400").unwrap(), Value::Null);
    // `-0` is the integer 0, as `JSON.parse` and the host read it.
    assert_eq!(parse("-0").unwrap(), json!(0));
}

#[test]
fn decodes_escapes() {
    let text = r#""q\"b\\s\/\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00 é😀""#;
    let expected = "q\"b\\s/\u{8}\u{c}\n\r\t\u{41}é€😀 é😀";
    assert_eq!(parse(text).unwrap(), json!(expected));
    assert_eq!(serde(text).unwrap(), json!(expected));
}

#[test]
fn a_lone_surrogate_is_the_replacement_character() {
    assert_eq!(parse(r#""\ud800""#).unwrap(), json!("\u{FFFD}"));
    assert_eq!(parse(r#""\udc00x""#).unwrap(), json!("\u{FFFD}x"));
    // A high surrogate followed by another escape: that escape stands on its own.
    assert_eq!(parse(r#""\ud800\n""#).unwrap(), json!("\u{FFFD}\n"));
    assert_eq!(
        parse(r#""\ud800\ud83d\ude00""#).unwrap(),
        json!("\u{FFFD}😀")
    );
    assert_eq!(parse(r#""\ud800\u0041""#).unwrap(), json!("\u{FFFD}A"));
}

#[test]
fn a_repeated_key_keeps_its_place_and_its_last_value() {
    let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
    assert_eq!(v, json!({ "a": 3, "b": 2 }));
    assert_eq!(text(&v), r#"{"a":3,"b":2}"#);
}

#[test]
fn refuses_what_is_not_json() {
    for bad in [
        "",
        " ",
        "nul",
        "tru",
        "True",
        "01",
        "-",
        "+1",
        "1.",
        ".5",
        "1e",
        "1e+",
        "0x1",
        "-a",
        "[1,]",
        "[1 2]",
        "[",
        "{",
        "{,}",
        r#"{"a"}"#,
        r#"{"a":}"#,
        r#"{"a":1,}"#,
        "{a:1}",
        r#"{"a" 1}"#,
        r#""abc"#,
        "\"a\u{1}\"",
        r#""\x""#,
        r#""\u12""#,
        r#""\u12g4""#,
        r#""\"#,
        "1 2",
        "[]]",
        "{}x",
        "NaN",
        "Infinity",
        "\u{feff}1",
        "'a'",
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
        assert!(serde(bad).is_err(), "{bad:?} (serde_json)");
    }
}

#[test]
fn says_what_and_where() {
    assert_eq!(parse("[1,]").unwrap_err(), "unexpected input at byte 3");
    assert_eq!(parse("{} x").unwrap_err(), "unexpected input at byte 3");
    assert_eq!(parse(r#""ab"#).unwrap_err(), "unexpected input at byte 1");
}

#[test]
fn nesting_is_bounded() {
    let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert!(parse(&nested(513)).is_ok());
    assert_eq!(
        parse(&nested(514)).unwrap_err(),
        "nested too deeply at byte 513"
    );
    let deep = "[".repeat(100_000);
    assert!(parse(&deep).is_err());
}

fn arb_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number(),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Text made of JSON's tokens and a few other characters, mostly not JSON.
fn arb_jsonish() -> impl Strategy<Value = String> {
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"",
        "\"a\"",
        "\"\\u00e9\"",
        "\\",
        "\\n",
        "\\u",
        "d83d",
        "de00",
        "0",
        "1",
        "9",
        "-",
        "+",
        ".",
        "e",
        "E",
        " ",
        "\n",
        "null",
        "true",
        "fals",
        "x",
        "é",
        "1.5",
        "18446744073709551616",
    ];
    vec(proptest::sample::select(TOKENS), 0..24).prop_map(|t| t.concat())
}

proptest! {
    /// Any value's text (compact, and serde_json's pretty text) reads back as the value, as
    /// serde_json reads it.
    #[test]
    fn round_trips_as_serde_json(v in arb_value()) {
        let compact = text(&v);
        prop_assert_eq!(parse(&compact).unwrap(), v.clone());
        prop_assert_eq!(serde(&compact).unwrap(), v.clone());
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        prop_assert_eq!(parse(&pretty).unwrap(), v);
    }

    /// Whatever the text, the same verdict and the same value as serde_json, but for what it
    /// reads otherwise: `-0` (an integer here, a float there), a lone surrogate and a number
    /// beyond the doubles such as `1e18446744073709551616` (refused there; `null` here, as
    /// `JSON.parse` reads it as `Infinity`, which JSON text cannot hold).
    #[test]
    fn agrees_with_serde_json(s in arb_jsonish()) {
        match (parse(&s), serde(&s)) {
            (Ok(ours), Ok(theirs)) if !s.contains("-0") => prop_assert_eq!(ours, theirs),
            (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => {
                let e = e.to_string();
                prop_assert!(e.contains("surrogate") || e.contains("number out of range"), "{s:?}: {e}");
            }
            (Err(e), Ok(_)) => prop_assert!(false, "{s:?}: {e}"),
        }
    }
}
