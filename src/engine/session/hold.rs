//! A server's `Retry-After` (on a 429 or 503) holds the whole server: until it passes nothing is
//! sent to it except input answers (the server asked for them, and a task may wait on them).
//! Requests made meanwhile wait in the session queue, behind the ones the server refused. When
//! the hold ends one of them goes out first, alone (a refused one, when there is one); the rest
//! follow once its answer starts without a new hold, so a server still overloaded meets one
//! request, not a burst.

use crate::engine::api::Millis;
use crate::engine::ids::ReqId;
use crate::engine::requests::Purpose;
use crate::engine::scheduler::{Timer, Timers};

use super::Session;

/// The longest hold honoured, whatever the server asks.
pub(super) const MAX_HOLD_MS: Millis = 5 * 60 * 1000;

impl Session {
    /// A response said `status` with `Retry-After: retry_after` ms.
    pub(crate) fn note_retry_after(
        &mut self,
        now: Millis,
        status: Option<u16>,
        retry_after: Option<Millis>,
        timers: &mut Timers,
    ) {
        let (Some(429 | 503), Some(ms)) = (status, retry_after) else {
            return;
        };
        let until = now.saturating_add(ms.min(MAX_HOLD_MS));
        if self.hold_until.is_some_and(|h| h >= until) {
            return;
        }
        self.hold_until = Some(until);
        timers.set(Timer::Hold, until);
    }

    /// The hold in force at `now`, if any.
    pub(super) fn hold(&self, now: Millis) -> Option<Millis> {
        self.hold_until.filter(|&h| now < h)
    }

    /// Requests wait: the hold is in force (until its timer releases it, also at its last
    /// millisecond), the first request after it is not answered yet, or the session's
    /// `initialized` notification is not (see `initialized.rs`).
    pub(crate) fn gated(&self) -> bool {
        self.hold_probe.is_some() || self.hold_until.is_some() || self.initialized_pending.is_some()
    }

    /// Whether `p` must wait (input answers never do).
    pub(super) fn held(&self, p: &Purpose) -> bool {
        !matches!(p, Purpose::Answer(_)) && self.gated()
    }

    /// The first request after a hold got its answer's head (or ended): unless it brought a new
    /// hold, the rest may go.
    pub(crate) fn probe_answered(&mut self, n: ReqId) {
        if self.hold_probe == Some(n) {
            self.hold_probe = None;
            self.drain = true;
        }
    }

    /// `p`, refused with the hold now in force, waits at the front of the queue.
    pub(super) fn wait_first(&mut self, p: Purpose) {
        self.queue.insert(0, p);
    }

    /// The hold passed.
    pub(super) fn end_hold(&mut self) {
        self.hold_until = None;
    }

    /// Whether a request sent alone after an earlier hold was still unanswered (it no longer
    /// counts).
    pub(super) fn take_hold_probe(&mut self) -> bool {
        self.hold_probe.take().is_some()
    }

    /// Request `n` is the one sent alone after the hold: the rest wait for its answer, or until
    /// `at` at most.
    pub(super) fn hold_probe_sent(&mut self, n: ReqId, at: Millis, timers: &mut Timers) {
        self.hold_probe = Some(n);
        timers.set(Timer::Hold, at);
    }

    /// Whether a request sent alone after the hold awaits its answer.
    pub(super) fn hold_probing(&self) -> bool {
        self.hold_probe.is_some()
    }

    /// Waiting requests may be sent: the hold is over and none is probing it.
    pub(super) fn start_drain(&mut self) {
        self.drain = false;
    }

    /// Requests go back to waiting, after those already waiting.
    pub(super) fn wait_all(&mut self, waiting: impl Iterator<Item = Purpose>) {
        self.queue.extend(waiting);
    }
}
