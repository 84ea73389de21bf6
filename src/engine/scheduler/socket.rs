//! The WebSocket link's reconnects: once the socket closed (or a new one failed to open), the
//! engine asks for another after a backoff delay that grows while attempts keep failing and
//! starts over once one opens. Also what a first socket that never opened leads to.

use super::cadence::backoff_delay;
use crate::engine::api::{ClientError, ErrorKind, Millis, Output};
use crate::engine::scheduler::Timer;
use crate::engine::Engine;

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

/// What a first socket that failed before opening leads to.
#[derive(Debug, PartialEq)]
pub enum FirstSocket {
    /// It asked for the `mcp` subprotocol, which a server may leave unselected (and a runtime
    /// then fails the socket): one more at once, asking for none.
    WithoutSubprotocol,
    /// `connect` fails with this.
    Fail(ClientError),
}

/// The first socket failed before opening (`why`: what its constructor threw, if it did);
/// `subprotocol`: it asked for `mcp` (false only for the one tried again without).
pub fn first_socket_failed(subprotocol: bool, why: Option<String>) -> FirstSocket {
    if subprotocol {
        return FirstSocket::WithoutSubprotocol;
    }
    let message = why.unwrap_or_else(|| {
        "WebSocket connection failed, with the `mcp` subprotocol and again without it".into()
    });
    FirstSocket::Fail(ClientError::new(ErrorKind::Transport, message))
}
