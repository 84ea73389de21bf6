//! Conversions at the edge: Rust values to plain JSON-shaped JS objects and back.
//!
//! Both directions go through JSON semantics without a serde (de)serializer for `JsValue`:
//! outgoing values are written once with `serde_json` and read with `JSON.parse`; incoming ones
//! are walked directly. That keeps one serializer instance per type in the binary.

use js_sys::{Array, Map, Object, Reflect, Symbol, JSON};
use serde::Serialize;
use serde_json::{Number, Value};
use wasm_bindgen::prelude::*;

/// Nesting deeper than this is refused (a cyclic object would otherwise exhaust the stack).
const MAX_DEPTH: u32 = 512;

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
    read(v, 0)
        .map(Some)
        .map_err(|e| format!("not JSON-serializable: {e}"))
}

/// One JS value as JSON: `null`/`undefined` → `null` (an `undefined` member is left out), safe integers → integers, other numbers →
/// floats (`NaN`/`Infinity` → `null`), BigInts in `i64::MIN..=u64::MAX`, strings, arrays, `Map`s
/// with string keys and plain (non-iterable) objects by their own enumerable properties.
fn read(v: &JsValue, depth: u32) -> Result<Value, &'static str> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply (or cyclic)");
    }
    if v.is_null() || v.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if v.is_bigint() {
        return i64::try_from(v.clone())
            .map(Value::from)
            .or_else(|v| u64::try_from(v).map(Value::from))
            .map_err(|_| "a BigInt outside i64::MIN..u64::MAX");
    }
    if let Some(n) = v.as_f64() {
        return Ok(if js_sys::Number::is_safe_integer(v) {
            Value::from(n as i64)
        } else {
            Number::from_f64(n).map_or(Value::Null, Value::Number)
        });
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if Array::is_array(v) {
        let a: &Array = v.unchecked_ref();
        return a.iter().map(|x| read(&x, depth + 1)).collect();
    }
    if !v.is_object()
        || v.is_instance_of::<js_sys::Uint8Array>()
        || v.is_instance_of::<js_sys::ArrayBuffer>()
    {
        return Err("a function, symbol or binary value");
    }
    let entries = if let Some(m) = v.dyn_ref::<Map>() {
        Array::from(m)
    } else if Reflect::has(v, &Symbol::iterator()).unwrap_or(false) {
        return Err("an iterable object other than an Array or a Map");
    } else {
        Object::entries(v.unchecked_ref())
    };
    let mut out = serde_json::Map::new();
    for pair in entries.iter() {
        let pair: Array = pair.unchecked_into();
        let key = pair
            .get(0)
            .as_string()
            .ok_or("a Map key that is not a string")?;
        let value = pair.get(1);
        // An optional field set to `undefined` is absent, as in `JSON.stringify`.
        if !value.is_undefined() {
            out.insert(key, read(&value, depth + 1)?);
        }
    }
    Ok(Value::Object(out))
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
