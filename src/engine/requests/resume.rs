//! Resumable response streams (Streamable HTTP, 2025-11-25): a request's SSE stream that carried
//! event ids and ends, or breaks, before the request's answer is resumed with `GET` +
//! `Last-Event-ID` after the server's `retry` delay; the answer redelivered there settles the
//! original request. Attempts that bring no new event are bounded and back off.
//!
//! Streams without an event id cannot be resumed (the request fails as before); a resumption
//! refused with an HTTP error status fails the request; the modern listen stream is re-opened by
//! its own policy instead.

use crate::engine::api::Millis;
use crate::engine::scheduler::cadence::ERROR_CAP_MS;
use crate::engine::scheduler::rng::Rng;

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
