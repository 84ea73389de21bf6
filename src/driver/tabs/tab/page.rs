//! Page events (visibility, online, freeze/resume, pagehide), the ticker's housekeeping, and a
//! stolen leader lock.

use super::{Role, Tab};
use crate::driver::global;
use crate::driver::tabs::web;
use crate::driver::tabs::wire::Msg;

/// A follower takes the lock from a leader silent this long (its last heartbeat said visible)…
const STEAL_VISIBLE_MS: u64 = 6_000;
/// …or this long when it said hidden (hidden pages' timers may run once a minute).
const STEAL_HIDDEN_MS: u64 = 150_000;

impl Tab {
    pub(super) fn on_tick(&self) {
        let n = self.0.ticks.get().wrapping_add(1);
        self.0.ticks.set(n);
        let leading = matches!(self.0.st.borrow().role, Role::Leader(_));
        if leading {
            return self.leader_tick(n);
        }
        let (closed, silent, limit) = {
            let st = self.0.st.borrow();
            let limit = if st.leader_hidden_ms == 0 {
                STEAL_VISIBLE_MS
            } else {
                STEAL_HIDDEN_MS
            };
            (
                st.closed,
                global::now().saturating_sub(st.leader_seen),
                limit,
            )
        };
        if !closed && silent > limit && self.0.web.borrow().locks.is_some() {
            // The lock is held by a tab that says nothing (hung, or frozen without a `freeze`).
            self.0.st.borrow_mut().leader_seen = global::now();
            self.request_leadership(true);
        }
    }

    pub(super) fn on_visibility(&self, visible: bool) {
        {
            let mut st = self.0.st.borrow_mut();
            st.visible = visible;
            st.hidden_since = if visible {
                None
            } else {
                st.hidden_since.or(Some(global::now()))
            };
        }
        let follower = !matches!(self.0.st.borrow().role, Role::Leader(_));
        if follower {
            self.post(&Msg::Vis {
                from: self.0.id,
                visible,
            });
            self.maybe_take_over();
        } else {
            self.leader_visibility(self.0.id, visible);
            self.announce();
        }
    }

    pub(super) fn on_online(&self) {
        let follower = !matches!(self.0.st.borrow().role, Role::Leader(_));
        if follower {
            self.post(&Msg::Online { from: self.0.id });
        } else {
            self.leader_online();
        }
    }

    /// The page is about to be frozen: a leader hands over now (frozen pages run nothing).
    pub(super) fn on_freeze(&self) {
        let role = {
            let mut st = self.0.st.borrow_mut();
            if !matches!(st.role, Role::Leader(_)) {
                return;
            }
            std::mem::replace(&mut st.role, Role::Electing)
        };
        if let Role::Leader(l) = role {
            self.step_down(l, false);
        }
    }

    /// Unfrozen (or back from the back/forward cache): rejoin, and hear from the leader again.
    pub(super) fn on_resume(&self) {
        if self.is_closed() {
            return;
        }
        let rejoin = {
            let mut st = self.0.st.borrow_mut();
            match st.role {
                Role::Leader(_) => false,
                _ => {
                    st.role = Role::Electing;
                    st.leader_seen = global::now();
                    true
                }
            }
        };
        if !rejoin {
            return;
        }
        if self.0.web.borrow().leader_req.is_none() {
            self.request_leadership(false);
        }
        let visible = web::page_visible();
        self.0.st.borrow_mut().visible = visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }

    pub(super) fn on_pagehide(&self) {
        if !matches!(self.0.st.borrow().role, Role::Leader(_)) {
            self.post(&Msg::Bye { from: self.0.id });
        }
    }

    /// Our leader lock was stolen (we were silent too long): become a follower again.
    pub(super) fn on_lock_lost(&self) {
        let role = {
            let mut st = self.0.st.borrow_mut();
            if st.closed || !matches!(st.role, Role::Leader(_)) {
                return;
            }
            st.leader_seen = global::now();
            std::mem::replace(&mut st.role, Role::Electing)
        };
        if let Role::Leader(l) = role {
            self.step_down(l, false);
        }
        self.request_leadership(false);
        let visible = self.0.st.borrow().visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }
}
