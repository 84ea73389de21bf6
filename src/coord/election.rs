//! Who leads: taking the lock, stepping down, stealing it from a silent leader, taking over from
//! a hidden one, and the page events that bear on it (visibility, freeze/resume, pagehide).

use super::leader::Leading;
use super::wire::Msg;
use super::{Coord, Output, Role};
use crate::engine::api::Millis;

/// A follower takes the lock from a leader silent this long (its last heartbeat said visible)…
pub const STEAL_VISIBLE_MS: u64 = 6_000;
/// …or this long when it said hidden (hidden pages' timers may run once a minute).
pub const STEAL_HIDDEN_MS: u64 = 150_000;
/// A visible follower takes over from a leader hidden this long, before the browser throttles
/// the hidden leader's timers (and so its polling) to once a minute.
pub const HANDOFF_HIDDEN_MS: u64 = 60_000;

impl Coord {
    /// The lock is ours (or there is no lock): take over the scope.
    pub(super) fn become_leader(&mut self, now: Millis, epoch: u64) {
        self.lock_requested = false;
        if let Role::Leader(_) = self.role {
            return;
        }
        self.role = Role::Leader(Box::new(Leading::new(epoch, now)));
        self.announce(now);
        self.emit(Output::Lead { epoch });
    }

    /// Leaves the leader role: the shell detaches the engine and releases the lock. Events of
    /// the old engine are ignored from here on.
    fn step_down(&mut self) -> bool {
        if !matches!(self.role, Role::Leader(_)) {
            return false;
        }
        self.role = Role::Electing;
        self.emit(Output::StepDown);
        true
    }

    pub(super) fn on_tick(&mut self, now: Millis) {
        self.ticks = self.ticks.wrapping_add(1);
        if matches!(self.role, Role::Leader(_)) {
            return self.leader_tick(now, self.ticks);
        }
        let limit = if self.leader_hidden_ms == 0 {
            STEAL_VISIBLE_MS
        } else {
            STEAL_HIDDEN_MS
        };
        if self.coordinated && now.saturating_sub(self.leader_seen) > limit {
            // The lock is held by a tab that says nothing (hung, or frozen without a `freeze`).
            self.leader_seen = now;
            self.request_lock(true);
        }
    }

    pub(super) fn on_visibility(&mut self, now: Millis, visible: bool) {
        self.set_visible(now, visible);
        if matches!(self.role, Role::Leader(_)) {
            let me = self.id;
            self.leader_visibility(me, visible);
            self.announce(now);
        } else {
            self.post(Msg::Vis {
                from: self.id,
                visible,
            });
            self.maybe_take_over(now);
        }
    }

    pub(super) fn on_online(&mut self) {
        if matches!(self.role, Role::Leader(_)) {
            self.leader_online();
        } else {
            self.post(Msg::Online { from: self.id });
        }
    }

    /// The page is about to be frozen: a leader hands over now (frozen pages run nothing).
    pub(super) fn on_freeze(&mut self) {
        self.step_down();
    }

    /// Unfrozen (or back from the back/forward cache): rejoin, and hear from the leader again.
    pub(super) fn on_resume(&mut self, now: Millis, visible: bool) {
        if matches!(self.role, Role::Leader(_)) {
            return;
        }
        self.role = Role::Electing;
        self.leader_seen = now;
        if self.coordinated && !self.lock_requested {
            self.request_lock(false);
        }
        self.set_visible(now, visible);
        self.hello();
    }

    pub(super) fn on_pagehide(&mut self) {
        if !matches!(self.role, Role::Leader(_)) {
            self.post(Msg::Bye { from: self.id });
        }
    }

    /// Our leader lock was stolen (we were silent too long): become a follower again.
    pub(super) fn on_lock_lost(&mut self, now: Millis) {
        if !self.step_down() {
            return;
        }
        self.leader_seen = now;
        self.request_lock(false);
        self.hello();
    }

    /// This page is visible and the leader's has been hidden long: lead from here instead.
    pub(super) fn maybe_take_over(&mut self, now: Millis) {
        let hidden_for = self
            .leader_hidden_ms
            .saturating_add(now.saturating_sub(self.leader_seen));
        let take = self.visible()
            && matches!(self.role, Role::Follower { .. })
            && self.leader_hidden_ms > 0
            && hidden_for > HANDOFF_HIDDEN_MS;
        if take && self.coordinated {
            self.leader_hidden_ms = 0;
            self.request_lock(true);
        }
    }

    /// Records whether the page shows: hidden since the first `false`, visible again at `true`.
    fn set_visible(&mut self, now: Millis, visible: bool) {
        self.hidden_since = if visible {
            None
        } else {
            self.hidden_since.or(Some(now))
        };
    }

    /// Whether the page shows (what it announces, and what `hidden_ms` measures, agree).
    pub(super) fn visible(&self) -> bool {
        self.hidden_since.is_none()
    }

    /// How long this page has been hidden (0: visible).
    pub(super) fn hidden_ms(&self, now: Millis) -> u64 {
        self.hidden_since
            .map_or(0, |t| now.saturating_sub(t).max(1))
    }
}
