//! A held `tasks/result` cut on the way: a proxy between client and server answers 502 or 504
//! once its read timeout passes (nginx: 60 s), however long the task runs. Such a cut says
//! nothing about the task nor the server: the result is held again at once, with one warning per
//! task. A hold cut within [`QUICK_CUT_MS`] is held again only after the error
//! backoff (the one formula, never sooner than the task's interval), so a gateway that fails at
//! once meets a few requests, not a loop.

use crate::engine::api::Millis;
use crate::engine::requests::Failure;

/// A hold cut sooner than this after it went out is held again only after the backoff.
pub(super) const QUICK_CUT_MS: Millis = 1_000;

/// Whether `f` is a gateway giving up on a held request (HTTP 502 or 504).
pub(super) fn cut_on_the_way(f: &Failure) -> bool {
    matches!(f, Failure::Transport { .. }) && matches!(f.http_status(), Some(502 | 504))
}
