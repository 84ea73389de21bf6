//! Wire layer: JSON-RPC envelope, incremental SSE decoder, the common task model and one module per
//! task dialect. Pure Rust; no clock, no I/O.

pub mod auth;
pub mod dialect;
/// Checks shared by the property tests, the fuzz targets and `examples/fuzz_smoke.rs`; built
/// only for tests and with the `fuzzing` feature, never into the library itself.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzz_entry;
pub mod headers;
pub mod jsonrpc;
pub mod model;
pub mod sse;
pub mod tool_headers;

#[cfg(test)]
mod property_tests;

use std::borrow::Cow;

use crate::json::{Map, Value};

/// A JSON object of these members, in this order (a later repeated key replaces the value). The
/// values are taken out of the array in place (the array's by-value iterator is far more code), by
/// one function for every length.
#[inline]
pub fn object<const N: usize>(mut members: [(&str, Value); N]) -> Value {
    object_of(&mut members)
}

fn object_of(members: &mut [(&str, Value)]) -> Value {
    let mut obj = Map::new();
    for (key, value) in members {
        obj.insert((*key).to_owned(), value.take());
    }
    Value::Object(obj)
}

/// The compact JSON text of a value (the hand-written [`crate::json::text`]).
pub fn text(value: &Value) -> String {
    crate::json::text(value)
}

/// Moves a member's value out of an object being taken apart; the key stays, holding `null`
/// (for a map about to be dropped it reads like `remove`, without moving the members after it).
pub fn take(obj: &mut Map<String, Value>, key: &str) -> Option<Value> {
    obj.get_mut(key).map(Value::take)
}

/// Where `needle` first occurs in `text`: a plain scan, for the few short needles the client
/// looks for (`str::find` with a `&str` brings its two-way searcher into the wasm binary).
pub fn find(text: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    (text.as_bytes().windows(needle.len())).position(|w| w == needle.as_bytes())
}

/// `bytes` as text, each invalid UTF-8 sequence replaced by U+FFFD (borrowed when valid): what
/// `String::from_utf8_lossy` gives, built on `str::from_utf8`, whose validator the binary carries
/// anyway, instead of a second decoder.
pub fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    let mut error = match std::str::from_utf8(bytes) {
        Ok(text) => return Cow::Borrowed(text),
        Err(e) => e,
    };
    let mut text = String::with_capacity(bytes.len() + 2);
    let mut rest = bytes;
    loop {
        let (valid, after) = rest.split_at(error.valid_up_to());
        text.push_str(std::str::from_utf8(valid).unwrap_or_default());
        text.push('\u{FFFD}');
        // An incomplete sequence at the end is replaced as a whole.
        rest = after
            .get(error.error_len().unwrap_or(after.len())..)
            .unwrap_or_default();
        match std::str::from_utf8(rest) {
            Ok(tail) => {
                text.push_str(tail);
                return Cow::Owned(text);
            }
            Err(e) => error = e,
        }
    }
}

/// The object without the member `key`.
pub fn without(mut obj: Map<String, Value>, key: &str) -> Map<String, Value> {
    obj.remove(key);
    obj
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn take_moves_a_member_out_and_reads_a_missing_one_as_none() {
        let mut m = obj(crate::json::json!({"a": [1], "n": null}));
        assert_eq!(take(&mut m, "a"), Some(crate::json::json!([1])));
        assert_eq!(take(&mut m, "n"), Some(Value::Null));
        assert_eq!(take(&mut m, "b"), None);
    }

    proptest::proptest! {
        /// The same text as `String::from_utf8_lossy`, for any bytes: text with stray bytes
        /// put in (cutting its sequences too).
        #[test]
        fn lossy_agrees_with_std(
            text in "\\PC{0,8}",
            junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..6),
            at in 0usize..40,
        ) {
            let mut bytes = text.into_bytes();
            let at = at.min(bytes.len());
            bytes.splice(at..at, junk);
            proptest::prop_assert_eq!(lossy(&bytes), String::from_utf8_lossy(&bytes));
        }

        /// The same position as `str::find`, and split pieces as `str::split` (non-empty `sep`).
        #[test]
        fn find_agrees_with_str_find(text in "[ab\u{e9}]{0,12}", needle in "[ab\u{e9}]{0,3}") {
            proptest::prop_assert_eq!(find(&text, &needle), text.find(needle.as_str()));
        }
    }

    #[test]
    fn without_drops_only_the_named_member() {
        let m = obj(crate::json::json!({"a": 1, "b": 2, "c": {"a": 3}}));
        assert_eq!(
            Value::Object(without(m.clone(), "a")),
            crate::json::json!({"b": 2, "c": {"a": 3}})
        );
        assert_eq!(without(m.clone(), "x"), m);
    }
}
