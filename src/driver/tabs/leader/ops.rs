//! Applying the tabs' operations to the leader's engine (tab-local ids → engine ids), and the
//! tasks the leader keeps tracking on its own account.

use super::Dest;
use crate::driver::tabs::tab::Tab;
use crate::driver::tabs::wire::{Msg, Op, TabId};
use crate::engine::api::{End, Event, SubId};

impl Tab {
    /// Applies one tab's operation to the engine (this tab's own ones too).
    pub(in crate::driver::tabs) fn apply(&self, from: TabId, id: u64, op: Op) {
        let Some(driver) = self.ready_driver() else {
            self.leading(|l| l.inbox.push((from, id, op)));
            return;
        };
        let epoch = self.leading(|l| l.epoch).unwrap_or_default();
        match op {
            Op::CallTool { .. } | Op::Request { .. } | Op::Watch { .. } => {
                let known = self
                    .leading(|l| l.router.sub_keys.contains_key(&(from, id)))
                    .unwrap_or(true);
                if !known {
                    if let Op::Watch { task_id } = &op {
                        self.import_record(task_id, false);
                    }
                    let watched = match &op {
                        Op::Watch { task_id } => Some(task_id.clone()),
                        _ => None,
                    };
                    driver.op_then(
                        |e, now| match op {
                            Op::CallTool {
                                name,
                                arguments,
                                opts,
                            } => e.call_tool(now, &name, arguments, opts),
                            Op::Request {
                                method,
                                params,
                                opts,
                            } => e.request(now, &method, params, opts),
                            Op::Watch { task_id } => e.watch(now, &task_id),
                            _ => SubId(0),
                        },
                        |sub| {
                            self.leading(|l| {
                                l.router.subs.insert(*sub, Dest::Tab(from, id));
                                l.router.sub_keys.insert((from, id), *sub);
                                if let Some(t) = watched {
                                    l.router.sub_tasks.insert(*sub, t);
                                }
                            });
                        },
                    );
                }
                self.ack(from, epoch, id);
            }
            Op::Unsubscribe { sub } => {
                let engine_sub = self
                    .leading(|l| {
                        let s = l.router.sub_keys.get(&(from, sub.0)).copied();
                        if let Some(s) = s {
                            l.router.stopped.insert(s);
                        }
                        s
                    })
                    .flatten();
                match engine_sub {
                    Some(s) => driver.op(|e, now| e.unsubscribe(now, s)),
                    None => self.send_to(
                        from,
                        epoch,
                        Event::Done {
                            sub,
                            task_id: None,
                            end: End::Aborted,
                        },
                    ),
                }
            }
            Op::Cancel { .. } | Op::DeleteTask { .. } | Op::ListTasks { .. } | Op::ListTools => {
                let known = self
                    .leading(|l| l.router.op_keys.contains_key(&(from, id)))
                    .unwrap_or(true);
                if known {
                    return;
                }
                driver.op_then(
                    |e, now| match op {
                        Op::Cancel { task_id } => e.cancel(now, &task_id),
                        Op::DeleteTask { task_id } => e.delete_task(now, &task_id),
                        Op::ListTasks { cursor } => e.list_tasks(now, cursor.as_deref()),
                        _ => e.list_tools(now),
                    },
                    |o| {
                        self.leading(|l| {
                            l.router.ops.insert(*o, (from, id));
                            l.router.op_keys.insert((from, id), *o);
                        });
                    },
                );
            }
            Op::AnswerInput { id: wire, answer } => {
                let found = self.leading(|l| l.router.inputs.remove(&wire.0)).flatten();
                if let Some((input, task, key)) = found {
                    driver.op(|e, now| e.answer_input(now, input, answer));
                    if let Some(t) = task {
                        self.leading(|l| l.answered.entry(t.clone()).or_default().insert(key));
                        self.persist(&t);
                    }
                }
            }
            Op::Forget { task_id } => {
                let internal = self.leading(|l| {
                    l.records.remove(&task_id);
                    l.answered.remove(&task_id);
                    l.dirty.remove(&task_id);
                    let s = l.router.internal.remove(&task_id);
                    if let Some(s) = s {
                        l.router.subs.remove(&s);
                    }
                    s
                });
                if let Some(Some(s)) = internal {
                    driver.op(|e, now| e.unsubscribe(now, s));
                }
            }
        }
    }

    fn ack(&self, to: TabId, epoch: u64, id: u64) {
        if to == self.0.id {
            if let Some(s) = self.0.st.borrow_mut().subs.get_mut(&id) {
                s.acked = true;
            }
        } else {
            self.post(&Msg::Ack { to, epoch, id });
        }
    }

    /// Seeds the engine with a task's record if it does not know the task; `track`: also keep
    /// following it on the leader's own account until it ends, so its record stays current when
    /// no tab watches it.
    pub(super) fn import_record(&self, task_id: &str, track: bool) {
        let Some(driver) = self.ready_driver() else {
            return;
        };
        let plan = self.leading(|l| {
            if track && l.router.internal.contains_key(task_id) {
                return None;
            }
            let rec = l.records.get(task_id).cloned();
            let keys: Vec<String> = l
                .answered
                .get(task_id)
                .map(|k| k.iter().cloned().collect())
                .unwrap_or_default();
            Some((rec, keys))
        });
        let Some(Some((rec, keys))) = plan else {
            return;
        };
        let id = task_id.to_owned();
        driver.op_then(
            |e, now| {
                if e.task(&id).is_none() {
                    if let Some(mut s) = rec.as_ref().and_then(|r| r.snapshot.clone()) {
                        s.input_keys = keys;
                        e.import_task(now, s);
                    }
                }
                let status = e.task(&id).map(|t| t.status)?;
                if !track || status.is_terminal() {
                    return None;
                }
                Some(e.watch(now, &id))
            },
            |sub| {
                if let Some(s) = sub {
                    self.leading(|l| {
                        l.router.subs.insert(*s, Dest::Internal(task_id.to_owned()));
                        l.router.internal.insert(task_id.to_owned(), *s);
                        l.router.sub_tasks.insert(*s, task_id.to_owned());
                    });
                }
            },
        );
    }

    /// Drops the leader's own tracking of a task that no tab follows any more.
    pub(super) fn release_if_unwatched(&self, task_id: &str) {
        let internal = self
            .leading(|l| {
                let watched = l.router.sub_tasks.iter().any(|(s, t)| {
                    t == task_id && matches!(l.router.subs.get(s), Some(Dest::Tab(..)))
                });
                if watched {
                    return None;
                }
                let s = l.router.internal.remove(task_id);
                if let Some(s) = s {
                    l.router.subs.remove(&s);
                    l.router.sub_tasks.remove(&s);
                }
                s
            })
            .flatten();
        if let (Some(s), Some(driver)) = (internal, self.ready_driver()) {
            driver.op(|e, now| e.unsubscribe(now, s));
        }
    }
}
