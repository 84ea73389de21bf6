//! Bindings to the global scope (never `window`): they work in pages, workers, Node and Electron.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch, catch)]
    fn fetch_raw(input: &str, init: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buf: &mut [u8]) -> Result<JsValue, JsValue>;
}

/// Milliseconds since the Unix epoch on a monotonic clock, read by `io.js` (`performance`'s
/// `timeOrigin` plus `now()`: a wall-clock change or an NTP step moves no timer, so no burst of
/// polls when `Date.now()` leaps forward, no stall when it goes back; else `Date.now()`, always a
/// positive finite number).
pub fn now() -> u64 {
    super::io::now() as u64
}

/// The global `fetch(input, init)`; a missing `fetch` is an error, not a panic.
pub fn fetch(url: &str, init: &JsValue) -> Result<Promise, JsValue> {
    fetch_raw(url, init)
}

/// Longest delay `setTimeout` accepts without overflowing (2³¹−1 ms).
pub const MAX_TIMEOUT_MS: u64 = 0x7fff_ffff;

/// A 64-bit seed from `crypto.getRandomValues`, falling back to `Math.random` and the clock
/// (`io.js`'s `seed`).
pub fn random_seed() -> u64 {
    super::io::seed()
}

/// Fills `buf` from `crypto.getRandomValues`; `false` when it is unavailable.
pub fn random_bytes(buf: &mut [u8]) -> bool {
    get_random_values(buf).is_ok()
}

/// The global `WebSocket` constructor, when there is one (Node 20 has none without a flag).
pub fn websocket_ctor() -> Option<Function> {
    super::io::web_socket()
}

/// A readable message for a thrown JS value (`io.js`'s `describe`: an `Error`'s message with its
/// causes, a string, else its JSON).
pub fn describe(e: &JsValue) -> String {
    super::io::describe(e)
}
