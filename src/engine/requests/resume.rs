//! Resumable response streams (Streamable HTTP, 2025-11-25): a request's SSE stream that carried
//! event ids and ends, or breaks, before the request's answer is resumed with `GET` +
//! `Last-Event-ID` after the server's `retry` delay; the answer redelivered there settles the
//! original request. Attempts that bring no new event are bounded and back off.
//!
//! Streams without an event id cannot be resumed (the request fails as before); a resumption
//! refused with an HTTP error status fails the request; the modern listen stream is re-opened by
//! its own policy instead.

use crate::engine::api::{Millis, SendKey};
use crate::engine::ids::ReqId;
use crate::engine::scheduler::cadence::ERROR_CAP_MS;
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::{Timer, Timers};

use super::pending::Requests;

/// Resumptions in a row that bring no new event before the request fails.
pub(crate) const MAX_RESUMES: u32 = 5;
/// Delay before resuming when the server sent no `retry` field.
pub(super) const DEFAULT_RETRY_MS: Millis = 1_000;
/// Floor of any resumption delay, whatever `retry` says (a `retry: 0` must not storm).
pub(super) const MIN_RETRY_MS: Millis = 100;

/// Where a request's SSE response stream is.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct StreamPos {
    /// The last event id seen on the stream (resumable only when there is one).
    pub(super) last_event_id: Option<String>,
    /// The server's `retry` delay.
    pub(super) retry_ms: Option<Millis>,
    /// Resumptions since the stream last brought a new event.
    pub(super) attempts: u32,
    /// The stream open now is a resumption `GET` (closing it cancels nothing).
    pub(crate) resumed: bool,
}

/// The wait before resumption number `attempt` (0-based, counted since the last new event): the
/// server's `retry` for the first, then doubling with jitter up to the error cap (never below
/// `retry`).
pub(super) fn resume_delay(retry_ms: Option<Millis>, attempt: u32, rng: &mut Rng) -> Millis {
    let base = retry_ms.unwrap_or(DEFAULT_RETRY_MS).max(MIN_RETRY_MS);
    if attempt == 0 {
        return base;
    }
    let grown = base
        .saturating_mul(1 << attempt.min(16))
        .min(ERROR_CAP_MS.max(base));
    let jittered = rng.between(grown / 2, grown + grown / 2);
    jittered.max(base)
}

impl Requests {
    /// The stream of transmission `key` moved on: where, for resuming its request.
    pub(super) fn moved_on(
        &mut self,
        key: SendKey,
        last_event_id: Option<String>,
        retry_ms: Option<Millis>,
    ) {
        let Some(p) = self.id_of(key).and_then(|n| self.get_mut(n)) else {
            return;
        };
        if last_event_id.is_some() && last_event_id != p.stream.last_event_id {
            p.stream.last_event_id = last_event_id;
            p.stream.attempts = 0;
        }
        if retry_ms.is_some() {
            p.stream.retry_ms = retry_ms;
        }
    }

    /// Request `n`'s stream ended unanswered (`status`: its HTTP status, `None` when the
    /// transport failed before one): schedules its resumption when that is possible and allowed.
    /// Returns whether it did.
    pub(super) fn try_resume(
        &mut self,
        now: Millis,
        n: ReqId,
        status: Option<u16>,
        (rng, timers): (&mut Rng, &mut Timers),
    ) -> bool {
        let Some(p) = self.get_mut(n) else {
            return false;
        };
        let resumable = p.stream.last_event_id.is_some()
            && p.purpose.resumable()
            && status.is_none_or(|s| (200..300).contains(&s))
            && p.stream.attempts < MAX_RESUMES;
        if !resumable {
            return false;
        }
        let delay = resume_delay(p.stream.retry_ms, p.stream.attempts, rng);
        p.stream.attempts += 1;
        p.http_status = None;
        timers.set(Timer::Resume(n), now.saturating_add(delay));
        true
    }
}
