//! The only code that touches the world. A [`Driver`] owns one [`Engine`], feeds it what the network
//! says, performs what it outputs (HTTP POST/GET/DELETE or WebSocket frames) and sleeps on one timer
//! until the engine's next [`Output::Wake`]. The bytes move in `io.js` ([`io::Io`]: fetch, response
//! bodies, the socket, the timer), which reports each step back as plain values; what they mean is
//! [`crate::bridge`]'s to say. Events go to the host (the JS layer) outside of any borrow, in order, so host
//! callbacks may call back into the driver.

#[cfg(feature = "oauth")]
pub mod auth;
pub mod deferred;
#[cfg(feature = "oauth")]
mod dpop;
pub mod era;
pub mod global;
pub mod headers;
mod http;
pub mod io;
pub mod link;
#[cfg(any(feature = "tabs", feature = "oauth"))]
pub mod oneshot;
pub mod timer;
#[cfg(feature = "oauth")]
mod webcrypto;
mod ws;

// Tab coordination (one poller per task across tabs) and persistence (IndexedDB / localStorage).
#[cfg(feature = "tabs")]
pub mod persist;
#[cfg(feature = "oauth")]
mod spent;
pub mod tabs;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::engine::api::{ClientError, Config, ErrorKind, Event, Input, Output};
use crate::engine::known::Known;
use crate::engine::Engine;

pub use crate::bridge::link::TransportKind;
pub use headers::HeaderSource;
use io::{report, Io};
use timer::Timer;

/// Runs `f` on the current thread (next microtask), boxed: one copy of the executor's spawn path
/// serves every background task of tab coordination and OAuth.
#[cfg(any(feature = "tabs", feature = "oauth"))]
pub fn spawn(f: impl std::future::Future<Output = ()> + 'static) {
    let f: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> = Box::pin(f);
    wasm_bindgen_futures::spawn_local(f);
}

/// Everything a driver needs to connect.
pub struct DriverOptions {
    pub url: String,
    pub transport: TransportKind,
    pub config: Config,
    pub headers: HeaderSource,
    /// A `WebSocket` constructor to use instead of the global one (Node 20: the `ws` package).
    pub websocket: Option<Function>,
}

/// Receives the engine's events, in order.
pub type Host = Rc<dyn Fn(Event)>;

/// What hears a new driver once it is usable, or why it could not start.
pub type Started = Box<dyn FnOnce(Result<Driver, ClientError>)>;

/// A cheap handle on one running client.
#[derive(Clone)]
pub struct Driver(Rc<Shared>);

struct Shared {
    st: RefCell<State>,
    /// Where each request's extra headers come from (fixed at connect time).
    headers: HeaderSource,
    pumping: Cell<bool>,
    delivering: Cell<bool>,
    /// `io.js`'s reports: `sink(kind, key, value)`.
    _sink: Closure<dyn Fn(u32, f64, JsValue)>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Nothing may report to the sink once it is gone.
        self.st.get_mut().io.shut();
    }
}

struct State {
    engine: Engine,
    url: String,
    max_body: usize,
    http: http::Http,
    ws: Option<ws::Ws>,
    engine_wake: u64,
    closed: bool,
    /// Inputs produced while pumping (fed before the next `poll_output`).
    inputs: VecDeque<Input>,
    events: VecDeque<Event>,
    host: Option<Host>,
    timer: Timer,
    io: Io,
}

impl Driver {
    /// Starts a client; `started` hears it once usable: at once for HTTP, once the first socket
    /// is open for WebSocket (or why it could not start).
    pub fn connect(opts: DriverOptions, host: Host, started: Started) {
        Self::connect_with(opts, host, |_, _| {}, started)
    }

    /// Like [`connect`](Self::connect), letting `prepare` act on the fresh engine before any of
    /// its output is performed (tabs: adopt a persisted session instead of a new handshake).
    pub fn connect_with(
        opts: DriverOptions,
        host: Host,
        prepare: impl FnOnce(&mut Engine, u64),
        started: Started,
    ) {
        let now = global::now();
        let seed = global::random_seed();
        let max_body = opts.config.max_message_bytes;
        let mut engine = Engine::new(opts.config, seed, now);
        prepare(&mut engine, now);
        let ws = match opts.transport {
            TransportKind::Http => None,
            TransportKind::WebSocket => match opts.websocket.or_else(global::websocket_ctor) {
                Some(ctor) => Some(ctor),
                None => return started(Err(ClientError::new(
                    ErrorKind::InvalidInput,
                    "no WebSocket constructor: pass options.WebSocket (e.g. from the `ws` package) or run Node with --experimental-websocket",
                ))),
            },
        };
        let shared = Rc::new_cyclic(|weak: &Weak<Shared>| {
            let weak = weak.clone();
            let sink = Closure::<dyn Fn(u32, f64, JsValue)>::new(move |kind, key, v| {
                if let Some(s) = weak.upgrade() {
                    Driver(s).report(kind, key, v);
                }
            });
            let io = Io::new(sink.as_ref().unchecked_ref());
            Shared {
                st: RefCell::new(State {
                    engine,
                    url: opts.url,
                    max_body,
                    http: http::Http::default(),
                    ws: ws.map(ws::Ws::new),
                    engine_wake: u64::MAX,
                    closed: false,
                    inputs: VecDeque::new(),
                    events: VecDeque::new(),
                    host: Some(host),
                    timer: Timer::default(),
                    io,
                }),
                headers: opts.headers,
                pumping: Cell::new(false),
                delivering: Cell::new(false),
                _sink: sink,
            }
        });
        let d = Driver(shared);
        match ws::wait_first(&d, started) {
            Some(started) => {
                d.pump();
                started(Ok(d));
            }
            None => ws::open(&d),
        }
    }

    /// Runs one engine operation at the current time, then performs whatever it caused.
    pub fn op<R>(&self, f: impl FnOnce(&mut Engine, u64) -> R) -> R {
        self.op_then(f, |_| {})
    }

    /// Like [`op`](Self::op), running `then` on the result before any consequence is delivered
    /// (so the host can register the returned id before its events arrive).
    pub fn op_then<R>(&self, f: impl FnOnce(&mut Engine, u64) -> R, then: impl FnOnce(&R)) -> R {
        let r = {
            let mut st = self.0.st.borrow_mut();
            f(&mut st.engine, global::now())
        };
        then(&r);
        self.pump();
        r
    }

    /// Reads engine state without side effects.
    pub fn read<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        f(&self.0.st.borrow().engine)
    }

    /// The id and snapshot of a task the engine tracks, shared (`None` while the engine is busy).
    pub(crate) fn known(&self, task_id: &str) -> Option<(Rc<str>, Rc<Known>)> {
        self.0.st.try_borrow().ok()?.engine.known(task_id)
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.0.st.borrow().closed
    }

    /// Closes the engine (it ends every subscription and the session), then every stream,
    /// socket and the timer; `closed` runs once the session `DELETE`, if any, ended (bounded).
    pub fn close(&self, closed: Box<dyn FnOnce()>) {
        if self.is_closed() {
            return closed();
        }
        self.op(|e, now| e.close(now));
        self.shutdown();
        if let Some(closed) = self.with(|st| st.http.after_delete(closed)) {
            self.closed(closed);
        }
    }

    /// `close()` is over: the timer stops, then `then` runs.
    fn closed(&self, then: Box<dyn FnOnce()>) {
        self.with(|st| st.timer.disarm(&st.io));
        then();
    }

    /// Drops the host (after `close`): breaks the client ↔ driver cycle.
    pub fn release_host(&self) {
        self.with(|st| st.host.take());
    }

    pub(crate) fn shutdown(&self) {
        self.with(|st| {
            st.closed = true;
            http::abort_all(&mut st.http, &st.io);
            if let Some(ws) = st.ws.as_mut() {
                ws.close(&st.io);
            }
        });
        self.rearm();
    }

    fn is_ws(&self) -> bool {
        self.0.st.borrow().ws.is_some()
    }

    /// Feeds one input now and performs its consequences.
    fn feed(&self, input: Input) {
        self.with(|st| st.inputs.push_back(input));
        self.pump();
    }

    /// Queues an input without pumping (from inside the pump loop).
    fn defer(&self, input: Input) {
        self.with(|st| st.inputs.push_back(input));
    }

    /// Drains the engine until it sleeps, performing every output; then delivers events.
    fn pump(&self) {
        if self.0.pumping.replace(true) {
            return;
        }
        loop {
            let now = global::now();
            let out = self.with(|st| {
                while let Some(i) = st.inputs.pop_front() {
                    st.engine.handle_input(now, i);
                }
                st.engine.poll_output(now)
            });
            match out {
                Output::Wake(at) => {
                    let idle = self.with(|st| {
                        if let Some(link) = st.engine.take_learnt_link() {
                            crate::driver::link::remember(&st.url, link);
                        }
                        st.engine_wake = at;
                        st.inputs.is_empty()
                    });
                    if idle {
                        break;
                    }
                }
                Output::Event(e) => self.with(|st| st.events.push_back(e)),
                Output::Transmit(t) => {
                    if self.is_ws() {
                        ws::transmit(self, t);
                    } else {
                        http::post(self, t);
                    }
                }
                Output::Listen {
                    key,
                    headers,
                    last_event_id,
                } => {
                    if !self.is_ws() {
                        http::listen(self, key, headers, last_event_id);
                    }
                }
                Output::EndSession { headers } => {
                    if !self.is_ws() {
                        http::end_session(self, headers);
                    }
                }
                Output::Abort { key } => {
                    self.with(|st| http::abort(&mut st.http, &st.io, key));
                }
                Output::Reconnect => {
                    if self.is_ws() {
                        ws::open(self);
                    }
                }
                Output::Resume {
                    key,
                    headers,
                    last_event_id,
                } => {
                    if !self.is_ws() {
                        http::resume(self, key, headers, last_event_id);
                    }
                }
            }
        }
        self.0.pumping.set(false);
        self.rearm();
        self.deliver();
    }

    /// Hands queued events to the host, one at a time, with no borrow held.
    fn deliver(&self) {
        if self.0.delivering.replace(true) {
            return;
        }
        loop {
            let Some((ev, host)) = self.with(|st| Some((st.events.pop_front()?, st.host.clone())))
            else {
                break;
            };
            if let Some(h) = host {
                h(ev);
            }
        }
        self.0.delivering.set(false);
    }

    /// Arms the one timer for the earliest of the engine's wake and the transports' own deadlines.
    fn rearm(&self) {
        self.with(|st| {
            let transport = st.http.next_deadline().unwrap_or(u64::MAX);
            // A closed engine's wake no longer counts.
            let at = match st.closed {
                true => transport,
                false => st.engine_wake.min(transport),
            };
            st.timer.arm(&st.io, at, global::now());
        });
    }

    /// What `io.js` reported.
    fn report(&self, kind: u32, key: f64, v: JsValue) {
        match kind {
            report::TIMER => self.on_timer(),
            report::OPEN => ws::opened(self),
            report::FRAME => ws::message(self, v),
            report::CLOSED => ws::closed(self, None),
            _ => http::report(self, kind, key, v),
        }
    }

    fn on_timer(&self) {
        self.with(|st| st.timer.fired());
        let now = global::now();
        http::on_timer(self, now);
        if self.is_closed() {
            self.rearm();
        } else {
            self.pump();
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.0.st.borrow_mut())
    }
}
