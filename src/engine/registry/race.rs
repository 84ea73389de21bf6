//! A pushed end while the task's `tasks/result` is held. Some servers notice the end on that
//! stream only at their next internal check (the TS SDK re-reads its store every poll interval)
//! while a fresh request answers at once; others answer the held one at once. Until the server
//! has shown which, a fresh `tasks/result` races the held one: the first to bring the outcome
//! wins and the other is closed. A win of the fresh one teaches that held results lag: from
//! then on a pushed end closes the held stream and asks again at once (one request open per
//! task). A win of the held one teaches that they are prompt: from then on the held stream gets
//! [`RESULT_GRACE_MS`] before the race starts (no second request where none is needed).
//!
//! While both are out, an answer without the outcome is set aside: a server that forgets a task
//! once its result was answered meets the second request with "no such task", maybe before the
//! first one's answer arrives on its own connection. The other request decides. The fresh
//! request needs no slot of the result budget (a finished task's result answers at once), and
//! the held one keeps its slot until it ends.

use crate::engine::api::Millis;

/// How long a held `tasks/result` of a server whose held results were seen prompt may take to
/// bring the outcome after a pushed end before a fresh one races it.
pub(super) const RESULT_GRACE_MS: Millis = 100;
