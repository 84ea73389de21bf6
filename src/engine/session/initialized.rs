//! Over HTTP a session's first requests wait for the `initialized` notification's answer. Each
//! POST is its own connection, so a request sent at once may reach the server before the
//! notification, and a server may refuse it ("Not initialized"). The notification's answer (any
//! status, or its end) lets the queued requests and the listening stream go; a server that never
//! answers it costs [`INITIALIZED_WAIT_MS`] once. A WebSocket keeps order: nothing waits there.
//! Input answers never wait (see `hold.rs`).

use super::Session;
use crate::engine::api::{Millis, SendKey};
use crate::engine::scheduler::{Timer, Timers};

/// How long the session's requests wait for the `initialized` notification's answer.
pub(crate) const INITIALIZED_WAIT_MS: Millis = 3_000;

impl Session {
    /// The `initialized` notification went out as `key` over HTTP: what the session sends next
    /// waits for its answer.
    pub(super) fn wait_for_initialized(&mut self, now: Millis, key: SendKey, timers: &mut Timers) {
        self.initialized_pending = Some(key);
        timers.set(Timer::Initialized, now.saturating_add(INITIALIZED_WAIT_MS));
    }

    /// Transmission `key` got its answer or ended (`None`: the wait's deadline passed): whether
    /// the session waited for it. The waiting requests then go (before the next output).
    pub(super) fn initialized_answered(
        &mut self,
        key: Option<SendKey>,
        timers: &mut Timers,
    ) -> bool {
        let Some(pending) = self.initialized_pending else {
            return false;
        };
        if key.is_some_and(|k| k != pending) {
            return false;
        }
        self.initialized_pending = None;
        timers.clear(&Timer::Initialized);
        self.drain = true;
        true
    }

    /// The `initialized` notification awaits its answer.
    pub(super) fn awaits_initialized(&self) -> bool {
        self.initialized_pending.is_some()
    }
}
