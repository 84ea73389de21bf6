//! The WebSocket link's reconnects: once the socket closed (or a new one failed to open), the
//! engine asks for another after a backoff delay that grows while attempts keep failing and
//! starts over once one opens. Also what a first socket that never opened leads to.

use super::cadence::backoff_delay;
use super::rng::Rng;
use super::{Timer, Timers};
use crate::engine::api::{ClientError, ErrorKind, Millis};

#[derive(Debug, Default)]
pub(crate) struct Socket {
    /// Sockets that failed or closed since one last opened.
    attempt: u32,
}

impl Socket {
    /// The socket closed or failed to open: the next one is asked for after the backoff.
    pub(crate) fn down(&mut self, now: Millis, rng: &mut Rng, timers: &mut Timers) {
        let delay = backoff_delay(self.attempt, rng);
        self.attempt = self.attempt.saturating_add(1);
        timers.set(Timer::Reconnect, now.saturating_add(delay));
    }

    /// A socket opened.
    pub(crate) fn up(&mut self, timers: &mut Timers) {
        self.attempt = 0;
        timers.clear(&Timer::Reconnect);
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
