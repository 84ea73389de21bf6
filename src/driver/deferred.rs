//! The bridge between JS promises and the driver's and JS face's Rust code, without a Rust
//! executor: a callback for when a promise settles.

use wasm_bindgen::prelude::*;

/// What hears how a promise settled: its value, or why it was rejected.
pub type Settled = Box<dyn FnOnce(Result<JsValue, JsValue>)>;

/// Calls `then` once `v` (a value, a promise or a thenable) settles, in a later microtask.
/// Boxed: one closure shim serves every caller.
pub fn when_settled(v: &JsValue, then: Settled) {
    let cb =
        Closure::once_into_js(move |ok: bool, v: JsValue| then(if ok { Ok(v) } else { Err(v) }));
    super::io::settled(v, &cb);
}

/// Runs `f` in a later microtask.
pub fn later(f: Settled) {
    when_settled(&JsValue::UNDEFINED, f);
}
