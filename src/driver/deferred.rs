//! The bridge between JS promises and the driver's and JS face's Rust code, without a Rust
//! executor: a callback for when a promise settles. What waits is kept here under a key; `io.js`
//! calls back one long-lived function with that key (one closure for every promise).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

/// What hears how a promise settled: its value, or why it was rejected.
pub type Settled = Box<dyn FnOnce(Result<JsValue, JsValue>)>;

thread_local! {
    /// What waits for each promise handed to `io.js`, by key (a freed key is reused).
    static WAITING: RefCell<Vec<Option<Settled>>> = const { RefCell::new(Vec::new()) };
    /// What `io.js` calls once a promise settled: `(1 if fulfilled else 0, key, value)`.
    static SETTLED: Closure<dyn Fn(u32, f64, JsValue)> = Closure::new(settled);
}

fn settled(ok: u32, key: f64, v: JsValue) {
    let then = WAITING.with(|w| w.borrow_mut().get_mut(key as usize).and_then(Option::take));
    if let Some(then) = then {
        then(if ok == 1 { Ok(v) } else { Err(v) });
    }
}

/// Calls `then` once `v` (a value, a promise or a thenable) settles, in a later microtask.
pub fn when_settled(v: &JsValue, then: Settled) {
    let key = WAITING.with(|w| {
        let mut w = w.borrow_mut();
        let key = w.iter().position(Option::is_none).unwrap_or(w.len());
        match w.get_mut(key) {
            Some(free) => *free = Some(then),
            None => w.push(Some(then)),
        }
        key
    });
    SETTLED.with(|cb| super::io::settled(v, cb.as_ref(), key as f64));
}

/// Runs `f` in a later microtask.
pub fn later(f: Settled) {
    when_settled(&JsValue::UNDEFINED, f);
}
