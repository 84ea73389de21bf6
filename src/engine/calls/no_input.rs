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

/// Whether task `e`, as a poll found it at `now`, waits for an input request that did not come
/// in time (`fetches_results`: the session asks for them with `tasks/result`): the error its
/// subscribers fail with.
pub(crate) fn never_came(
    e: &TaskEntry,
    now: Millis,
    fetches_results: bool,
    inputs: &Inputs,
) -> Option<ClientError> {
    let snapshot = (e.snapshot.as_ref()).filter(|k| k.status == TaskStatus::InputRequired)?;
    // Asked: since it became `input_required`, and (2025-11-25) since its result was asked.
    let since = e.poll.since.get().unwrap_or(now);
    let asked = match fetches_results {
        true => e.result.sent_at().map(|s| s.max(since)),
        false => Some(since),
    };
    let late = asked.is_some_and(|at| now >= at.saturating_add(NO_INPUT_MS));
    let quiet = !inputs.heard_within(now, NO_INPUT_MS);
    (late && !e.subs.is_empty() && snapshot.input_requests().is_empty() && quiet)
        .then(|| ClientError::new(ErrorKind::Protocol, NO_INPUT))
}
