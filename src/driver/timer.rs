//! The one timer of a client: a single `setTimeout` (run by [`Io`]) re-armed for the earliest
//! deadline; its firing reaches the driver as [`report::TIMER`](super::io::report::TIMER).

use super::global::MAX_TIMEOUT_MS;
use super::io::Io;

/// One re-armable timeout (run by the client's [`Io`]).
#[derive(Default)]
pub struct Timer {
    at: Option<u64>,
}

impl Timer {
    /// Fires at `at` (ms since epoch); `u64::MAX` means never. Re-arming for the same time is a no-op.
    pub fn arm(&mut self, io: &Io, at: u64, now: u64) {
        if at == u64::MAX {
            return self.disarm(io);
        }
        if self.at == Some(at) {
            return;
        }
        // At most 2³¹−1 ms: `setTimeout` overflows beyond.
        let ms = at.saturating_sub(now).min(MAX_TIMEOUT_MS);
        io.arm(ms as f64);
        self.at = Some(at);
    }

    /// Forgets a timeout that just fired.
    pub fn fired(&mut self) {
        self.at = None;
    }

    pub fn disarm(&mut self, io: &Io) {
        if self.at.take().is_some() {
            io.disarm();
        }
    }
}
