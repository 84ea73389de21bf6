//! Compact JSON text of a value, written by hand: serde's serializer (one instance per type,
//! plus its float and integer formatters) would otherwise be the binary's largest library code.

use super::{Number, Value};
use crate::json::digits::{decimal, hex, push_signed};

/// The compact JSON text of `value`: no whitespace, object members in the value's order, strings
/// escaped as RFC 8259 requires (the two-character escapes where there is one), integers exact.
pub fn text(value: &Value) -> String {
    let mut out = String::new();
    push_value(&mut out, value);
    out
}

/// Appends the JSON text of `value` (see [`text`]).
pub fn push_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_number(out, n),
        Value::String(s) => push_quoted(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_quoted(out, key);
                out.push(':');
                push_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Appends `text` as a JSON string.
pub fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    let mut plain = 0;
    for (i, b) in text.bytes().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.push_str(text.get(plain..i).unwrap_or_default());
        plain = i + 1;
        out.push('\\');
        // The two-character escape where there is one, else `\u00XX`.
        match super::escape_letter(b) {
            Some(letter) => out.push(char::from(letter)),
            None => {
                out.push('u');
                out.push_str(&hex(u64::from(b), 4));
            }
        }
    }
    out.push_str(text.get(plain..).unwrap_or_default());
    out.push('"');
}

/// Appends a number: an integer exactly, a float so that `JSON.parse` reads the same double.
fn push_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64() {
        out.push_str(&decimal(u));
    } else if let Some(i) = n.as_i64() {
        push_signed(out, i);
    } else if let Some(f) = n.as_f64() {
        push_float(out, f);
    }
}

/// A finite double as the host's `String(n)` writes it (the shortest text that reads back as
/// `n`; an exponent as `e+21`), which JSON accepts.
#[cfg(target_arch = "wasm32")]
fn push_float(out: &mut String, f: f64) {
    #[wasm_bindgen::prelude::wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = String)]
        fn number_text(n: f64) -> String;
    }
    out.push_str(&number_text(f));
}

/// A finite double as the shortest text that reads back as `n` (`{:?}`: `1.5`, `1e300`).
#[cfg(not(target_arch = "wasm32"))]
fn push_float(out: &mut String, f: f64) {
    out.push_str(&format!("{f:?}"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;
    use proptest::prelude::*;

    #[test]
    fn writes_compact_text() {
        let v =
            json!({ "b": [1, -2, 2.5, null, true, false], "a": { "x": "y" }, "c": [] , "d": {} });
        assert_eq!(text(&v), serde_json::to_string(&v).unwrap());
        assert_eq!(text(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(text(&json!(i64::MIN)), "-9223372036854775808");
        assert_eq!(text(&json!(9_007_199_254_740_993u64)), "9007199254740993");
    }

    #[test]
    fn escapes_as_serde_json() {
        let s = "q\"b\\s/\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é😀";
        assert_eq!(text(&json!(s)), serde_json::to_string(s).unwrap());
        assert_eq!(
            text(&json!(s)),
            r#""q\"b\\s/\n\r\t\b\f\u0000\u001f"#.to_owned() + "\u{7f}é😀\""
        );
    }

    proptest! {
        /// Any string reads back as itself, written as serde_json writes it.
        #[test]
        fn strings_round_trip(s in any::<String>()) {
            let t = text(&json!(s));
            prop_assert_eq!(&t, &serde_json::to_string(&s).unwrap());
        }

        /// Any finite double reads back as the same double.
        #[test]
        fn floats_round_trip(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
            let t = text(&json!(f));
            let back: f64 = serde_json::from_str(&t).unwrap();
            prop_assert_eq!(back, f);
        }
    }
}
