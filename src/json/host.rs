//! The host's numbers and JS values read back as [`Value`]s.

use super::{Map as Members, Value};
use js_sys::{Array, Map, Object, Reflect, Symbol};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A BigInt's decimal text (`String(v)`).
    #[wasm_bindgen(js_name = String)]
    fn decimal(v: &JsValue) -> String;
}

/// Nesting deeper than this is refused (a cyclic object would otherwise exhaust the stack).
const MAX_DEPTH: u32 = 512;

/// Reads a JS value as JSON (see [`read`]); the error says what in it is not JSON.
pub fn from_js(v: &JsValue) -> Result<Value, &'static str> {
    read(v, 0)
}

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

/// One JS value as JSON: `null`/`undefined` → `null` (an `undefined` member is left out), integral
/// numbers in `i64::MIN..=u64::MAX` → integers, other numbers → floats (`NaN`/`Infinity` → `null`),
/// BigInts in `i64::MIN..=u64::MAX`, strings, arrays, `Map`s with string keys and plain
/// (non-iterable) objects by their own enumerable properties. The most common kinds are asked
/// first: each question is a call into the host.
fn read(v: &JsValue, depth: u32) -> Result<Value, &'static str> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply (or cyclic)");
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if let Some(n) = v.as_f64() {
        return Ok(number(n));
    }
    if Array::is_array(v) {
        let a: &Array = v.unchecked_ref();
        let len = a.length();
        let mut items = Vec::with_capacity(len as usize);
        for i in 0..len {
            items.push(read(&a.get(i), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if v.is_object() {
        return read_object(v, depth);
    }
    if v.is_null() || v.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if v.is_bigint() {
        // Read through its decimal text: the integer parsers the binary carries anyway.
        let text = decimal(v);
        return match super::parse_i64(&text) {
            Some(i) => Ok(Value::from(i)),
            None => text.parse::<u64>().map(Value::from),
        }
        .map_err(|_| "a BigInt outside i64::MIN..u64::MAX");
    }
    Err("a function, symbol or binary value")
}

/// An object (not an array) as a JSON object: its own enumerable properties, or a `Map`'s entries.
fn read_object(v: &JsValue, depth: u32) -> Result<Value, &'static str> {
    let entries = if let Some(m) = v.dyn_ref::<Map>() {
        Array::from(m)
    } else if v.is_instance_of::<js_sys::Uint8Array>() || v.is_instance_of::<js_sys::ArrayBuffer>()
    {
        return Err("a function, symbol or binary value");
    } else if Reflect::has(v, &Symbol::iterator()).unwrap_or(false) {
        return Err("an iterable object other than an Array or a Map");
    } else {
        Object::entries(v.unchecked_ref())
    };
    let mut out = Members::new();
    for i in 0..entries.length() {
        let pair: Array = entries.get(i).unchecked_into();
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
