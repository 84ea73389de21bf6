//! Bindings to the global scope (never `window`): they work in pages, workers, Node and Electron.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch, catch)]
    fn fetch_raw(input: &str, init: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buf: &mut [u8]) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    /// The global `performance` (pages, workers, Node).
    type Performance;
    #[wasm_bindgen(method, js_name = now)]
    fn elapsed(this: &Performance) -> f64;
    #[wasm_bindgen(method, getter, js_name = timeOrigin)]
    fn time_origin(this: &Performance) -> f64;
}

thread_local! {
    /// `performance`, when it has a callable `now`, and its `timeOrigin` (fixed for the life of
    /// the page, worker or process: read once).
    static PERFORMANCE: Option<(Performance, f64)> = Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .filter(|p| Reflect::get(p, &JsValue::from_str("now")).is_ok_and(|f| f.is_function()))
        .map(|p| {
            let p: Performance = p.unchecked_into();
            let origin = p.time_origin();
            (p, origin)
        });
}

/// Milliseconds since the Unix epoch on a monotonic clock: `performance.timeOrigin +
/// performance.now()` (a wall-clock change or an NTP step moves no timer: no burst of polls
/// when `Date.now()` leaps forward, no stall when it goes back), else `Date.now()`.
pub fn now() -> u64 {
    let mono = PERFORMANCE.with(|p| p.as_ref().map(|(p, origin)| origin + p.elapsed()));
    let t = mono
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or_else(js_sys::Date::now);
    if t.is_finite() && t > 0.0 {
        t as u64
    } else {
        0
    }
}

/// The global `fetch(input, init)`; a missing `fetch` is an error, not a panic.
pub fn fetch(url: &str, init: &JsValue) -> Result<Promise, JsValue> {
    fetch_raw(url, init)
}

/// Longest delay `setTimeout` accepts without overflowing (2³¹−1 ms).
pub const MAX_TIMEOUT_MS: u64 = 0x7fff_ffff;

/// A 64-bit seed from `crypto.getRandomValues`, falling back to `Math.random` and the clock.
pub fn random_seed() -> u64 {
    let mut buf = [0u8; 8];
    if get_random_values(&mut buf).is_ok() && buf != [0u8; 8] {
        return u64::from_le_bytes(buf);
    }
    let hi = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    (hi << 32) ^ now()
}

/// Fills `buf` from `crypto.getRandomValues`; `false` when it is unavailable.
pub fn random_bytes(buf: &mut [u8]) -> bool {
    get_random_values(buf).is_ok()
}

/// The global `WebSocket` constructor, when there is one (Node 20 has none without a flag).
pub fn websocket_ctor() -> Option<Function> {
    Reflect::get(&js_sys::global(), &JsValue::from_str("WebSocket"))
        .ok()
        .and_then(|v| v.dyn_into::<Function>().ok())
}

/// A readable message for a thrown JS value.
pub fn describe(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        let msg = String::from(err.message());
        let cause = Reflect::get(err, &JsValue::from_str("cause"))
            .ok()
            .filter(|c| !c.is_undefined() && !c.is_null())
            .map(|c| describe(&c));
        return match cause {
            Some(c) if !c.is_empty() => [msg.as_str(), " (", &c, ")"].concat(),
            _ => msg,
        };
    }
    e.as_string()
        .or_else(|| js_sys::JSON::stringify(e).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "unknown JavaScript error".into())
}
