//! WebSocket transport: `new WebSocket(url, "mcp")`, one JSON-RPC message per text frame; the
//! engine hears `Input::Connection { up }` and says when to open a new socket (`Output::Reconnect`).
//!
//! Some servers complete the handshake without selecting a subprotocol, which browsers and `ws`
//! refuse when one was requested: a first socket that fails before opening is tried once more at
//! once without `mcp`, and if that one opens, the client keeps asking for none.

use futures::channel::oneshot;
use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::{BinaryType, MessageEvent, WebSocket};

use super::global::describe;
use super::{Driver, Shared};
use crate::engine::api::{ClientError, ErrorKind, Input, Transmit, TransportError};

type Handler = Closure<dyn FnMut(JsValue)>;

/// The subprotocol requested (2025-11-25 WebSocket binding).
const SUBPROTOCOL: &str = "mcp";

/// WebSocket transport state.
pub struct Ws {
    ctor: Function,
    socket: Option<WebSocket>,
    open: bool,
    generation: u64,
    handlers: Vec<Handler>,
    first: Option<oneshot::Sender<Result<(), String>>>,
    /// Request the `mcp` subprotocol (until a first socket opened only without it).
    subprotocol: bool,
}

impl Ws {
    pub fn new(ctor: Function) -> Self {
        Self {
            ctor,
            socket: None,
            open: false,
            generation: 0,
            handlers: Vec::new(),
            first: None,
            subprotocol: true,
        }
    }

    /// Closes the socket for good (no reconnect; later socket events are ignored).
    pub fn close(&mut self) {
        self.generation += 1;
        self.open = false;
        if let Some(s) = self.socket.take() {
            detach(&s);
            let _ = s.close_with_code(1000);
        }
    }
}

impl Drop for Ws {
    fn drop(&mut self) {
        // The handlers die with this state: the socket must not call them afterwards.
        self.close();
    }
}

/// Opens the first socket and waits until it is open.
pub async fn open_first(d: &Driver) -> Result<(), ClientError> {
    let (tx, rx) = oneshot::channel();
    d.with(|st| {
        if let Some(ws) = st.ws.as_mut() {
            ws.first = Some(tx);
        }
    });
    open(d);
    let msg = match rx.await {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(m)) => m,
        Err(_) => "WebSocket closed before it opened".to_string(),
    };
    Err(ClientError::new(ErrorKind::Transport, msg))
}

/// Opens a new socket (the engine's `Output::Reconnect`).
pub fn open(d: &Driver) {
    let weak = std::rc::Rc::downgrade(&d.0);
    let url = d.with(|st| st.url.clone());
    let made = d.with(|st| {
        let ws = st.ws.as_mut()?;
        ws.generation += 1;
        if let Some(old) = ws.socket.take() {
            detach(&old);
        }
        ws.handlers.clear();
        let args = Array::of1(&JsValue::from_str(&url));
        if ws.subprotocol {
            args.push(&JsValue::from_str(SUBPROTOCOL));
        }
        match Reflect::construct(&ws.ctor, &args) {
            Ok(s) => {
                let s: WebSocket = s.unchecked_into();
                s.set_binary_type(BinaryType::Arraybuffer);
                Some(Ok((s, ws.generation)))
            }
            Err(e) => Some(Err(describe(&e))),
        }
    });
    match made {
        Some(Ok((socket, gen))) => {
            let on_open = handler(&weak, gen, |d, gen, _| opened(&d, gen));
            let on_msg = handler(&weak, gen, |d, gen, ev| message(&d, gen, ev));
            let on_close = handler(&weak, gen, |d, gen, _| closed(&d, gen, None));
            // Some runtimes (Node's undici) fire `error` without `close` when a connection fails.
            let on_error = handler(&weak, gen, |d, gen, _| closed(&d, gen, None));
            socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
            socket.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
            socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
            socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            d.with(|st| {
                if let Some(ws) = st.ws.as_mut() {
                    ws.socket = Some(socket);
                    ws.handlers = vec![on_open, on_msg, on_close, on_error];
                }
            });
        }
        Some(Err(msg)) => {
            let gen = d.with(|st| st.ws.as_ref().map_or(0, |w| w.generation));
            closed(d, gen, Some(msg));
        }
        None => {}
    }
}

fn handler(
    weak: &std::rc::Weak<Shared>,
    gen: u64,
    f: impl Fn(Driver, u64, JsValue) + 'static,
) -> Handler {
    let weak = weak.clone();
    Closure::new(move |ev: JsValue| {
        if let Some(s) = weak.upgrade() {
            f(Driver(s), gen, ev);
        }
    })
}

fn detach(s: &WebSocket) {
    s.set_onopen(None);
    s.set_onmessage(None);
    s.set_onclose(None);
    s.set_onerror(None);
}

fn current(d: &Driver, gen: u64) -> bool {
    d.with(|st| !st.closed && st.ws.as_ref().is_some_and(|w| w.generation == gen))
}

fn opened(d: &Driver, gen: u64) {
    if !current(d, gen) {
        return;
    }
    let first = d.with(|st| {
        st.ws.as_mut().and_then(|ws| {
            ws.open = true;
            ws.first.take()
        })
    });
    match first {
        Some(tx) => {
            let _ = tx.send(Ok(()));
        }
        None => d.feed(Input::Connection { up: true }),
    }
}

fn message(d: &Driver, gen: u64, ev: JsValue) {
    if !current(d, gen) {
        return;
    }
    let data = ev.unchecked_into::<MessageEvent>().data();
    let body = if let Some(s) = data.as_string() {
        s
    } else if data.is_instance_of::<js_sys::ArrayBuffer>() {
        String::from_utf8_lossy(&js_sys::Uint8Array::new(&data).to_vec()).into_owned()
    } else {
        return; // Blob frames are not JSON-RPC messages we can read synchronously
    };
    d.feed(Input::Message { via: None, body });
}

/// What a socket closing (or failing) leads to.
enum Closed {
    /// Already handled (`close` after `error`).
    Handled,
    /// The first socket failed asking for `mcp`: try it once without.
    WithoutSubprotocol,
    /// The first socket failed: `connect` fails.
    First(oneshot::Sender<Result<(), String>>),
    /// A later socket closed or failed to open.
    Later,
}

fn closed(d: &Driver, gen: u64, why: Option<String>) {
    if !current(d, gen) {
        return;
    }
    let next = d.with(|st| {
        let Some(ws) = st.ws.as_mut() else {
            return Closed::Handled;
        };
        if ws.socket.is_none() && why.is_none() {
            return Closed::Handled;
        }
        ws.open = false;
        if let Some(s) = ws.socket.take() {
            detach(&s);
        }
        if let Some(tx) = ws.first.take() {
            if !ws.subprotocol {
                return Closed::First(tx);
            }
            ws.subprotocol = false;
            ws.first = Some(tx);
            return Closed::WithoutSubprotocol;
        }
        Closed::Later
    });
    match next {
        Closed::Handled => {}
        Closed::WithoutSubprotocol => open(d),
        Closed::First(tx) => {
            let _ = tx.send(Err(
                why.unwrap_or_else(|| "WebSocket connection failed".into())
            ));
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
    let socket = d.with(|st| {
        st.ws
            .as_ref()
            .filter(|w| w.open)
            .and_then(|w| w.socket.clone())
    });
    let result = match socket {
        Some(s) => s
            .send_with_str(&t.body)
            .map_err(|e| TransportError::network(describe(&e))),
        None => Err(not_connected()),
    };
    if let Err(error) = result {
        d.defer(Input::Failed { key: t.key, error });
    }
}
