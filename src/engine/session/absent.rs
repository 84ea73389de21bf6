//! What the server does not offer, remembered for the session so nothing is asked in a loop:
//! task methods answered "method not found" (-32601, also with HTTP 404 from a modern server),
//! and tasks altogether when the negotiated era offers none.
//!
//! - `tasks/get` missing (or no tasks): watchers end at once with `Unsupported`.
//! - `tasks/list`, `tasks/cancel` missing: the operation fails at once with `Unsupported`.
//! - `subscriptions/listen` missing: pushes are off, polling goes on; one warning.

use super::quirks::{Quirk, TaskMethod};
use super::Session;
use crate::engine::api::{ClientError, ErrorKind};
use crate::engine::requests::{Failure, Purpose};

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

impl Session {
    /// The failure says the server has no such method: -32601, or (sessionless modern only,
    /// where a 404 cannot mean a dead session) an HTTP 404.
    pub(crate) fn method_missing(&self, f: &Failure) -> bool {
        let modern = self.dialect() == Some(crate::protocol::model::Dialect::Modern);
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
        self.quirks.insert(Quirk::Lacks(m));
        absent_error(m)
    }

    /// Why task status cannot be had, if it cannot.
    pub(crate) fn status_unavailable(&self) -> Option<ClientError> {
        if !self.is_ready() {
            return None;
        }
        if !self.tasks {
            return Some(no_tasks_error(self.legacy_tasks));
        }
        self.quirks
            .has(Quirk::Lacks(TaskMethod::Get))
            .then(|| absent_error(TaskMethod::Get))
    }

    /// Why a request the server is known not to serve is answered at once, if it is.
    pub(super) fn absent(&self, p: &Purpose) -> Option<ClientError> {
        if !self.is_ready() {
            return None;
        }
        let method = match p {
            Purpose::Get(_) => TaskMethod::Get,
            Purpose::List { .. } => TaskMethod::List,
            Purpose::Cancel { .. } => TaskMethod::Cancel,
            _ => return None,
        };
        if !self.tasks {
            Some(no_tasks_error(self.legacy_tasks))
        } else if self.quirks.has(Quirk::Lacks(method)) {
            Some(absent_error(method))
        } else {
            None
        }
    }

    /// `subscriptions/listen` failed (`refusals` times): when the server lacks it (or refused it
    /// too often), pushes are off for the session and polling carries on; what the host hears of
    /// it, once.
    pub(super) fn listen_refused(&mut self, f: &Failure, refusals: u32) -> Option<ClientError> {
        if !self.method_missing(f) && refusals < crate::engine::calls::listen::MAX_LISTEN_REFUSALS {
            return None;
        }
        self.listens = false;
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
        Some(error)
    }
}
