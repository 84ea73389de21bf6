//! The one timer of a client: a single `setTimeout` re-armed for the earliest deadline.
//!
//! `gloo_timers` binds the global `setTimeout`/`clearTimeout` (never `window`), so this works in
//! pages, workers and Node alike; its handle is kept as a `JsValue` (a number in browsers, an
//! object in Node).

use std::rc::Rc;

use gloo_timers::callback::Timeout;

use super::global::MAX_TIMEOUT_MS;

/// One re-armable timeout calling one long-lived callback.
pub struct Timer {
    on_fire: Rc<dyn Fn()>,
    /// Dropping it clears the timeout.
    pending: Option<Timeout>,
    at: Option<u64>,
}

impl Timer {
    pub fn new(on_fire: impl Fn() + 'static) -> Self {
        Self {
            on_fire: Rc::new(on_fire),
            pending: None,
            at: None,
        }
    }

    /// Fires at `at` (ms since epoch); `u64::MAX` means never. Re-arming for the same time is a no-op.
    pub fn arm(&mut self, at: u64, now: u64) {
        if at == u64::MAX {
            return self.disarm();
        }
        if self.at == Some(at) && self.pending.is_some() {
            return;
        }
        self.disarm();
        let f = self.on_fire.clone();
        // At most 2³¹−1 ms: it fits the `i32` gloo hands to `setTimeout`.
        let ms = at.saturating_sub(now).min(MAX_TIMEOUT_MS) as u32;
        self.pending = Some(Timeout::new(ms, move || f()));
        self.at = Some(at);
    }

    /// Forgets a timeout that just fired.
    pub fn fired(&mut self) {
        self.disarm();
    }

    pub fn disarm(&mut self) {
        self.pending = None;
        self.at = None;
    }
}
