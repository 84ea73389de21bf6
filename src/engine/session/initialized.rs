//! Over HTTP a session's first requests wait for the `initialized` notification's answer. Each
//! POST is its own connection, so a request sent at once may reach the server before the
//! notification, and a server may refuse it ("Not initialized"). The notification's answer (any
//! status, or its end) lets the queued requests and the listening stream go; a server that never
//! answers it costs [`INITIALIZED_WAIT_MS`] once. A WebSocket keeps order: nothing waits there.
//! Input answers never wait (see `hold.rs`).

use crate::engine::api::{Link, Millis, SendKey};
use crate::engine::scheduler::Timer;
use crate::engine::Engine;

/// How long the session's requests wait for the `initialized` notification's answer.
pub(crate) const INITIALIZED_WAIT_MS: Millis = 3_000;

impl Engine {
    /// The `initialized` notification went out as `key`: over HTTP, what the session sends next
    /// waits for its answer.
    pub(super) fn wait_for_initialized(&mut self, now: Millis, key: SendKey) {
        if self.cfg.link == Link::WebSocket {
            return;
        }
        self.session.initialized_pending = Some(key);
        self.timers
            .set(Timer::Initialized, now.saturating_add(INITIALIZED_WAIT_MS));
    }

    /// Transmission `key` got its answer or ended (`None`: the wait's deadline passed): when the
    /// session waited for it, the waiting requests go (before the next output) and the listening
    /// stream opens.
    pub(crate) fn initialized_answered(&mut self, key: Option<SendKey>) {
        let Some(pending) = self.session.initialized_pending else {
            return;
        };
        if key.is_some_and(|k| k != pending) {
            return;
        }
        self.session.initialized_pending = None;
        self.timers.clear(&Timer::Initialized);
        self.session.drain = true;
        self.reopen_standalone();
    }
}
