//! Events for this tab: queued with the exactly-once guards, handed to its host in order.

use super::Tab;
use crate::driver::tabs::wire::SessionWire;
use crate::engine::api::{End, Event};

impl Tab {
    /// Queues an event for this tab's host, applying the exactly-once guards.
    pub(in crate::driver::tabs) fn push_local(&self, ev: Event) {
        let keep = {
            let mut st = self.0.st.borrow_mut();
            match &ev {
                Event::Status { sub, task } => match st.subs.get_mut(&sub.0) {
                    Some(s) => {
                        s.task_id = Some(task.task_id.clone());
                        st.tasks.insert(task.task_id.clone(), task.clone());
                        true
                    }
                    None => false,
                },
                Event::Done { sub, end, .. } => {
                    if let End::Finished { task: Some(t), .. } = end {
                        if st.subs.contains_key(&sub.0) {
                            st.tasks.insert(t.task_id.clone(), t.clone());
                        }
                    }
                    st.subs.remove(&sub.0).is_some()
                }
                Event::Reply { op, .. } => st.ops.remove(&op.0).is_some(),
                _ => true,
            }
        };
        if keep {
            self.0.outbox.borrow_mut().push_back(ev);
        }
    }

    /// Tells this tab's host about the session (once per change).
    pub(in crate::driver::tabs) fn announce_session(&self, s: &SessionWire) {
        let fresh = {
            let mut st = self.0.st.borrow_mut();
            st.session = Some(s.clone());
            if st.delivered_session.as_ref() == Some(s) {
                false
            } else {
                st.delivered_session = Some(s.clone());
                true
            }
        };
        if fresh {
            self.push_local(s.event());
        }
    }

    /// Hands queued events to the host, in order, with no borrow held.
    pub(in crate::driver::tabs) fn deliver(&self) {
        if self.0.delivering.replace(true) {
            return;
        }
        loop {
            let ev = self.0.outbox.borrow_mut().pop_front();
            let Some(ev) = ev else { break };
            let host = self.0.host.borrow().clone();
            if let Some(h) = host {
                h(ev);
            }
        }
        self.0.delivering.set(false);
    }
}
