//! One `AbortController` per input request the host's `onInput` is handling: its signal is the
//! handler's second argument, aborted when the engine withdraws the request (the server cancelled
//! the task the client runs for it, or the task's ttl ran out) or the client closes.

use std::cell::RefCell;

use js_sys::Object;
use wasm_bindgen::JsValue;
use web_sys::AbortController;

use crate::engine::api::InputId;

use super::error::error;
use super::types::ErrorKind;

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
