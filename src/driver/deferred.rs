//! A JS promise and the functions that settle it: how the driver and the JS face wait for a
//! one-time event (awaited through `JsFuture`, the one promise bridge the binary has anyway).

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
