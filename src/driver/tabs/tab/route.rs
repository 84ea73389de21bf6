//! Routing this tab's operations to wherever the leader is, and re-sending them to a new one.

use serde_json::Value;

use super::{Role, Tab};
use crate::driver::tabs::wire::{Msg, Op};
use crate::engine::api::{ClientError, End, ErrorKind, Event, SubId};

impl Tab {
    /// Sends one of this tab's operations to wherever the leader is.
    pub(super) fn route(&self, id: u64, op: Op) {
        enum To {
            Me,
            Peer(u64),
            Nobody,
        }
        let to = match &self.0.st.borrow().role {
            Role::Leader(l) if l.ready => To::Me,
            Role::Follower { epoch, .. } => To::Peer(*epoch),
            _ => To::Nobody,
        };
        match to {
            To::Me => self.apply(self.0.id, id, op),
            To::Peer(epoch) => self.post(&Msg::Op {
                from: self.0.id,
                epoch,
                id,
                op,
            }),
            // Nobody has it yet: stopping is local (the next leader never hears of it). Anything
            // else stays in `subs`/`ops` and is sent once a leader is known; answers to a gone
            // leader's input requests are dropped (the next leader asks again where it can).
            To::Nobody => {
                if let Op::Unsubscribe { sub } = op {
                    self.abort_local(sub);
                }
            }
        }
    }

    fn abort_local(&self, sub: SubId) {
        let s = self.0.st.borrow_mut().subs.remove(&sub.0);
        if let Some(s) = s {
            self.push_local(Event::Done {
                sub,
                task_id: s.task_id,
                end: End::Aborted,
            });
        }
    }

    /// A new leader: give it every live subscription and pending operation.
    pub(in crate::driver::tabs) fn resend_all(&self) {
        let (subs, ops) = {
            let st = self.0.st.borrow();
            (st.subs.clone(), st.ops.clone())
        };
        for (id, s) in subs {
            if s.stopping {
                self.abort_local(SubId(id));
                continue;
            }
            let op = match (&s.task_id, &s.op) {
                (Some(t), _) => Op::Watch { task_id: t.clone() },
                (None, Op::Watch { .. }) => s.op.clone(),
                (None, _) if s.acked => {
                    // The old leader may have sent it: sending it again could run it twice.
                    let gone = self.0.st.borrow_mut().subs.remove(&id);
                    if gone.is_some() {
                        let mut error = ClientError::new(
                            ErrorKind::Transport,
                            "the leader tab went away before the server named the task; the call may have run",
                        );
                        error.data = Some(Value::from("leaderLost"));
                        self.push_local(Event::Done {
                            sub: SubId(id),
                            task_id: None,
                            end: End::Failed { error },
                        });
                    }
                    continue;
                }
                (None, _) => s.op.clone(),
            };
            self.route(id, op);
        }
        for (id, op) in ops {
            self.route(id, op);
        }
        self.deliver();
    }
}
