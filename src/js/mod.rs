//! The wasm-bindgen face: the client's state behind the package's JS `McpTaskClient`
//! (`npm/client.js`, which calls [`ClientCore`]), the client's side of the JS `TaskHandle`s and the
//! TypeScript types.
//! Conversion only: every decision is the engine's; this layer routes its events to promises, the
//! handles and the JS client.

mod auth_option;
mod client;
pub mod codes;
pub mod convert;
mod handle;
// The JS face of tab coordination and persistence.
mod tabs;
mod types;
mod typescript;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::json::{ToJson, Value};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::bridge::connecting::{Connecting, Linked};
use crate::bridge::era::EraKey;
use crate::bridge::inputs::{self, Route};
use crate::bridge::subs::{Replies, Subs};
use crate::driver::deferred::later;
use crate::driver::tabs::{Link, Requestor};
use crate::engine::api::{ClientError, End, Event, InputId, OpId, SubId};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model;

pub use client::ClientCore;
use convert::{from_js, to_js};
use types::{ErrorInfo, ErrorKind};

/// The heap allocator: talc is ~7 KB smaller in wasm than the default dlmalloc (single-threaded
/// wasm only, which this crate is).
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// An engine operation, boxed: one copy of the driver's operation path serves every kind.
type Run<T> = Box<dyn FnOnce(&mut dyn Requestor, u64) -> T>;

/// What the JS client hears: the first argument of its `emit(what, id, value)` callback (the
/// numbers of [`codes::HEARD`]).
#[derive(Clone, Copy)]
enum Heard {
    /// `connect` resolves (the session is ready and the link started).
    Ready = codes::READY as isize,
    /// `connect` rejects: `value` is the error's `ErrorInfo`.
    Failed = codes::FAILED as isize,
    /// What the session negotiated (`SessionInfo`).
    Session = codes::SESSION as isize,
    /// For `onWarning` (`ClientWarning`).
    Warning = codes::WARNING as isize,
    /// For `onTransition` (`TaskTransition`).
    Transition = codes::TRANSITION as isize,
    /// For `onInput`: input request `id` (`InputRequestEvent`); answered through
    /// [`ClientCore::ask`].
    Input = codes::INPUT as isize,
    /// Input request `id` is no longer wanted: `value` says why.
    Withdrawn = codes::WITHDRAWN as isize,
    /// For `onTaskDoneOnce` (`TaskDone`): this page reports the task's end.
    Once = codes::ONCE as isize,
    /// The one-shot operation under key `id` succeeded: `value` is its reply.
    Replied = codes::REPLIED as isize,
    /// The one-shot operation under key `id` failed: `value` is the `ErrorInfo`.
    Refused = codes::REFUSED as isize,
}

#[wasm_bindgen]
extern "C" {
    /// The JS client's callback `emit(what, id, value)` (see [`Heard`]).
    #[derive(Clone)]
    pub type Emit;

    /// Calls it (what it throws is caught: a callback must not disturb the client).
    #[wasm_bindgen(method, catch, js_name = call)]
    fn call(
        this: &Emit,
        this_arg: &JsValue,
        what: u8,
        id: f64,
        value: &JsValue,
    ) -> Result<(), JsValue>;
}

/// The state shared by a client's JS object, its handles and the driver's event host.
pub struct ClientInner {
    driver: RefCell<Option<Link>>,
    subs: RefCell<Subs<handle::Sub>>,
    /// The one-shot operations awaiting their reply, with the JS client's key for each.
    ops: RefCell<Replies>,
    /// The JS client's callback (see [`Heard`]); let go once the client is closed (it holds the
    /// JS client, which holds this state: a cycle the garbage collector cannot see through).
    emit: RefCell<Option<Emit>>,
    /// Whether the JS client answers input requests (it has an `onInput` handler).
    answers_input: bool,
    /// The tasks whose end this page has already reported.
    once: tabs::Once,
    /// When `connect` settles.
    connecting: Cell<Connecting>,
    /// Where the negotiated era is remembered (`dialect: "auto"` only).
    era: Option<EraKey>,
}

impl ClientInner {
    /// A client's state before its driver exists.
    fn new(emit: Emit, answers_input: bool, era: Option<EraKey>) -> Rc<Self> {
        Rc::new(ClientInner {
            driver: RefCell::new(None),
            subs: RefCell::default(),
            ops: RefCell::default(),
            emit: RefCell::new(Some(emit)),
            answers_input,
            once: tabs::Once::default(),
            connecting: Cell::default(),
            era,
        })
    }

    fn driver(&self) -> Option<Link> {
        self.driver.borrow().clone()
    }

    /// Tells the JS client `what` (about `id`, with `value` as plain JS).
    fn emit(&self, what: Heard, id: f64, value: &dyn ToJson) {
        let value = to_js(value);
        let emit = self.emit.borrow().clone();
        if let Some(f) = emit {
            let _ = f.call(&JsValue::UNDEFINED, what as u8, id, &value);
        }
    }

    fn on_event(self: &Rc<Self>, ev: Event) {
        match ev {
            Event::Connected {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            } => self.connected(types::SessionInfo {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            }),
            Event::Status { sub, task } => self.status(sub, task),
            Event::Done { sub, task_id, end } => self.done(sub, task_id, end),
            Event::Input {
                id,
                task_id,
                request,
            } => self.answer_input(id, task_id, request),
            Event::Reply { op, result } => {
                let pending = self.ops.borrow_mut().take(op);
                if let Some(key) = pending {
                    match result {
                        Ok(v) => self.emit(Heard::Replied, key, &v),
                        Err(e) => self.emit(Heard::Refused, key, &ErrorInfo::from(e)),
                    }
                }
            }
            Event::Warning { task_id, error } => self.warn(task_id, error),
            Event::Transition {
                task_id,
                from,
                to,
                at,
            } => {
                let t = types::TaskTransition {
                    task_id,
                    from,
                    to,
                    at,
                };
                self.emit(Heard::Transition, 0.0, &t);
            }
        }
    }

    /// The driver (or tab) started: `connect` settles once the session is ready, unless it
    /// already failed (then the link closes again).
    fn linked(self: &Rc<Self>, link: Link) {
        *self.driver.borrow_mut() = Some(link);
        match self.connect_step(Connecting::linked) {
            Linked::Close => self.shut(Box::new(|| {})),
            Linked::Ready => self.ready(),
            Linked::Wait => {}
        }
    }

    /// The session is ready: remember its era, tell the JS client, settle `connect`.
    fn connected(self: &Rc<Self>, info: types::SessionInfo) {
        if let Some(k) = &self.era {
            crate::driver::era::remember(k, info.dialect);
        }
        self.emit(Heard::Session, 0.0, &info);
        if self.connect_step(Connecting::connected) {
            self.ready();
        }
    }

    /// Moves `connect` on by `step`.
    fn connect_step<R>(&self, step: impl FnOnce(&mut Connecting) -> R) -> R {
        let mut c = self.connecting.get();
        let r = step(&mut c);
        self.connecting.set(c);
        r
    }

    /// `connect` resolves (the link started).
    fn ready(&self) {
        if let Some(link) = self.driver() {
            tabs::warn_if_unstored(self, &link);
            self.emit(Heard::Ready, 0.0, &Value::Null);
        }
    }

    /// `connect` fails with the error `error` describes (once): the driver, if any, closes first.
    fn connect_failed(self: &Rc<Self>, error: impl FnOnce() -> ErrorInfo) {
        if self.connect_step(Connecting::failed) {
            let error = error();
            let me = self.clone();
            self.shut(Box::new(move || {
                me.emit(Heard::Failed, 0.0, &error);
                me.hush();
            }));
        }
    }

    /// Closes the driver, if any, and lets go of the client (the driver's host); then `then`.
    fn shut(&self, then: Box<dyn FnOnce()>) {
        match self.driver() {
            Some(link) => {
                let closing = link.clone();
                link.close(Box::new(move || {
                    closing.release_host();
                    then();
                }));
            }
            None => then(),
        }
    }

    /// The client is closed: the JS client hears nothing more.
    fn hush(&self) {
        self.emit.borrow_mut().take();
    }

    /// A subscription ended: its handle settles; a task's settled end is reported once per page.
    fn done(self: &Rc<Self>, sub: SubId, task_id: Option<String>, end: End) {
        let settled = crate::engine::verdict::settles(&end);
        if let Some(done) = self.end(sub, task_id, end) {
            if settled {
                let me = self.clone();
                let id = done.task_id.clone();
                let won = Box::new(move || me.emit(Heard::Once, 0.0, &done));
                self.once.task_ended(self.driver(), id, won);
            }
        }
    }

    /// A warning for `onWarning`. Before the session is ready, a session-level warning is the
    /// connect failure.
    fn warn(self: &Rc<Self>, task_id: Option<String>, error: ClientError) {
        if task_id.is_none() {
            self.connect_failed(|| error.clone().into());
        }
        let warning = types::ClientWarning {
            task_id,
            error: error.into(),
        };
        self.emit(Heard::Warning, 0.0, &warning);
    }

    /// An input request: for the JS client's `onInput`, or answered here when it has none.
    fn answer_input(
        self: &Rc<Self>,
        id: InputId,
        task_id: Option<String>,
        req: model::InputRequest,
    ) {
        let answer = match inputs::route(&req, self.answers_input) {
            Route::Withdrawn(why) => return self.emit(Heard::Withdrawn, id.0 as f64, &why),
            Route::Host => {
                let ev = types::InputRequestEvent {
                    key: req.key,
                    method: req.method,
                    params: req.params,
                    task_id,
                };
                return self.emit(Heard::Input, id.0 as f64, &ev);
            }
            Route::Answer(answer) => answer,
        };
        // Answered in a later microtask, outside the driver's event delivery.
        let me = Rc::downgrade(self);
        later(Box::new(move |_| {
            if let Some(c) = me.upgrade() {
                c.answered(id, answer);
            }
        }));
    }

    /// Sends the answer to input request `id`.
    fn answered(&self, id: InputId, answer: Result<Value, RpcError>) {
        if let Some(d) = self.driver() {
            d.op(|e, now| e.answer_input(now, id, answer));
        }
    }

    /// Starts a one-shot operation; its reply is reported under the JS client's `key`.
    fn one_shot(self: &Rc<Self>, key: f64, run: Run<OpId>) -> Result<(), JsValue> {
        let d = self.live_driver()?;
        d.op_then(run, |op| self.ops.borrow_mut().wait(*op, key));
        Ok(())
    }

    fn live_driver(&self) -> Result<Link, JsValue> {
        match self.driver() {
            Some(d) if !d.is_closed() => Ok(d),
            _ => Err(client::closed()),
        }
    }
}

/// The answer from how `onInput`'s result settled: resolved with the JSON text of its value
/// (`undefined` when it is not JSON), or rejected with (or threw) a JS value.
fn handled(settled: Result<JsValue, JsValue>) -> Result<Value, RpcError> {
    match settled {
        Ok(v) => inputs::answer(from_js(&v)),
        Err(e) => Err(thrown(&e)),
    }
}

/// An RPC error from whatever `onInput` threw (its numeric `code` is kept).
fn thrown(e: &JsValue) -> RpcError {
    let code = Reflect::get(e, &"code".into())
        .ok()
        .and_then(|c| c.as_f64());
    inputs::thrown(code, crate::driver::global::describe(e))
}

/// What a `ClientCore` method throws for an argument or option that cannot be used.
fn invalid(msg: impl Into<String>) -> JsValue {
    to_js(&ErrorInfo::new(ErrorKind::InvalidInput, msg))
}
