//! The host's `JSON.parse` for the text this crate writes, and its numbers read back as [`Value`]s.

use super::Value;
use wasm_bindgen::prelude::*;

/// JSON text this crate wrote as plain JS values: `JSON.parse`, which cannot throw on it.
pub fn parse_written(text: &str) -> JsValue {
    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
        fn json_parse(text: &str) -> JsValue;
    }
    json_parse(text)
}

/// A JSON number literal as `JSON.parse` reads it: the host's double (see [`number`]).
pub(super) fn number_text(literal: &str) -> Value {
    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = Number)]
        fn number_of(text: &str) -> f64;
    }
    number(number_of(literal))
}

/// An integral number in `i64::MIN..=u64::MAX` as an integer (beyond 2^53 it is the double the
/// host read, the nearest to what was written), any other finite one as a float.
pub(super) fn number(n: f64) -> Value {
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    const MINUS_TWO_POW_63: f64 = -9_223_372_036_854_775_808.0;
    match n.fract() == 0.0 && (MINUS_TWO_POW_63..TWO_POW_64).contains(&n) {
        true if n >= 0.0 => Value::from(n as u64),
        true => Value::from(n as i64),
        false => Value::from(n),
    }
}
