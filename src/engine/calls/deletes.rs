//! `tasks/delete` (draft): on the caller's request, or once a task's result was delivered to a
//! caller who asked for that (`CallOptions::delete_on_done`, or `Config::delete_on_done` for
//! every task). Dialects without delete refuse a request or a call option before anything is sent.

use crate::protocol::model::Dialect;

use crate::engine::api::{ClientError, End, ErrorKind, Millis, OpId};
use crate::engine::requests::{Answer, Purpose};
use crate::engine::{Engine, DRAFT};

impl Engine {
    /// The error for a delete the session's dialect cannot make.
    pub(crate) fn no_delete(&self) -> ClientError {
        let dialect = match self.session.dialect() {
            Some(Dialect::Legacy) => "legacy",
            Some(Dialect::Modern) => "modern",
            Some(Dialect::Draft) => "draft",
            None => "negotiated",
        };
        ClientError::new(
            ErrorKind::InvalidInput,
            [
                "the ",
                dialect,
                " dialect has no tasks/delete (only the SEP-1686 draft deletes tasks)",
            ]
            .concat(),
        )
    }

    /// Whether the session's dialect can delete tasks (the session is ready).
    pub(crate) fn deletes(&self) -> bool {
        DRAFT
            && self
                .session
                .ready_codec()
                .is_some_and(|c| c.build_delete(&self.session.info(), "").is_some())
    }

    /// A finished task's subscribers got their `end`: delete it when a caller asked to and the
    /// server knows it (a task the server never confirmed is not there to delete).
    pub(crate) fn delete_when_delivered(&mut self, now: Millis, task_id: &str, end: &End) {
        let deletes = self.deletes();
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        let delivered = matches!(end, End::Finished { .. });
        if !(deletes && entry.delete_on_done && entry.phase.confirmed() && delivered) {
            return;
        }
        entry.delete_on_done = false;
        let task_id = task_id.to_owned();
        self.dispatch(now, Purpose::Delete { op: None, task_id });
    }

    pub(crate) fn on_delete(&mut self, now: Millis, op: Option<OpId>, task_id: &str, res: Answer) {
        match (res, op) {
            (Ok(v), op) => {
                // Gone on the server: a terminal task nobody follows is forgotten here too.
                let idle = self
                    .tasks
                    .get(task_id)
                    .is_some_and(|e| e.subs.is_empty() && e.is_terminal());
                if idle {
                    self.on_gc(now, task_id);
                }
                if let Some(op) = op {
                    self.reply(op, Ok(v));
                }
            }
            (Err(f), Some(op)) => self.reply(op, Err(f.client_error())),
            (Err(f), None) => self.warn(Some(task_id.to_owned()), f.client_error()),
        }
    }
}
