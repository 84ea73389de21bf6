//! The channel: posting to the other tabs, what a follower does with the leader's messages
//! (heartbeats, events, acks; the rest goes to the leader side), and taking over from a leader
//! hidden too long.

use super::{Role, Tab};
use crate::driver::global;
use crate::driver::tabs::wire::{Msg, SessionWire};
use crate::engine::api::Event;

/// A visible follower takes over from a leader hidden this long, before the browser throttles
/// the hidden leader's timers (and so its polling) to once a minute.
const HANDOFF_HIDDEN_MS: u64 = 60_000;

impl Tab {
    pub(in crate::driver::tabs) fn post(&self, msg: &Msg) {
        if let Some(c) = self.0.web.borrow().channel.as_ref() {
            c.post(&msg.encode());
        }
    }
    pub(super) fn on_message(&self, msg: Msg) {
        if self.is_closed() {
            return;
        }
        match msg {
            Msg::Leader {
                from,
                epoch,
                hidden_ms,
                session,
            } if from != self.0.id => self.on_leader(epoch, hidden_ms, session),
            Msg::Ev { to, epoch, event } if to.is_none_or(|t| t == self.0.id) => {
                let (current, connected) = {
                    let st = self.0.st.borrow();
                    (
                        matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch),
                        st.delivered_session.is_some(),
                    )
                };
                // Before this tab is connected, the leader's session warnings are not ours: they
                // would read as this tab's failed connect.
                let theirs = !connected && matches!(event, Event::Warning { task_id: None, .. });
                if current && !theirs {
                    self.push_local(event);
                }
            }
            Msg::Ack { to, epoch, id } if to == self.0.id => {
                let mut st = self.0.st.borrow_mut();
                if matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch) {
                    if let Some(s) = st.subs.get_mut(&id) {
                        s.acked = true;
                    }
                }
            }
            other => self.on_leader_message(other),
        }
        self.deliver();
    }

    fn on_leader(&self, epoch: u64, hidden_ms: u64, session: Option<SessionWire>) {
        let new_leader = {
            let mut st = self.0.st.borrow_mut();
            if matches!(st.role, Role::Leader(_)) {
                // Two leaders for a moment (a stolen lock): the loser finds out from its lock.
                return;
            }
            st.leader_seen = global::now();
            st.leader_hidden_ms = hidden_ms;
            let known = matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch);
            if !known {
                st.role = Role::Follower { epoch };
            }
            !known
        };
        if let Some(s) = session {
            self.announce_session(&s);
        }
        if new_leader {
            self.resend_all();
        }
        self.maybe_take_over();
    }

    /// This page is visible and the leader's has been hidden long: lead from here instead.
    pub(super) fn maybe_take_over(&self) {
        let take = {
            let st = self.0.st.borrow();
            let hidden_for = st
                .leader_hidden_ms
                .saturating_add(global::now().saturating_sub(st.leader_seen));
            st.visible
                && !st.closed
                && matches!(st.role, Role::Follower { .. })
                && st.leader_hidden_ms > 0
                && hidden_for > HANDOFF_HIDDEN_MS
        };
        if take && self.0.web.borrow().locks.is_some() {
            self.0.st.borrow_mut().leader_hidden_ms = 0;
            self.request_leadership(true);
        }
    }

    /// How long this page has been hidden (0: visible).
    pub(in crate::driver::tabs) fn hidden_ms(&self) -> u64 {
        self.0
            .st
            .borrow()
            .hidden_since
            .map_or(0, |t| global::now().saturating_sub(t).max(1))
    }
}
