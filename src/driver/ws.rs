//! WebSocket transport: `new WebSocket(url, "mcp")` (opened by `io.js`), one JSON-RPC message per
//! text frame; the engine hears `Input::Connection { up }` and says when to open a new socket
//! (`Output::Reconnect`). `io.js` reports only the current socket's events, each once; what each
//! means is [`Socket`]'s to say.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::global::describe;
use super::io::Io;
use super::{Driver, Started};
use crate::bridge::socket::{not_connected, Closed, Opened, Socket};
use crate::engine::api::{Input, Transmit, TransportError};

/// WebSocket transport state: the constructor, and the socket's state, with (until the first
/// socket opened) the driver (the wait holds it; its I/O holds it only weakly) and what hears
/// that it started, or why it could not.
pub struct Ws {
    ctor: Function,
    socket: Socket<(Driver, Started)>,
}

impl Ws {
    pub fn new(ctor: Function) -> Self {
        Self {
            ctor,
            socket: Socket::default(),
        }
    }

    /// Closes the socket for good (no reconnect; it reports nothing more).
    pub fn close(&mut self, io: &Io) {
        if self.socket.close() {
            io.close();
        }
    }
}

/// A WebSocket driver keeps `started` until its first socket opened or failed (then `None`: open
/// it); an HTTP driver hands it back.
pub fn wait_first(d: &Driver, started: Started) -> Option<Started> {
    d.with(|st| match st.ws.as_mut() {
        Some(ws) => {
            ws.socket.wait_first((d.clone(), started));
            None
        }
        None => Some(started),
    })
}

/// Opens a new socket (the engine's `Output::Reconnect`).
pub fn open(d: &Driver) {
    let threw = d.with(|st| {
        let ws = st.ws.as_mut()?;
        let subprotocol = ws.socket.opening();
        let threw = st.io.open(&ws.ctor, &st.url, subprotocol);
        let made = threw.is_undefined();
        ws.socket.made(made);
        (!made).then_some(threw)
    });
    if let Some(e) = threw {
        closed(d, Some(describe(&e)));
    }
}

/// Runs `f` on the socket's state unless the client closed.
fn live<R>(d: &Driver, f: impl FnOnce(&mut Socket<(Driver, Started)>) -> R) -> Option<R> {
    d.with(|st| {
        st.ws
            .as_mut()
            .filter(|_| !st.closed)
            .map(|ws| f(&mut ws.socket))
    })
}

/// The socket opened.
pub fn opened(d: &Driver) {
    match live(d, Socket::opened) {
        None => {}
        Some(Opened::First((d, started))) => {
            d.pump();
            started(Ok(d));
        }
        Some(Opened::Again) => d.feed(Input::Connection { up: true }),
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

/// The socket closed or failed (`why`: its constructor threw that).
pub fn closed(d: &Driver, why: Option<String>) {
    let next = live(d, |s| s.closed(why)).unwrap_or(Closed::Handled);
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

/// Sends one frame; fails it at once while the socket is down or (re)connecting.
pub fn transmit(d: &Driver, t: Transmit) {
    let threw = d.with(|st| {
        st.ws.as_ref().filter(|ws| ws.socket.sendable())?;
        Some(st.io.send(&t.body))
    });
    let error = match threw {
        Some(e) if e.is_undefined() => return,
        Some(e) => TransportError::network(describe(&e)),
        None => not_connected(),
    };
    d.defer(Input::Failed { key: t.key, error });
}
