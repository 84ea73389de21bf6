//! A server's `Retry-After` (on a 429 or 503) holds the whole server: until it passes nothing is
//! sent to it except input answers (the server asked for them, and a task may wait on them).
//! Requests made meanwhile wait in the session queue and go out when the hold ends.

use super::api::Millis;
use super::requests::Purpose;
use super::scheduler::Timer;
use super::Engine;

/// The longest hold honoured, whatever the server asks.
pub(crate) const MAX_HOLD_MS: Millis = 5 * 60 * 1000;

impl Engine {
    /// A response said `status` with `Retry-After: retry_after` ms.
    pub(crate) fn note_retry_after(
        &mut self,
        now: Millis,
        status: Option<u16>,
        retry_after: Option<Millis>,
    ) {
        let (Some(429 | 503), Some(ms)) = (status, retry_after) else {
            return;
        };
        let until = now.saturating_add(ms.min(MAX_HOLD_MS));
        if self.session.hold_until.is_some_and(|h| h >= until) {
            return;
        }
        self.session.hold_until = Some(until);
        self.timers.set(Timer::Hold, until);
    }

    /// The hold in force at `now`, if any.
    pub(crate) fn hold(&self, now: Millis) -> Option<Millis> {
        self.session.hold_until.filter(|&h| now < h)
    }

    /// Whether `p` must wait for the hold to pass.
    pub(crate) fn held(&self, now: Millis, p: &Purpose) -> bool {
        !matches!(p, Purpose::Answer(_)) && self.hold(now).is_some()
    }

    /// The hold passed: send what waited.
    pub(crate) fn release_hold(&mut self, now: Millis) {
        if let Some(h) = self.hold(now) {
            return self.timers.set(Timer::Hold, h);
        }
        self.session.hold_until = None;
        if !self.session.is_ready() {
            return self.connect(now);
        }
        for p in std::mem::take(&mut self.session.queue) {
            self.dispatch(now, p);
        }
        self.listen_changed(now);
    }
}
