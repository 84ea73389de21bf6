//! The WebSocket link's reconnects: once the socket closed (or a new one failed to open), the
//! engine asks for another after a backoff delay that grows while attempts keep failing and
//! starts over once one opens.

use super::api::{Millis, Output};
use super::cadence::backoff_delay;
use super::scheduler::Timer;
use super::Engine;

#[derive(Debug, Default)]
pub(crate) struct Socket {
    /// Sockets that failed or closed since one last opened.
    attempt: u32,
}

impl Engine {
    /// The socket closed or failed to open: the next one is asked for after the backoff.
    pub(crate) fn socket_down(&mut self, now: Millis) {
        let delay = backoff_delay(self.socket.attempt, &mut self.rng);
        self.socket.attempt = self.socket.attempt.saturating_add(1);
        self.timers.set(Timer::Reconnect, now.saturating_add(delay));
    }

    /// A socket opened.
    pub(crate) fn socket_up(&mut self) {
        self.socket.attempt = 0;
        self.timers.clear(&Timer::Reconnect);
    }

    /// The backoff is over: a new socket.
    pub(crate) fn reconnect_socket(&mut self) {
        self.out.push_back(Output::Reconnect);
    }
}
