//! The leader lock as a Redis lease (`persist: { redis }`): a holder that dies or stops keeps it
//! until it expires; a process resumed after a pause longer than the lease loses it at once.

use super::Sim;
use crate::coord::Input;
use crate::engine::api::Millis;
use crate::protocol::model::Dialect;

impl Sim {
    /// Like [`new`](Self::new), the lock a lease of `lease_ms`.
    pub(crate) fn leases(dialect: Dialect, seed: u64, lease_ms: Millis) -> Sim {
        let mut sim = Sim::new(dialect, seed);
        sim.lease_ms = Some(lease_ms);
        sim
    }

    /// A paused process runs again (`SIGCONT`) after longer than its lease: its late renewal
    /// tells it the lease is gone before it does anything else.
    pub(crate) fn unpause(&mut self, i: usize) {
        let paused = self.pages.get(i).is_some_and(|p| p.alive && p.hung);
        if !paused {
            return;
        }
        if let Some(p) = self.pages.get_mut(i) {
            p.hung = false;
        }
        // Paused past its lease: whether or not another took it, it is no longer this one's.
        if self.holder == Some(i) {
            self.release();
        }
        self.input(i, Input::LockLost);
        if self.holder.is_none() {
            self.release();
        }
    }

    /// With leases, holder `i` stopped renewing: its lease runs out `lease_ms` from now.
    pub(super) fn stop_renewing(&mut self, i: usize) {
        if let Some(ms) = self.lease_ms.filter(|_| self.holder == Some(i)) {
            self.lapse = Some(self.h.now + ms);
        }
    }
}
