//! JSON below every room: the crate's own [`Value`] (with `json!` and the [`ToJson`] forms of
//! the types JS receives), its compact text ([`text`]), and reading JSON text, the one host
//! service below the driver. On wasm the host's `JSON.parse` reads it (the binary then carries no
//! JSON parser and no float tables of its own); natively serde_json does. Both give the same
//! `Value` for what the client reads: `JSON.parse` turns every number into an `f64`, so integers
//! beyond 2^53 lose digits there, and the one place where that matters, a top-level JSON-RPC
//! `id`, is read again from the text.

#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
pub use host::from_js;
pub mod digits;
mod literal;
mod serde_impls;
mod to_json;
mod value;
mod write;
pub use literal::json;
pub use to_json::{Object, ToJson};
pub use value::{Entry, Map, Number, Value};
pub use write::{push_quoted, push_value, text};

/// Parses JSON text into a value; the error says why it is not JSON.
#[cfg(not(target_arch = "wasm32"))]
pub fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str::<Value>(text).map_err(|e| e.to_string())
}

/// Parses JSON text into a value; the error says why it is not JSON.
#[cfg(target_arch = "wasm32")]
pub fn parse(text: &str) -> Result<Value, String> {
    let mut value = host::parse(text)?;
    exact_id(text, &mut value);
    Ok(value)
}

/// A serde type's value, through serde_json's text (for tests comparing with derived impls).
#[cfg(test)]
pub fn to_value<T: serde::Serialize + ?Sized>(t: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&serde_json::to_string(t)?)
}

/// A serde type read from a value, through serde_json's text (for tests).
#[cfg(test)]
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&text(&v))
}

/// Replaces a top-level `id` beyond ±2^53 by the integer its text spells, if it spells one
/// (`JSON.parse` reads `9007199254740993` as `9007199254740992`).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn exact_id(text: &str, value: &mut Value) {
    const TWO_POW_53: f64 = 9_007_199_254_740_992.0;
    let Some(Value::Number(n)) = value.get_mut("id") else {
        return;
    };
    if n.as_f64().is_none_or(|f| f.abs() < TWO_POW_53) {
        return;
    }
    let Some(literal) = top_level_number(text, "id") else {
        return;
    };
    if let Some(i) = parse_i64(literal) {
        *n = i.into();
    } else if let Ok(u) = literal.parse::<u64>() {
        *n = u.into();
    }
}

/// The integer a decimal text spells, read as `str::parse::<i64>` reads it (an optional sign,
/// then digits) by the unsigned parser, the one the binary carries.
pub fn parse_i64(text: &str) -> Option<i64> {
    match text.strip_prefix("-") {
        Some(digits) if !digits.starts_with("+") => {
            0i64.checked_sub_unsigned(digits.parse::<u64>().ok()?)
        }
        Some(_) => None,
        None => i64::try_from(text.parse::<u64>().ok()?).ok(),
    }
}

/// The text of the number given to `key` in the top-level object of valid JSON `text`: the
/// last one, as a parser keeps the last of repeated keys. Keys are compared as written (a key
/// spelled with escapes does not match).
fn top_level_number<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let bytes = text.as_bytes();
    let mut depth = 0u32;
    // Inside a string: where its content starts, and whether the last byte was a backslash.
    let mut string: Option<(usize, bool)> = None;
    // The last token was a string at depth 1 equal to `key`.
    let mut after_key = false;
    let mut found = None;
    for (i, &c) in bytes.iter().enumerate() {
        if let Some((start, escaped)) = string {
            string = match c {
                _ if escaped => Some((start, false)),
                b'\\' => Some((start, true)),
                b'"' => {
                    after_key = depth == 1 && text.get(start..i) == Some(key);
                    None
                }
                _ => Some((start, false)),
            };
            continue;
        }
        match c {
            b'"' => string = Some((i + 1, false)),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b':' if after_key => found = text.get(i + 1..).map(number_at),
            _ => {}
        }
        if !c.is_ascii_whitespace() && c != b'"' {
            after_key = false;
        }
    }
    found.filter(|n| !n.is_empty())
}

/// The number literal at the start of `rest` (after whitespace); empty if there is none.
fn number_at(rest: &str) -> &str {
    let rest = rest.trim_ascii_start();
    let end = (rest.bytes())
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(rest.len());
    rest.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;
    use proptest::prelude::*;

    #[test]
    fn finds_the_top_level_id_only() {
        let text = r#"{"params":{"id":1},"x":"id","id" : 9007199254740993,"y":[{"id":2}]}"#;
        assert_eq!(top_level_number(text, "id"), Some("9007199254740993"));
        assert_eq!(top_level_number(r#"{"a":{"id":1}}"#, "id"), None);
        assert_eq!(top_level_number(r#"{"a":"id","b":"\"id\":3"}"#, "id"), None);
        assert_eq!(top_level_number(r#"{"id":"7"}"#, "id"), None);
        assert_eq!(
            top_level_number(r#"{"id":1,"id":-2e3}"#, "id"),
            Some("-2e3")
        );
        assert_eq!(top_level_number(r#"["id",1]"#, "id"), None);
    }

    #[test]
    fn a_float_id_becomes_the_integer_it_spells() {
        let text = r#"{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}"#;
        let mut v = json!({ "jsonrpc": "2.0", "id": 9_223_372_036_854_775_808u64, "result": {} });
        exact_id(text, &mut v);
        assert_eq!(v["id"], json!(i64::MAX));
        let text = r#"{"id":18446744073709551615}"#;
        let mut v = json!({ "id": 1.844_674_407_370_955_2e19 });
        exact_id(text, &mut v);
        assert_eq!(v["id"], json!(u64::MAX));
        let mut v = json!({ "id": 9_007_199_254_740_992u64 });
        exact_id(r#"{"id":-9007199254740993}"#, &mut v);
        assert_eq!(v["id"], json!(-9_007_199_254_740_993i64));
        let mut v = json!({ "id": 1e300 });
        exact_id(r#"{"id":1e300}"#, &mut v);
        assert_eq!(v["id"], json!(1e300));
    }

    #[test]
    fn parse_i64_reaches_both_ends() {
        assert_eq!(parse_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64("+9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64("9223372036854775808"), None);
        assert_eq!(parse_i64("-+1"), None);
    }

    proptest! {
        /// The same integer as `str::parse::<i64>`, or none where it has none.
        #[test]
        fn parse_i64_reads_as_std(text in "[-+]{0,2}[0-9]{0,20}", n in any::<i64>()) {
            prop_assert_eq!(parse_i64(&text), text.parse::<i64>().ok());
            prop_assert_eq!(parse_i64(&n.to_string()), Some(n));
        }

        /// Whatever surrounds it, the scan finds the id serde_json reads.
        #[test]
        fn the_scan_agrees_with_the_parser(
            id in any::<i64>(),
            before in proptest::collection::btree_map("[a-z\"\\\\{}:,\\[\\] ]{0,6}", any::<i64>(), 0..4),
            nested in "[a-z\"\\\\{}:,\\[\\] ]{0,8}",
        ) {
            prop_assume!(nested != "id");
            let mut obj = crate::json::Map::new();
            for (k, v) in before {
                obj.insert(k, json!({ "id": v, "s": "\"id\":0" }));
            }
            obj.insert("id".into(), json!(id));
            obj.insert(nested.clone(), json!([nested, { "id": 0 }]));
            let text = Value::Object(obj).to_string();
            let parsed: Value = serde_json::from_str(&text).unwrap_or_default();
            prop_assert_eq!(parsed.get("id"), Some(&json!(id)));
            let expected = id.to_string();
            prop_assert_eq!(top_level_number(&text, "id"), Some(expected.as_str()));
        }
    }
}
