//! Conversions at the edge: Rust values to plain JSON-shaped JS objects and back.
//!
//! Both directions go through JSON semantics without a serde (de)serializer for `JsValue`:
//! outgoing values are written once with `serde_json` and read with `JSON.parse`; incoming ones
//! are walked directly. That keeps one serializer instance per type in the binary.

use js_sys::JSON;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Serializes to plain JS objects (never `Map`s); `undefined` if the value cannot be represented.
pub fn to_js<T: Serialize + ?Sized>(v: &T) -> JsValue {
    parse(serde_json::to_string(v).ok())
}

/// `JSON.parse` of the text (not generic: one copy in the binary for every `to_js` type).
fn parse(text: Option<String>) -> JsValue {
    text.and_then(|s| JSON::parse(&s).ok())
        .unwrap_or(JsValue::UNDEFINED)
}

/// Reads a JSON value from JS (`undefined` → `None`).
pub fn from_js(v: &JsValue) -> Result<Option<Value>, String> {
    if v.is_undefined() {
        return Ok(None);
    }
    crate::json::from_js(v)
        .map(Some)
        .map_err(|e| ["not JSON-serializable: ", e].concat())
}
