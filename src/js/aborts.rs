//! One `AbortController` per input request the host's `onInput` is handling: its signal is the
//! handler's second argument, aborted when the engine withdraws the request (the server cancelled
//! the task the client runs for it, or the task's ttl ran out) or the client closes.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::Object;
use wasm_bindgen::JsValue;
use web_sys::AbortController;

use crate::engine::api::InputId;

use super::error::error;
use super::types::ErrorKind;

/// The controllers of the input requests being handled, by input id.
#[derive(Default)]
pub struct InputAborts(RefCell<HashMap<InputId, AbortController>>);

impl InputAborts {
    /// The handler's second argument, `{ signal }`, for input `id`.
    pub fn start(&self, id: InputId) -> JsValue {
        let extra = Object::new();
        if let Ok(c) = AbortController::new() {
            let _ = js_sys::Reflect::set(&extra, &"signal".into(), &c.signal());
            self.0.borrow_mut().insert(id, c);
        }
        extra.into()
    }

    /// The handler settled: its controller is no longer needed.
    pub fn finish(&self, id: InputId) {
        self.0.borrow_mut().remove(&id);
    }

    /// Aborts input `id`'s signal with an `McpTaskError` (kind `cancelled`) saying `why`.
    pub fn abort(&self, id: InputId, why: &str) {
        let c = self.0.borrow_mut().remove(&id);
        if let Some(c) = c {
            let message = format!("the input request was withdrawn: {why}");
            c.abort_with_reason(&error(ErrorKind::Cancelled, message));
        }
    }

    /// Aborts every signal (the client closed).
    pub fn abort_all(&self) {
        let all: Vec<AbortController> = self.0.borrow_mut().drain().map(|(_, c)| c).collect();
        for c in all {
            c.abort_with_reason(&error(ErrorKind::Closed, "the client was closed"));
        }
    }
}
