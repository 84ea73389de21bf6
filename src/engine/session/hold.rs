//! A server's `Retry-After` (on a 429 or 503) holds the whole server: until it passes nothing is
//! sent to it except input answers (the server asked for them, and a task may wait on them).
//! Requests made meanwhile wait in the session queue, behind the ones the server refused. When
//! the hold ends one of them goes out first, alone (a refused one, when there is one); the rest
//! follow once its answer starts without a new hold, so a server still overloaded meets one
//! request, not a burst.

use crate::engine::api::Millis;
use crate::engine::ids::ReqId;
use crate::engine::requests::Purpose;
use crate::engine::scheduler::Timer;
use crate::engine::Engine;

/// The longest hold honoured, whatever the server asks.
pub(super) const MAX_HOLD_MS: Millis = 5 * 60 * 1000;

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

    /// Requests wait: the hold is in force (until its timer releases it, also at its last
    /// millisecond), the first request after it is not answered yet, or the session's
    /// `initialized` notification is not (see `initialized.rs`).
    pub(crate) fn gated(&self) -> bool {
        let s = &self.session;
        s.hold_probe.is_some() || s.hold_until.is_some() || s.initialized_pending.is_some()
    }

    /// Whether `p` must wait (input answers never do).
    pub(crate) fn held(&self, p: &Purpose) -> bool {
        !matches!(p, Purpose::Answer(_)) && self.gated()
    }

    /// A request the server refused with the `Retry-After` now in force waits at the front of
    /// the queue instead of on a timer, so it goes first when the hold ends: the server said
    /// when it may come back. Behind the requests made meanwhile it would meet each new hold
    /// first, and under a per-task limit one task after another would be refused while none got
    /// through. `wait` is its retry delay: one longer than the `Retry-After` (error backoff)
    /// keeps its timer. Returns whether `p` was queued.
    pub(crate) fn retry_first(
        &mut self,
        now: Millis,
        p: Purpose,
        retry_after: Option<Millis>,
        wait: Millis,
    ) -> bool {
        if retry_after.is_none_or(|ra| wait > ra) || self.hold(now).is_none() {
            return false;
        }
        match &p {
            Purpose::Get(t) => match self.tasks.get_mut(t) {
                Some(e) => e.poll.in_flight = true,
                None => return false,
            },
            Purpose::Result(t) => match self.tasks.get_mut(t) {
                Some(e) => {
                    e.result.start();
                }
                None => return false,
            },
            _ => return false,
        }
        self.session.queue.insert(0, p);
        true
    }

    /// The hold passed: send the first waiting request alone (the others follow its answer, or
    /// a request timeout later at most).
    pub(crate) fn release_hold(&mut self, now: Millis) {
        if let Some(h) = self.hold(now) {
            return self.timers.set(Timer::Hold, h);
        }
        self.session.hold_until = None;
        if !self.session.is_ready() {
            return self.connect(now);
        }
        if self.session.hold_probe.take().is_some() {
            return self.drain_held(now);
        }
        let mut waiting = self.waiting_requests().into_iter();
        for p in waiting.by_ref() {
            let before = self.reqs.last_id();
            self.dispatch(now, p);
            if self.reqs.last_id() != before {
                self.session.hold_probe = Some(self.reqs.last_id());
                let at = now.saturating_add(self.cfg.request_timeout_ms.max(1));
                self.timers.set(Timer::Hold, at);
                break;
            }
        }
        self.session.queue.extend(waiting);
        if self.session.hold_probe.is_none() {
            self.listen_changed(now);
        }
    }

    /// The first request after a hold got its answer's head (or ended): unless it brought a new
    /// hold, the rest may go.
    pub(crate) fn probe_answered(&mut self, n: ReqId) {
        if self.session.hold_probe == Some(n) {
            self.session.hold_probe = None;
            self.session.drain = true;
        }
    }

    /// Sends everything that waited, unless a new hold came.
    pub(crate) fn drain_held(&mut self, now: Millis) {
        self.session.drain = false;
        if self.gated() || !self.session.is_ready() {
            return;
        }
        self.timers.clear(&Timer::Hold);
        for p in self.waiting_requests() {
            self.dispatch(now, p);
        }
        self.listen_changed(now);
    }

    /// The session queue, without polls made moot while waiting: a finished task whose outcome
    /// comes from `tasks/result` needs no status request.
    fn waiting_requests(&mut self) -> Vec<Purpose> {
        let fetches = self.session.fetches_results;
        let mut queue = std::mem::take(&mut self.session.queue);
        crate::engine::session::keep_waiting(&mut queue, &mut |p| {
            let Purpose::Get(t) = p else { return true };
            match self.tasks.get_mut(t) {
                Some(e) if fetches && e.is_terminal() => {
                    e.poll.in_flight = false;
                    false
                }
                _ => true,
            }
        });
        queue
    }
}
