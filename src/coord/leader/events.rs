//! Routing the leader engine's events back to the tabs (engine ids → tab-local ids).

use crate::json::Value;

use super::{Dest, Pending, Work};
use crate::collections::sorted::SortedSet;
use crate::coord::wire::{Msg, SessionWire, TabId};
use crate::coord::{Coord, Output};
use crate::engine::api::{ClientError, End, Event, InputId, Millis, OpId, SubId};
use crate::protocol::model::Task;

impl Coord {
    /// Routes one event of the leader's engine (ignored once that leadership ended).
    pub(in crate::coord) fn on_engine_event(&mut self, now: Millis, epoch: u64, ev: Event) {
        if self.leading_epoch() != Some(epoch) {
            return;
        }
        match ev {
            ev @ Event::Connected { .. } => self.route_connected(now, ev),
            Event::Status { sub, task } => self.route_status(epoch, sub, task),
            Event::Done { sub, task_id, end } => self.route_done(epoch, sub, task_id, end),
            Event::Input {
                id,
                task_id,
                request,
            } => {
                let wire = wire_input_id(epoch, id);
                let to = self.answerer(task_id.as_deref(), &[]);
                let p = Pending {
                    input: id,
                    task_id,
                    request,
                    to,
                    unreceived: None,
                    silent: Vec::new(),
                };
                self.ask(epoch, wire, p);
            }
            Event::Reply { op, result } => self.route_reply(epoch, op, result),
            Event::Warning {
                task_id: Some(task),
                error,
            } => self.route_task_warning(epoch, task, error),
            ev @ (Event::Warning { task_id: None, .. } | Event::Transition { .. }) => {
                self.post(Msg::Ev {
                    to: None,
                    epoch,
                    event: ev.clone(),
                });
                self.push_local(ev);
            }
        }
    }

    /// The engine's session is up: every tab learns it, and it is saved for the next leader.
    fn route_connected(&mut self, now: Millis, ev: Event) {
        let Some(s) = SessionWire::of(ev) else { return };
        if let Some(l) = self.leading() {
            l.server_info = s.server_info.clone();
        }
        let server_info = s.server_info.clone();
        self.announce_session(&s);
        self.queue(Work::LearnSessionId);
        self.announce(now);
        self.emit(Output::SaveSession { server_info });
    }

    /// A subscription's task changed: to the tab that holds it, and into the task's record.
    fn route_status(&mut self, epoch: u64, sub: SubId, task: Task) {
        let task_id = task.task_id.clone();
        let dest = self.leading().and_then(|l| {
            l.router.sub_tasks.insert(sub, task_id.clone());
            l.router.subs.get(&sub).cloned()
        });
        if let Some(Dest::Tab(t, local)) = dest {
            let ev = Event::Status {
                sub: SubId(local),
                task,
            };
            self.send_to(t, epoch, ev);
        }
        self.emit(Output::Persist(task_id));
    }

    /// A one-shot operation's answer: to the tab that asked, under its own id.
    fn route_reply(&mut self, epoch: u64, op: OpId, result: Result<Value, ClientError>) {
        let dest = self.leading().and_then(|l| {
            let d = l.router.ops.remove(&op);
            if let Some(k) = d {
                l.router.op_keys.remove(&k);
            }
            d
        });
        if let Some((t, local)) = dest {
            let ev = Event::Reply {
                op: OpId(local),
                result,
            };
            self.send_to(t, epoch, ev);
        }
    }

    /// A task's warning: to every tab following the task (this tab when none does).
    fn route_task_warning(&mut self, epoch: u64, task: String, error: ClientError) {
        let tabs: SortedSet<TabId> = self
            .leading_ref()
            .map(|l| {
                let r = &l.router;
                r.subs
                    .iter()
                    .filter(|(s, _)| r.sub_tasks.get(*s) == Some(&task))
                    .filter_map(|(_, d)| match d {
                        Dest::Tab(t, _) => Some(*t),
                        Dest::Internal(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let tabs = if tabs.is_empty() {
            [self.id].into_iter().collect()
        } else {
            tabs
        };
        for t in tabs {
            let ev = Event::Warning {
                task_id: Some(task.clone()),
                error: error.clone(),
            };
            self.send_to(t, epoch, ev);
        }
    }

    fn route_done(&mut self, epoch: u64, sub: SubId, task_id: Option<String>, end: End) {
        let Some(l) = self.leading() else { return };
        let r = &mut l.router;
        let stopped = r.stopped.remove(&sub);
        r.sub_tasks.remove(&sub);
        let dest = r.subs.remove(&sub);
        match &dest {
            Some(Dest::Tab(t, local)) => {
                r.sub_keys.remove(&(*t, *local));
            }
            Some(Dest::Internal(id)) => {
                r.internal.remove(id);
            }
            None => {}
        }
        if let Some(id) = &task_id {
            self.emit(Output::Persist(id.clone()));
            let internal = matches!(dest, Some(Dest::Internal(_)));
            if stopped {
                // Stopped on purpose: let go unless another tab still follows the task.
                self.release(id);
            } else if !internal && !matches!(end, End::Finished { .. }) {
                // The watcher's tab went away before the end: keep tracking.
                self.track(id);
            }
        }
        if let Some(Dest::Tab(t, local)) = dest {
            let ev = Event::Done {
                sub: SubId(local),
                task_id,
                end,
            };
            self.send_to(t, epoch, ev);
        }
    }

    /// The tab that follows the task longest answers its input requests (none of `skip`); else
    /// this one.
    pub(super) fn answerer(&self, task_id: Option<&str>, skip: &[TabId]) -> TabId {
        let r = self.leading_ref().map(|l| &l.router);
        let follower = r.and_then(|r| {
            (r.subs.iter())
                .filter_map(|(s, d)| match d {
                    Dest::Tab(t, _)
                        if !skip.contains(t)
                            && task_id.is_some()
                            && r.sub_tasks.get(s).map(String::as_str) == task_id =>
                    {
                        Some((*s, *t))
                    }
                    _ => None,
                })
                .min()
        });
        follower.map_or(self.id, |(_, t)| t)
    }

    /// Hands an input request to its tab, remembering it until the answer comes (and, for
    /// another tab, until it says it received it).
    pub(super) fn ask(&mut self, epoch: u64, wire: u64, mut p: Pending) {
        let ev = Event::Input {
            id: InputId(wire),
            task_id: p.task_id.clone(),
            request: p.request.clone(),
        };
        let to = p.to;
        p.unreceived = (to != self.id).then_some(0);
        if let Some(l) = self.leading() {
            l.router.inputs.insert(wire, p);
        }
        self.send_to(to, epoch, ev);
    }
}

impl Coord {
    /// Tab `from` received input request `wire`.
    pub(in crate::coord) fn input_received(&mut self, from: TabId, wire: u64) {
        let Some(l) = self.leading() else { return };
        if let Some(p) = l.router.inputs.get_mut(&wire).filter(|p| p.to == from) {
            p.unreceived = None;
        }
    }

    /// On the heartbeat: an input request its tab did not say it received within
    /// [`INPUT_RECEIPT_TICKS`] goes to the next tab following its task (this one when none
    /// does). A page hung or frozen before the request reached it would keep its task waiting
    /// for good; a page only slow to say so may show it too (the first answer counts).
    pub(in crate::coord) fn reask_unreceived(&mut self) {
        let Some(l) = self.leading() else { return };
        let epoch = l.epoch;
        let mut late = Vec::new();
        for (wire, p) in l.router.inputs.iter_mut() {
            if let Some(n) = &mut p.unreceived {
                *n += 1;
                if *n >= INPUT_RECEIPT_TICKS {
                    late.push(*wire);
                }
            }
        }
        for wire in late {
            let Some(mut p) = self.leading().and_then(|l| l.router.inputs.remove(&wire)) else {
                continue;
            };
            p.silent.push(p.to);
            p.to = self.answerer(p.task_id.as_deref(), &p.silent);
            self.ask(epoch, wire, p);
        }
    }
}

/// Heartbeats a tab has to say it received an input request before another tab is asked.
const INPUT_RECEIPT_TICKS: u32 = 5;

/// The id an input request crosses the channel under: unique across leaders (the epoch's low
/// 21 bits) and within one (the engine's id), and below 2^53, so that it survives being a JSON
/// number read by the host's `JSON.parse`.
fn wire_input_id(epoch: u64, id: InputId) -> u64 {
    (epoch & 0x1f_ffff) << 32 | (id.0 & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_input_ids_are_exact_as_json_numbers() {
        const TWO_POW_53: u64 = 1 << 53;
        for (epoch, id) in [(u64::MAX, u64::MAX), (u64::MAX >> 11, 1), (7, u64::MAX)] {
            let wire = wire_input_id(epoch, InputId(id));
            assert!(wire < TWO_POW_53, "{wire}");
            assert_eq!(wire as f64 as u64, wire);
        }
        assert_ne!(wire_input_id(1, InputId(1)), wire_input_id(2, InputId(1)));
    }
}
