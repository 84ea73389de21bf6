//! Conversions at the edge: Rust values to plain JSON-shaped JS objects and back.
//!
//! Both directions go through JSON text: outgoing values are written by hand and read with
//! `JSON.parse`; a caller's values arrive as the text the JS client wrote of them (`json` in
//! `npm/client.js`, which refuses what is not JSON) and are read by the crate's own parser.

use crate::json::Value;
use wasm_bindgen::prelude::*;

use crate::json::ToJson;

/// A value's JSON form as plain JS objects (never `Map`s): `JSON.parse` of its text (one copy in
/// the binary for every type).
pub fn to_js(v: &dyn ToJson) -> JsValue {
    crate::json::parse_written(&crate::json::json_text(v))
}

/// The value of JSON text the JS client wrote (`None` when `text` is no string of JSON).
pub fn from_js(text: &JsValue) -> Option<Value> {
    crate::json::parse(&text.as_string()?).ok()
}
