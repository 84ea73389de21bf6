//! What the server does not offer, remembered for the session so nothing is asked in a loop:
//! task methods answered "method not found" (-32601, also with HTTP 404 from a modern server),
//! and tasks altogether when the negotiated era offers none.
//!
//! - `tasks/get` missing (or no tasks): watchers end at once with `Unsupported`.
//! - `tasks/list`, `tasks/cancel` missing: the operation fails at once with `Unsupported`.
//! - `subscriptions/listen` missing: pushes are off, polling goes on; one warning.

use super::quirks::{Quirk, TaskMethod};
use crate::engine::api::{ClientError, ErrorKind, Millis};
use crate::engine::requests::{Failure, Purpose};
use crate::engine::Engine;

/// JSON-RPC "method not found".
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;

/// The error for a method the server lacks.
fn absent_error(m: TaskMethod) -> ClientError {
    let mut e = ClientError::new(
        ErrorKind::Unsupported,
        [
            "the server has no ",
            m.name(),
            " (not asked again this session)",
        ]
        .concat(),
    );
    e.code = Some(METHOD_NOT_FOUND);
    e
}

/// No tasks in the session's era; `legacy`: the server's 2025-11-25 era offers them (the caller
/// forced modern).
fn no_tasks_error(legacy: bool) -> ClientError {
    let message = match legacy {
        true => "the server offers no tasks in its 2026-07-28 era; its 2025-11-25 era offers tasks: use dialect \"legacy\" or \"auto\"",
        false => "the server offers no tasks in any era it speaks",
    };
    ClientError::new(ErrorKind::Unsupported, message)
}

impl Engine {
    /// The failure says the server has no such method: -32601, or (sessionless modern only,
    /// where a 404 cannot mean a dead session) an HTTP 404.
    pub(crate) fn method_missing(&self, f: &Failure) -> bool {
        let modern = self.session.dialect() == Some(crate::protocol::model::Dialect::Modern);
        f.rpc().is_some_and(|e| e.code == METHOD_NOT_FOUND)
            || (modern
                && matches!(
                    f,
                    Failure::Transport {
                        status: Some(404),
                        ..
                    }
                ))
    }

    /// Remembers that the server lacks `m`; the error to hand out for it.
    pub(crate) fn remember_absent(&mut self, m: TaskMethod) -> ClientError {
        self.session.quirks.insert(Quirk::Lacks(m));
        absent_error(m)
    }

    /// Why task status cannot be had, if it cannot.
    pub(crate) fn status_unavailable(&self) -> Option<ClientError> {
        if !self.session.is_ready() {
            return None;
        }
        if !self.session.tasks {
            return Some(no_tasks_error(self.session.legacy_tasks));
        }
        self.session
            .quirks
            .has(Quirk::Lacks(TaskMethod::Get))
            .then(|| absent_error(TaskMethod::Get))
    }

    /// Answers at once a request the server is known not to serve. Returns whether it did.
    pub(crate) fn refuse_absent(&mut self, now: Millis, p: &Purpose) -> bool {
        if !self.session.is_ready() {
            return false;
        }
        let method = match p {
            Purpose::Get(_) => TaskMethod::Get,
            Purpose::List { .. } => TaskMethod::List,
            Purpose::Cancel { .. } => TaskMethod::Cancel,
            _ => return false,
        };
        let error = if !self.session.tasks {
            no_tasks_error(self.session.legacy_tasks)
        } else if self.session.quirks.has(Quirk::Lacks(method)) {
            absent_error(method)
        } else {
            return false;
        };
        match p {
            Purpose::Get(t) => self.no_status(now, t, error),
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => self.reply(*op, Err(error)),
            _ => {}
        }
        true
    }

    /// Task status cannot be had: a task whose `tasks/result` is in flight still ends through
    /// it (no more polls); every other watcher of the task ends now.
    pub(crate) fn no_status(&mut self, now: Millis, task_id: &str, error: ClientError) {
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        entry.poll.in_flight = false;
        if self.session.fetches_results && entry.result.req().is_some() {
            return;
        }
        self.drop_task_failing(now, task_id, error);
    }

    /// `subscriptions/listen` failed: when the server lacks it (or refused it too often), pushes
    /// are off for the session and polling carries on; the host hears of it once.
    pub(crate) fn listen_refused(&mut self, f: &Failure, refusals: u32) {
        if !self.method_missing(f) && refusals < crate::engine::calls::listen::MAX_LISTEN_REFUSALS {
            return;
        }
        self.session.listens = false;
        let mut error = self.remember_absent(TaskMethod::Listen);
        if !self.method_missing(f) {
            error = f.client_error();
            error.message = [
                "subscriptions/listen keeps failing (",
                &error.message,
                "); following tasks by polling",
            ]
            .concat();
        }
        self.warn(None, error);
    }
}
