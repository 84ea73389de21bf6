//! The one timer of a client: a single `setTimeout` re-armed for the earliest deadline.

use wasm_bindgen::prelude::*;

use super::global;

/// One re-armable timeout around a single long-lived callback (no closure per tick).
pub struct Timer {
    cb: Closure<dyn FnMut()>,
    handle: Option<JsValue>,
    at: Option<u64>,
}

impl Timer {
    pub fn new(on_fire: impl FnMut() + 'static) -> Self {
        Self {
            cb: Closure::new(on_fire),
            handle: None,
            at: None,
        }
    }

    /// Fires at `at` (ms since epoch); `u64::MAX` means never. Re-arming for the same time is a no-op.
    pub fn arm(&mut self, at: u64, now: u64) {
        if at == u64::MAX {
            return self.disarm();
        }
        if self.at == Some(at) && self.handle.is_some() {
            return;
        }
        self.disarm();
        self.handle = global::set_timeout(self.cb.as_ref().unchecked_ref(), at.saturating_sub(now));
        self.at = Some(at);
    }

    /// Forgets the handle of a timeout that just fired.
    pub fn fired(&mut self) {
        self.handle = None;
        self.at = None;
    }

    pub fn disarm(&mut self) {
        if let Some(h) = self.handle.take() {
            global::clear_timeout(&h);
        }
        self.at = None;
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.disarm();
    }
}
