//! WebSocket transport: `new WebSocket(url, "mcp")` (opened by `io.js`), one JSON-RPC message per
//! text frame; the engine hears `Input::Connection { up }` and says when to open a new socket
//! (`Output::Reconnect`). `io.js` reports only the current socket's events, each once.
//!
//! Some servers complete the handshake without selecting a subprotocol, which browsers and `ws`
//! refuse when one was requested: what a first socket that fails before opening leads to is the
//! engine's [`first_socket_failed`] (once more at once without `mcp`; if that one opens, the
//! client keeps asking for none).

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::global::describe;
use super::io::Io;
use super::{Driver, Started};
use crate::engine::api::{ClientError, Input, Transmit, TransportError};
use crate::engine::{first_socket_failed, FirstSocket};

/// The subprotocol requested (2025-11-25 WebSocket binding).
const SUBPROTOCOL: &str = "mcp";

/// WebSocket transport state.
pub struct Ws {
    ctor: Function,
    /// A socket exists (opening or open).
    socket: bool,
    open: bool,
    /// Until the first socket opened: the driver (the wait holds it; its I/O holds it only
    /// weakly) and what hears that it started, or why it could not.
    first: Option<(Driver, Started)>,
    /// Request the `mcp` subprotocol (until a first socket opened only without it).
    subprotocol: bool,
}

impl Ws {
    pub fn new(ctor: Function) -> Self {
        Self {
            ctor,
            socket: false,
            open: false,
            first: None,
            subprotocol: true,
        }
    }

    /// Closes the socket for good (no reconnect; it reports nothing more).
    pub fn close(&mut self, io: &Io) {
        self.open = false;
        if std::mem::take(&mut self.socket) {
            io.close();
        }
    }
}

/// A WebSocket driver keeps `started` until its first socket opened or failed (then `None`: open
/// it); an HTTP driver hands it back.
pub fn wait_first(d: &Driver, started: Started) -> Option<Started> {
    d.with(|st| match st.ws.as_mut() {
        Some(ws) => {
            ws.first = Some((d.clone(), started));
            None
        }
        None => Some(started),
    })
}

/// Opens a new socket (the engine's `Output::Reconnect`).
pub fn open(d: &Driver) {
    let threw = d.with(|st| {
        let ws = st.ws.as_mut()?;
        ws.open = false;
        let subprotocol = ws.subprotocol.then_some(SUBPROTOCOL);
        let threw = st.io.open(&ws.ctor, &st.url, subprotocol);
        ws.socket = threw.is_undefined();
        (!ws.socket).then_some(threw)
    });
    if let Some(e) = threw {
        closed(d, Some(describe(&e)));
    }
}

/// Runs `f` on the socket's state unless the client closed.
fn live<R>(d: &Driver, f: impl FnOnce(&mut Ws) -> R) -> Option<R> {
    d.with(|st| st.ws.as_mut().filter(|_| !st.closed).map(f))
}

/// The socket opened.
pub fn opened(d: &Driver) {
    let first = live(d, |ws| {
        ws.open = true;
        ws.first.take()
    });
    match first {
        None => {}
        Some(Some((d, started))) => {
            d.pump();
            started(Ok(d));
        }
        Some(None) => d.feed(Input::Connection { up: true }),
    }
}

/// A text frame (binary frames arrive decoded as UTF-8, invalid bytes replaced).
pub fn message(d: &Driver, text: JsValue) {
    if live(d, |_| ()).is_none() {
        return;
    }
    if let Some(body) = text.as_string() {
        d.feed(Input::Message { via: None, body });
    }
}

/// What a socket closing (or failing) leads to.
enum Closed {
    /// Already handled.
    Handled,
    /// The first socket failed asking for `mcp`: try it once without.
    WithoutSubprotocol,
    /// The first socket failed: `connect` fails with this.
    First((Driver, Started), ClientError),
    /// A later socket closed or failed to open.
    Later,
}

/// The socket closed or failed (`why`: its constructor threw that).
pub fn closed(d: &Driver, why: Option<String>) {
    let next = live(d, |ws| {
        if !ws.socket && why.is_none() {
            return Closed::Handled;
        }
        ws.open = false;
        ws.socket = false;
        let Some(first) = ws.first.take() else {
            return Closed::Later;
        };
        match first_socket_failed(ws.subprotocol, why) {
            FirstSocket::WithoutSubprotocol => {
                ws.subprotocol = false;
                ws.first = Some(first);
                Closed::WithoutSubprotocol
            }
            FirstSocket::Fail(e) => Closed::First(first, e),
        }
    });
    let next = next.unwrap_or(Closed::Handled);
    match next {
        Closed::Handled => {}
        Closed::WithoutSubprotocol => open(d),
        Closed::First((d, started), e) => {
            d.shutdown();
            started(Err(e));
        }
        Closed::Later => d.feed(Input::Connection { up: false }),
    }
}

fn not_connected() -> TransportError {
    TransportError::network("WebSocket is not connected")
}

/// Sends one frame; fails it at once while the socket is down or (re)connecting (the engine only
/// runs once the first socket is open, and re-opens its session after `Connection { up: true }`).
pub fn transmit(d: &Driver, t: Transmit) {
    let threw = d.with(|st| {
        st.ws.as_ref().filter(|w| w.open && w.socket)?;
        Some(st.io.send(&t.body))
    });
    let result = match threw {
        Some(e) if e.is_undefined() => Ok(()),
        Some(e) => Err(TransportError::network(describe(&e))),
        None => Err(not_connected()),
    };
    if let Err(error) = result {
        d.defer(Input::Failed { key: t.key, error });
    }
}
