//! Routing the leader engine's events back to the tabs (engine ids → tab-local ids).

use std::collections::HashSet;

use super::Dest;
use crate::driver::tabs::tab::Tab;
use crate::driver::tabs::wire::{Msg, SessionWire, TabId};
use crate::engine::api::{End, Event, InputId, OpId, SubId};

impl Tab {
    /// Routes one event of the leader's engine (ignored once this leadership ended).
    pub(super) fn on_engine_event(&self, epoch: u64, ev: Event) {
        if self.is_epoch(epoch) {
            self.route_event(epoch, ev);
            self.deliver();
        }
    }

    fn route_event(&self, epoch: u64, ev: Event) {
        match ev {
            Event::Connected {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            } => {
                let s = SessionWire {
                    dialect,
                    protocol_version,
                    server_info: server_info.clone(),
                    capabilities,
                };
                self.leading(|l| l.server_info = server_info);
                self.announce_session(&s);
                self.announce();
                self.save_session();
            }
            Event::Status { sub, task } => {
                let task_id = task.task_id.clone();
                let dest = self.leading(|l| {
                    l.router.sub_tasks.insert(sub, task_id.clone());
                    l.router.subs.get(&sub).cloned()
                });
                if let Some(Some(Dest::Tab(t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Status {
                            sub: SubId(local),
                            task,
                        },
                    );
                }
                self.persist(&task_id);
            }
            Event::Done { sub, task_id, end } => {
                let dest = self.leading(|l| {
                    let stopped = l.router.stopped.remove(&sub);
                    l.router.sub_tasks.remove(&sub);
                    let d = l.router.subs.remove(&sub);
                    match &d {
                        Some(Dest::Tab(t, local)) => {
                            l.router.sub_keys.remove(&(*t, *local));
                        }
                        Some(Dest::Internal(id)) => {
                            l.router.internal.remove(id);
                        }
                        None => {}
                    }
                    (d, stopped)
                });
                let (dest, stopped) = match dest {
                    Some((d, stopped)) => (Some(d), stopped),
                    None => (None, false),
                };
                if let Some(id) = &task_id {
                    self.persist(id);
                    let internal = matches!(dest, Some(Some(Dest::Internal(_))));
                    if stopped {
                        // Stopped on purpose: let go unless another tab still follows the task.
                        self.release_if_unwatched(id);
                    } else if !internal && !matches!(end, End::Finished { .. }) {
                        // The watcher's tab went away before the end: keep tracking.
                        self.import_record(id, true);
                    }
                }
                if let Some(Some(Dest::Tab(t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Done {
                            sub: SubId(local),
                            task_id,
                            end,
                        },
                    );
                }
            }
            Event::Input {
                id,
                task_id,
                request,
            } => {
                let wire = InputId(((epoch & 0xffff_ffff) << 32) | (id.0 & 0xffff_ffff));
                let target = self.leading(|l| {
                    l.router
                        .inputs
                        .insert(wire.0, (id, task_id.clone(), request.key.clone()));
                    // The tab that follows the task longest answers it; else this one.
                    l.router
                        .subs
                        .iter()
                        .filter_map(|(s, d)| match d {
                            Dest::Tab(t, _)
                                if task_id.is_some()
                                    && l.router.sub_tasks.get(s) == task_id.as_ref() =>
                            {
                                Some((*s, *t))
                            }
                            _ => None,
                        })
                        .min()
                        .map(|(_, t): (SubId, TabId)| t)
                });
                let to = target.flatten().unwrap_or(self.0.id);
                self.send_to(
                    to,
                    epoch,
                    Event::Input {
                        id: wire,
                        task_id,
                        request,
                    },
                );
            }
            Event::Reply { op, result } => {
                let dest = self.leading(|l| {
                    let d = l.router.ops.remove(&op);
                    if let Some(k) = d {
                        l.router.op_keys.remove(&k);
                    }
                    d
                });
                if let Some(Some((t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Reply {
                            op: OpId(local),
                            result,
                        },
                    );
                }
            }
            Event::Warning {
                task_id: Some(task),
                error,
            } => {
                let tabs = self.leading(|l| {
                    let set: HashSet<TabId> = l
                        .router
                        .subs
                        .iter()
                        .filter(|(s, _)| l.router.sub_tasks.get(*s) == Some(&task))
                        .filter_map(|(_, d)| match d {
                            Dest::Tab(t, _) => Some(*t),
                            Dest::Internal(_) => None,
                        })
                        .collect();
                    set
                });
                let mut tabs: Vec<TabId> = tabs.unwrap_or_default().into_iter().collect();
                if tabs.is_empty() {
                    tabs.push(self.0.id);
                }
                for t in tabs {
                    self.send_to(
                        t,
                        epoch,
                        Event::Warning {
                            task_id: Some(task.clone()),
                            error: error.clone(),
                        },
                    );
                }
            }
            ev @ (Event::Warning { task_id: None, .. } | Event::Transition { .. }) => {
                self.post(&Msg::Ev {
                    to: None,
                    epoch,
                    event: ev.clone(),
                });
                self.push_local(ev);
            }
        }
    }
}
