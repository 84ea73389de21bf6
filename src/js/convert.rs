//! Conversions at the edge: Rust values to plain JSON-shaped JS objects and back.
//!
//! Both directions go through JSON semantics without a serde (de)serializer for `JsValue`:
//! outgoing values are written as JSON text by hand and read with `JSON.parse`; incoming ones
//! are walked directly.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::json::ToJson;

/// A value's JSON form as plain JS objects (never `Map`s): `JSON.parse` of its text (one copy in
/// the binary for every type).
pub fn to_js(v: &dyn ToJson) -> JsValue {
    crate::json::parse_written(&crate::json::json_text(v))
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
