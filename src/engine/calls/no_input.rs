//! A task that reports `input_required` while its input request never comes. The client asks for
//! it every way the dialect offers (2025-11-25: a `tasks/result`, on whose stream or any other the
//! request comes; 2026-07-28: `tasks/get`, whose answer carries `inputRequests`); a poll that still
//! finds the task waiting [`NO_INPUT_MS`] after that, with no input request open and none come or
//! answered meanwhile, ends its subscribers with a typed error naming the deviation: nothing the
//! client can do moves the task, and a caller must not wait forever. The entry stays until its GC
//! like any task nobody follows, so a later `watch` of the id joins it at its cadence.

use super::inputs::Inputs;
use crate::engine::api::{ClientError, ErrorKind, Millis};
use crate::engine::registry::TaskEntry;
use crate::protocol::model::TaskStatus;

/// How long after being asked a server may leave a task `input_required` with no input request.
pub(crate) const NO_INPUT_MS: Millis = 5_000;

const NO_INPUT: &str =
    "the server reports the task input_required but sent no input request within 5 s of being asked";

/// When a poll of task `e` can tell that its input request did not come: [`NO_INPUT_MS`] after
/// it was asked (`fetches_results`: the session asks for them with `tasks/result`). `None` while
/// it waits for no input request, or was not asked yet.
pub(crate) fn decided_at(e: &TaskEntry, now: Millis, fetches_results: bool) -> Option<Millis> {
    let snapshot = (e.snapshot.as_ref()).filter(|k| k.status == TaskStatus::InputRequired)?;
    if e.subs.is_empty() || !snapshot.input_requests().is_empty() {
        return None;
    }
    // Asked: since it became `input_required`, and (2025-11-25) since its result was asked.
    let since = e.poll.since.get().unwrap_or(now);
    let asked = match fetches_results {
        true => e.result.sent_at().map(|s| s.max(since)),
        false => Some(since),
    };
    asked.map(|at| at.saturating_add(NO_INPUT_MS))
}

/// When a status request of task `e` due `at` goes out: a poll due less than `floor` before the
/// moment a poll can decide that the input request did not come waits for that moment, so the
/// poll that decides is this one, not one an interval later (a server with a 5 s interval would
/// otherwise make the caller wait 5 s more whenever the answer beats the deadline by a few ms).
pub(crate) fn poll_due(
    e: &TaskEntry,
    now: Millis,
    at: Millis,
    floor: Millis,
    fetches_results: bool,
) -> Millis {
    match decided_at(e, now, fetches_results) {
        Some(decides) if at < decides && decides < at.saturating_add(floor) => decides,
        _ => at,
    }
}

/// Whether task `e`, as a poll found it at `now`, waits for an input request that did not come
/// in time (`fetches_results`: the session asks for them with `tasks/result`): the error its
/// subscribers fail with.
pub(crate) fn never_came(
    e: &TaskEntry,
    now: Millis,
    fetches_results: bool,
    inputs: &Inputs,
) -> Option<ClientError> {
    let late = decided_at(e, now, fetches_results).is_some_and(|at| now >= at);
    let quiet = !inputs.heard_within(now, NO_INPUT_MS);
    (late && quiet).then(|| ClientError::new(ErrorKind::Protocol, NO_INPUT))
}
