//! The bridge between JS promises and the driver's and JS face's Rust code, without a Rust
//! executor: a promise with the functions that settle it, and a callback for when one settles.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

/// A pending promise's settle functions: resolve, reject.
pub type Settle = (Function, Function);

/// A promise and its settle functions.
pub fn deferred() -> (Promise, Settle) {
    // The executor runs before `Promise::new` returns: the placeholders are always replaced.
    let undefined = || JsValue::UNDEFINED.unchecked_into::<Function>();
    let mut settle = (undefined(), undefined());
    let p = Promise::new(&mut |res, rej| settle = (res, rej));
    (p, settle)
}

/// Resolves the promise with `v` (once settled, a promise ignores further calls).
pub fn resolve(s: &Settle, v: &JsValue) {
    let _ = s.0.call1(&JsValue::UNDEFINED, v);
}

/// Rejects the promise with `v`.
pub fn reject(s: &Settle, v: &JsValue) {
    let _ = s.1.call1(&JsValue::UNDEFINED, v);
}

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
