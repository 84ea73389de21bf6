//! Abort signals: a listener on a caller's signal ([`SignalHook`]), and one `AbortController` per
//! input request the host's `onInput` is handling: its signal is the handler's second argument,
//! aborted when the engine withdraws the request (the server cancelled the task the client runs
//! for it, or the task's ttl ran out) or the client closes.

use std::cell::RefCell;

use js_sys::Object;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use crate::engine::api::InputId;

use super::error::error;
use super::types::ErrorKind;

/// An `abort` listener registered on a caller's signal, removed when the hook is dropped.
pub struct SignalHook {
    signal: AbortSignal,
    cb: Closure<dyn FnMut()>,
}

impl SignalHook {
    /// Calls `cb` when `signal` aborts (a signal aborts once).
    pub fn listen(signal: AbortSignal, cb: Closure<dyn FnMut()>) -> Self {
        let _ = signal.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
        Self { signal, cb }
    }
}

impl Drop for SignalHook {
    fn drop(&mut self) {
        // The closure dies here: the signal must not call it afterwards.
        let cb = self.cb.as_ref().unchecked_ref();
        let _ = self.signal.remove_event_listener_with_callback("abort", cb);
    }
}

/// The controllers of the input requests being handled, by input id (a few at a time: a `Vec`
/// costs less wasm than another map instantiation).
#[derive(Default)]
pub struct InputAborts(RefCell<Vec<(InputId, AbortController)>>);

impl InputAborts {
    /// The handler's second argument, `{ signal }`, for input `id`.
    pub fn start(&self, id: InputId) -> JsValue {
        let extra = Object::new();
        if let Ok(c) = AbortController::new() {
            let _ = js_sys::Reflect::set(&extra, &"signal".into(), &c.signal());
            self.0.borrow_mut().push((id, c));
        }
        extra.into()
    }

    /// The handler settled: its controller is no longer needed.
    pub fn finish(&self, id: InputId) {
        self.take(id);
    }

    fn take(&self, id: InputId) -> Option<AbortController> {
        let mut all = self.0.borrow_mut();
        let at = all.iter().position(|(i, _)| *i == id)?;
        Some(all.swap_remove(at).1)
    }

    /// Aborts input `id`'s signal with an `McpTaskError` (kind `cancelled`) saying `why`.
    pub fn abort(&self, id: InputId, why: &str) {
        if let Some(c) = self.take(id) {
            let message = ["the input request was withdrawn: ", why].concat();
            c.abort_with_reason(&error(ErrorKind::Cancelled, message));
        }
    }

    /// Aborts every signal (the client closed).
    pub fn abort_all(&self) {
        let all: Vec<(InputId, AbortController)> = self.0.borrow_mut().drain(..).collect();
        for (_, c) in all {
            c.abort_with_reason(&error(ErrorKind::Closed, "the client was closed"));
        }
    }
}
