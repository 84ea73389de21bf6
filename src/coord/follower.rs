//! A tab's own side: routing its operations to wherever the leader is, re-sending them to a new
//! leader, and the exactly-once guards on the events handed to its page.

use crate::json::Value;

use super::wire::{Msg, Op, SessionWire};
use super::{Coord, Output, Role};
use crate::engine::api::{ClientError, End, ErrorKind, Event, Millis, SubId};

impl Coord {
    /// Sends one of this tab's operations to wherever the leader is.
    pub(super) fn route(&mut self, id: u64, op: Op) {
        match &self.role {
            Role::Leader(l) if l.ready => {
                let me = self.id;
                self.apply_or_queue(me, id, op);
            }
            Role::Follower { epoch } => {
                let msg = Msg::Op {
                    from: self.id,
                    epoch: *epoch,
                    id,
                    op,
                };
                self.post(msg);
            }
            // Nobody has it yet: stopping is local (the next leader never hears of it). Anything
            // else stays in `subs`/`ops` and is sent once a leader is known; answers to a gone
            // leader's input requests are dropped (the next leader asks again where it can).
            _ => {
                if let Op::Unsubscribe { sub } = op {
                    self.abort_local(sub);
                }
            }
        }
    }

    fn abort_local(&mut self, sub: SubId) {
        if let Some(s) = self.subs.remove(&sub.0) {
            self.emit(Output::Deliver(Event::Done {
                sub,
                task_id: s.task_id,
                end: End::Aborted,
            }));
        }
    }

    /// A new leader: give it every live subscription and pending operation.
    pub(super) fn resend_all(&mut self) {
        for (id, s) in self.subs.clone() {
            if s.stopping {
                self.abort_local(SubId(id));
                continue;
            }
            let op = match (&s.task_id, &s.op) {
                (Some(t), _) => Op::Watch { task_id: t.clone() },
                (None, Op::Watch { .. }) => s.op.clone(),
                (None, _) if s.acked => {
                    // The old leader may have sent it: sending it again could run it twice.
                    self.subs.remove(&id);
                    let mut error = ClientError::new(
                        ErrorKind::Transport,
                        "the leader tab went away before the server named the task; the call may have run",
                    );
                    error.data = Some(Value::from("leaderLost"));
                    self.emit(Output::Deliver(Event::Done {
                        sub: SubId(id),
                        task_id: None,
                        end: End::Failed { error },
                    }));
                    continue;
                }
                (None, _) => s.op.clone(),
            };
            self.route(id, op);
        }
        for (id, op) in self.ops.clone() {
            self.route(id, op);
        }
    }

    /// Queues an event for this tab's page, applying the exactly-once guards.
    pub(super) fn push_local(&mut self, ev: Event) {
        let keep = match &ev {
            Event::Status { sub, task } => match self.subs.get_mut(&sub.0) {
                Some(s) => {
                    s.task_id = Some(task.task_id.clone());
                    self.tasks.insert(task.task_id.clone(), task.clone());
                    true
                }
                None => false,
            },
            Event::Done { sub, end, .. } => {
                if let End::Finished { task: Some(t), .. } = end {
                    if self.subs.contains_key(&sub.0) {
                        self.tasks.insert(t.task_id.clone(), t.clone());
                    }
                }
                self.subs.remove(&sub.0).is_some()
            }
            Event::Reply { op, .. } => self.ops.remove(&op.0).is_some(),
            _ => true,
        };
        if keep {
            self.emit(Output::Deliver(ev));
        }
    }

    /// Tells this tab's page about the session (once per change).
    pub(super) fn announce_session(&mut self, s: &SessionWire) {
        self.session = Some(s.clone());
        if self.delivered_session.as_ref() != Some(s) {
            self.delivered_session = Some(s.clone());
            self.push_local(s.event());
        }
    }

    pub(super) fn on_message(&mut self, now: Millis, msg: Msg) {
        match msg {
            Msg::Leader {
                from,
                epoch,
                hidden_ms,
                session,
                session_id,
            } if from != self.id => self.on_leader(now, epoch, hidden_ms, session, session_id),
            Msg::Ev { to, epoch, event } if to.is_none_or(|t| t == self.id) => {
                let current = matches!(self.role, Role::Follower { epoch: e } if e == epoch);
                // Before this tab is connected, the leader's session warnings are not ours: they
                // would read as this tab's failed connect.
                let theirs = self.delivered_session.is_none()
                    && matches!(event, Event::Warning { task_id: None, .. });
                if current && !theirs {
                    if let (Event::Input { id, .. }, Some(_)) = (&event, to) {
                        let got = Msg::Got {
                            from: self.id,
                            epoch,
                            id: id.0,
                        };
                        self.post(got);
                    }
                    self.push_local(event);
                }
            }
            Msg::Ack { to, epoch, id } if to == self.id => {
                if matches!(self.role, Role::Follower { epoch: e } if e == epoch) {
                    if let Some(s) = self.subs.get_mut(&id) {
                        s.acked = true;
                    }
                }
            }
            other => self.on_leader_message(now, other),
        }
    }

    fn on_leader(
        &mut self,
        now: Millis,
        epoch: u64,
        hidden_ms: u64,
        session: Option<SessionWire>,
        session_id: Option<String>,
    ) {
        if matches!(self.role, Role::Leader(_)) {
            // Two leaders for a moment (a stolen lock): the loser finds out from its lock.
            return;
        }
        self.leader_seen = now;
        self.leader_hidden_ms = hidden_ms;
        let known = matches!(self.role, Role::Follower { epoch: e } if e == epoch);
        if !known {
            self.role = Role::Follower { epoch };
        }
        if let Some(s) = session {
            self.session_id = session_id;
            self.announce_session(&s);
        }
        if !known {
            self.resend_all();
        }
        self.maybe_take_over(now);
    }
}
