//! Server notifications about tasks, and the answers to the caller's one-shot operations
//! (cancel, list).

use crate::json::Value;

use crate::json::ToJson;
use crate::protocol::dialect::TaskNotice;
use crate::protocol::model::TaskList;

use crate::engine::api::{ClientError, ErrorKind, Millis, OpId, SendKey};
use crate::engine::registry::tasks::Source;
use crate::engine::requests::{Answer, Failure};
use crate::engine::session::quirks::TaskMethod;
use crate::engine::{Engine, DRAFT};

impl Engine {
    /// A server notification: task pushes of every dialect, tools-list changes.
    /// `via`: the stream it came on.
    pub(crate) fn on_notification(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        method: &str,
        params: Option<&Value>,
    ) {
        if method == "notifications/tools/list_changed" {
            return self.tools.invalidate();
        }
        if method == "notifications/cancelled" {
            return self.on_request_cancelled(params);
        }
        let Some(codec) = self.session.codec_any() else {
            return;
        };
        match codec.parse_notification(method, params) {
            Some(TaskNotice::Status(task)) => {
                let id = task.task_id.clone();
                self.note_status_push(via, &id, task.status);
                if self.tasks.contains_key(&id) {
                    self.apply_snapshot(now, &id, task, Source::Push);
                } else {
                    self.keep_early_push(now, task);
                }
            }
            Some(TaskNotice::Created { task_id }) if DRAFT => self.on_created(now, &task_id),
            Some(TaskNotice::Listening {
                subscription,
                task_ids,
            }) => {
                let n = (subscription.and_then(|id| self.route(&id)))
                    .or_else(|| via.and_then(|k| self.reqs.id_of(k)));
                self.on_listen_ack(now, n, task_ids);
            }
            _ => {}
        }
    }

    pub(crate) fn on_cancel(&mut self, now: Millis, op: OpId, task_id: &str, res: Answer) {
        match res {
            Ok(v) => {
                let snapshot = self
                    .session
                    .codec_any()
                    .and_then(|c| c.parse_get(v.clone()).ok());
                self.reply(op, Ok(v));
                if let Some(task) = snapshot.filter(|t| t.task_id == task_id) {
                    if self.tasks.contains_key(task_id) {
                        self.apply_snapshot(now, task_id, task, Source::Other);
                    }
                }
            }
            Err(f) => self.fail_op(op, &f, TaskMethod::Cancel),
        }
        // Whatever the answer, the task's status decides its end (a result that came while the
        // cancel was on its way waits for it).
        self.poll_soon(now, task_id);
    }

    /// Answers `op` with its request's failure; a task method the server lacks is remembered.
    fn fail_op(&mut self, op: OpId, f: &Failure, method: TaskMethod) {
        let error = if self.session.method_missing(f) {
            self.session.remember_absent(method)
        } else {
            f.client_error()
        };
        self.reply(op, Err(error));
    }

    pub(crate) fn on_list(&mut self, op: OpId, res: Answer) {
        let page = match res {
            Ok(v) => self.session.codec_any().map(|c| c.parse_list(v)),
            Err(f) => return self.fail_op(op, &f, TaskMethod::List),
        };
        match page {
            Some(Ok((tasks, next_cursor))) => {
                let page = TaskList { tasks, next_cursor };
                self.reply(op, Ok(page.to_json()));
            }
            Some(Err(e)) => self.reply(op, Err(e.into())),
            None => self.reply(op, Err(ClientError::new(ErrorKind::Protocol, "no dialect"))),
        }
    }
}
