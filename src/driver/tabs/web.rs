//! Bindings to the browser APIs tab coordination uses, all looked up on the global scope and all
//! optional: Web Locks (`navigator.locks`), `BroadcastChannel`, page visibility and lifecycle
//! events. Missing APIs mean single-tab mode, never an error.
//!
//! A coordination host (`persist: { redis }` in Node) stands in for the first two: its `locks`
//! behaves as a `LockManager` and its `channel(name)` returns a `BroadcastChannel`-like object.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::driver::{oneshot, spawn};

#[wasm_bindgen]
extern "C" {
    /// `navigator.locks`.
    #[derive(Clone)]
    pub type LockManager;
    #[wasm_bindgen(method, catch, js_name = request)]
    fn request_with(
        this: &LockManager,
        name: &str,
        options: &JsValue,
        cb: &Function,
    ) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn query(this: &LockManager) -> Result<Promise, JsValue>;

    /// `BroadcastChannel`.
    pub type BroadcastChannel;
    #[wasm_bindgen(constructor, catch)]
    fn new(name: &str) -> Result<BroadcastChannel, JsValue>;
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message(this: &BroadcastChannel, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method)]
    fn close(this: &BroadcastChannel);
    #[wasm_bindgen(method, setter)]
    fn set_onmessage(this: &BroadcastChannel, f: Option<&Function>);
}

fn global_get(target: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(target, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

/// The host's `locks`, else `navigator.locks` when the page has it.
pub fn lock_manager(host: Option<&JsValue>) -> Option<LockManager> {
    let locks = match host {
        Some(h) => global_get(h, "locks")?,
        None => global_get(&global_get(&js_sys::global(), "navigator")?, "locks")?,
    };
    locks.is_object().then(|| locks.unchecked_into())
}

/// Whether `BroadcastChannel` exists.
pub fn has_broadcast_channel() -> bool {
    global_get(&js_sys::global(), "BroadcastChannel").is_some_and(|v| v.is_function())
}

/// A held lock: released when [`Held::release`] is called (or the page dies).
pub struct Held {
    release: Option<Function>,
}

impl Held {
    pub fn release(&mut self) {
        if let Some(f) = self.release.take() {
            let _ = f.call0(&JsValue::UNDEFINED);
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.release();
    }
}

/// What a lock callback answers: a promise the lock is held until, and its release.
fn hold() -> (Promise, Held) {
    let mut release = None;
    let hold = Promise::new(&mut |resolve, _| release = Some(resolve));
    (hold, Held { release })
}

/// A lock request in the queue; dropping it (or calling [`Pending::abort`]) leaves the queue.
pub struct Pending {
    controller: Option<web_sys::AbortController>,
}

impl Pending {
    pub fn abort(&mut self) {
        if let Some(c) = self.controller.take() {
            c.abort();
        }
    }
}

/// Queues for the exclusive lock `name`; `on_granted` runs once it is ours (held until released).
/// `steal`: take it now from whoever holds it (their request then fails with `AbortError`).
/// `on_lost` runs if the request fails after the lock was granted (stolen) — never after `abort`;
/// `on_refused` if it fails before (the Locks API denied, as on an opaque origin) — not for `abort`.
/// (Boxed: one copy of this function for every lock.)
pub fn acquire(
    locks: &LockManager,
    name: &str,
    steal: bool,
    on_granted: Box<dyn FnOnce(Held)>,
    on_lost: Box<dyn FnOnce()>,
    on_refused: Box<dyn FnOnce()>,
) -> Result<Pending, JsValue> {
    let options = Object::new();
    let controller = if steal {
        Reflect::set(&options, &"steal".into(), &JsValue::TRUE)?;
        None
    } else {
        let c = web_sys::AbortController::new()?;
        Reflect::set(&options, &"signal".into(), &c.signal())?;
        Some(c)
    };
    let granted = Rc::new(RefCell::new(false));
    let g = granted.clone();
    let cb = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
        *g.borrow_mut() = true;
        let (hold, held) = hold();
        on_granted(held);
        hold.into()
    });
    let p = locks.request_with(name, &options, cb.unchecked_ref())?;
    let failed = Closure::once_into_js(move |e: JsValue| {
        if *granted.borrow() {
            on_lost();
        } else if global_get(&e, "name")
            .and_then(|n| n.as_string())
            .as_deref()
            != Some("AbortError")
        {
            on_refused();
        }
    });
    if let Some(catch) = global_get(&p, "catch").and_then(|f| f.dyn_into::<Function>().ok()) {
        let _ = catch.call1(&p, &failed);
    }
    Ok(Pending { controller })
}

/// Runs `work` while holding the exclusive lock `name` (queued behind other holders).
pub async fn with_lock<T: 'static>(
    locks: &LockManager,
    name: &str,
    work: impl std::future::Future<Output = T> + 'static,
) -> Result<T, JsValue> {
    let (tx, rx) = oneshot::channel();
    let cb = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
        let (hold, held) = hold();
        spawn(async move {
            tx.send(work.await);
            drop(held);
        });
        hold.into()
    });
    let p = locks.request_with(name, &Object::new(), cb.unchecked_ref())?;
    JsFuture::from(p).await?;
    rx.await
        .map_err(|_| JsValue::from_str("the lock callback did not run"))
}

/// Names of every lock held right now (in this origin).
pub async fn held_names(locks: &LockManager) -> Result<Vec<String>, JsValue> {
    let snapshot = JsFuture::from(locks.query()?).await?;
    let held = global_get(&snapshot, "held").unwrap_or_else(|| Array::new().into());
    let arr: Array = held.dyn_into().unwrap_or_default();
    Ok(arr
        .iter()
        .filter_map(|l| global_get(&l, "name").and_then(|n| n.as_string()))
        .collect())
}

/// One open `BroadcastChannel` with its message handler (closed on drop).
pub struct Channel {
    bc: BroadcastChannel,
    _on_message: Closure<dyn FnMut(JsValue)>,
}

impl Channel {
    /// Opens `name` (on the host's `channel`, else a `BroadcastChannel`); `on_message` gets
    /// every string message other channel objects post.
    pub fn open(
        host: Option<&JsValue>,
        name: &str,
        mut on_message: impl FnMut(String) + 'static,
    ) -> Option<Channel> {
        let bc = match host {
            Some(h) => {
                let open: Function = global_get(h, "channel")?.dyn_into().ok()?;
                let c = open.call1(h, &JsValue::from_str(name)).ok()?;
                c.is_object()
                    .then(|| c.unchecked_into::<BroadcastChannel>())?
            }
            None if has_broadcast_channel() => BroadcastChannel::new(name).ok()?,
            None => return None,
        };
        let cb = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            if let Some(s) = global_get(&ev, "data").and_then(|d| d.as_string()) {
                on_message(s);
            }
        });
        bc.set_onmessage(Some(cb.as_ref().unchecked_ref()));
        Some(Channel {
            bc,
            _on_message: cb,
        })
    }

    pub fn post(&self, text: &str) {
        let _ = self.bc.post_message(&JsValue::from_str(text));
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.bc.set_onmessage(None);
        self.bc.close();
    }
}

/// An event listener on a global object, removed on drop.
pub struct Listener {
    target: JsValue,
    kind: &'static str,
    cb: Closure<dyn FnMut(JsValue)>,
}

impl Listener {
    /// Listens for `kind` on `target` (`None` when the target or `addEventListener` is missing).
    pub fn on(
        target: &JsValue,
        kind: &'static str,
        f: impl FnMut(JsValue) + 'static,
    ) -> Option<Listener> {
        let add: Function = global_get(target, "addEventListener")?.dyn_into().ok()?;
        let cb = Closure::<dyn FnMut(JsValue)>::new(f);
        add.call2(target, &JsValue::from_str(kind), cb.as_ref())
            .ok()?;
        Some(Listener {
            target: target.clone(),
            kind,
            cb,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(rm) = global_get(&self.target, "removeEventListener")
            .and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = rm.call2(
                &self.target,
                &JsValue::from_str(self.kind),
                self.cb.as_ref(),
            );
        }
    }
}

/// `globalThis.document`, in pages only.
pub fn document() -> Option<JsValue> {
    global_get(&js_sys::global(), "document")
}

/// The global scope (`window` in pages).
pub fn global() -> JsValue {
    js_sys::global().into()
}

/// `document.visibilityState !== "hidden"` (always visible without a document).
pub fn page_visible() -> bool {
    document()
        .and_then(|d| global_get(&d, "visibilityState"))
        .and_then(|v| v.as_string())
        .is_none_or(|s| s != "hidden")
}
