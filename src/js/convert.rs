//! Conversions at the edge: Rust values to plain JSON-shaped JS objects and back.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Serializes to plain JS objects (never `Map`s); `undefined` if the value cannot be represented.
pub fn to_js<T: Serialize + ?Sized>(v: &T) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::UNDEFINED)
}

/// Reads a JSON value from JS (`undefined` → `None`).
pub fn from_js(v: &JsValue) -> Result<Option<Value>, String> {
    if v.is_undefined() {
        return Ok(None);
    }
    serde_wasm_bindgen::from_value(v.clone())
        .map(Some)
        .map_err(|e| format!("not JSON-serializable: {e}"))
}

/// Reads a JSON object from JS; `undefined`/`null` → `{}`.
pub fn object_from_js(v: &JsValue, what: &str) -> Result<Value, String> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Object(Default::default()));
    }
    match from_js(v)? {
        Some(o @ Value::Object(_)) => Ok(o),
        _ => Err(format!("{what} must be a plain object")),
    }
}
