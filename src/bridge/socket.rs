//! The WebSocket transport's state as the host reports its socket's events: whether a socket
//! exists and is open, which subprotocol to ask for, and what a socket closing means.
//!
//! Some servers complete the handshake without selecting a subprotocol, which browsers and `ws`
//! refuse when one was requested: what a first socket that fails before opening leads to is the
//! engine's [`first_socket_failed`] (once more at once without `mcp`; if that one opens, the
//! client keeps asking for none).

use crate::engine::api::{ClientError, TransportError};
use crate::engine::{first_socket_failed, FirstSocket};

/// The subprotocol requested (2025-11-25 WebSocket binding).
const SUBPROTOCOL: &str = "mcp";

/// One client's socket; `F` hears that the first socket opened or failed (`connect` waits).
pub struct Socket<F> {
    /// A socket exists (opening or open).
    socket: bool,
    open: bool,
    /// Until the first socket opened: what waits for it.
    first: Option<F>,
    /// Request the `mcp` subprotocol (until a first socket opened only without it).
    subprotocol: bool,
}

impl<F> Default for Socket<F> {
    fn default() -> Self {
        Self {
            socket: false,
            open: false,
            first: None,
            subprotocol: true,
        }
    }
}

/// What a socket opening leads to.
#[derive(Debug, PartialEq)]
pub enum Opened<F> {
    /// The first socket: the client is connected.
    First(F),
    /// A later one: the engine hears the connection is up.
    Again,
}

/// What a socket closing (or failing) leads to.
#[derive(Debug, PartialEq)]
pub enum Closed<F> {
    /// Already handled.
    Handled,
    /// The first socket failed asking for `mcp`: open one once more, without it.
    WithoutSubprotocol,
    /// The first socket failed: `connect` fails with this.
    First(F, ClientError),
    /// A later socket closed or failed to open: the engine hears the connection is down.
    Later,
}

impl<F> Socket<F> {
    /// `first` waits for the first socket to open or fail.
    #[inline]
    pub fn wait_first(&mut self, first: F) {
        self.first = Some(first);
    }

    /// A new socket is to open: the subprotocol to ask for.
    #[inline]
    pub fn opening(&mut self) -> Option<&'static str> {
        self.open = false;
        self.subprotocol.then_some(SUBPROTOCOL)
    }

    /// Whether making the socket worked (its constructor did not throw).
    #[inline]
    pub fn made(&mut self, made: bool) {
        self.socket = made;
    }

    #[inline]
    pub fn opened(&mut self) -> Opened<F> {
        self.open = true;
        match self.first.take() {
            Some(first) => Opened::First(first),
            None => Opened::Again,
        }
    }

    /// The socket closed or failed (`why`: its constructor threw that).
    #[inline]
    pub fn closed(&mut self, why: Option<String>) -> Closed<F> {
        if !self.socket && why.is_none() {
            return Closed::Handled;
        }
        self.open = false;
        self.socket = false;
        let Some(first) = self.first.take() else {
            return Closed::Later;
        };
        match first_socket_failed(self.subprotocol, why) {
            FirstSocket::WithoutSubprotocol => {
                self.subprotocol = false;
                self.first = Some(first);
                Closed::WithoutSubprotocol
            }
            FirstSocket::Fail(e) => Closed::First(first, e),
        }
    }

    /// Closes for good: whether a socket was there to close (it reports nothing more).
    #[inline]
    pub fn close(&mut self) -> bool {
        self.open = false;
        std::mem::take(&mut self.socket)
    }

    /// Whether a frame can go now (else it fails at once with [`not_connected`]: the engine only
    /// runs once the first socket is open, and re-opens its session after the connection is up
    /// again).
    #[inline]
    pub fn sendable(&self) -> bool {
        self.open && self.socket
    }
}

/// Why a frame sent while the socket is down or (re)connecting fails.
pub fn not_connected() -> TransportError {
    TransportError::network("WebSocket is not connected")
}
