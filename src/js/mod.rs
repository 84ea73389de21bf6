//! The wasm-bindgen face: `McpTaskClient`, the client's side of the JS `TaskHandle`s and the
//! TypeScript types.
//! Conversion only: every decision is the engine's; this layer routes its events to promises and
//! callbacks.

mod aborts;
mod client;
pub mod convert;
mod error;
mod handle;
mod options;
// The JS face of tab coordination and persistence.
mod tabs;
mod types;
mod typescript;

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::driver::deferred::{later, reject, resolve, when_settled};
use crate::driver::era::EraKey;
use crate::driver::tabs::{Link, Requestor};
use crate::engine::api::{ClientError, End, Event, OpId, SubId, INPUT_WITHDRAWN};
use crate::engine::idmap::IdMap;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model;

use aborts::SignalHook;
pub use client::McpTaskClient;
use convert::{from_js, to_js};
use error::{error, js_error};
use handle::{deferred, Settle};
pub use handle::{register_handle_class, HandlePort};
use types::ErrorKind;

/// The heap allocator: talc is ~7 KB smaller in wasm than the default dlmalloc (single-threaded
/// wasm only, which this crate is).
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// What a pending one-shot operation resolves to.
enum Pending {
    /// Resolves with nothing (cancel, delete).
    Void(Settle),
    /// Resolves with the engine's reply as a plain object (a task list page, the tools).
    Json(Settle),
}

/// What `callTool` and `request` send.
#[derive(Clone, Copy)]
enum Outgoing {
    /// `tools/call`.
    Tool,
    /// Any request.
    Request,
}

/// An engine operation, boxed: one copy of the driver's operation path serves every kind.
type Run<T> = Box<dyn FnOnce(&mut dyn Requestor, u64) -> T>;

/// Settles `connect`'s promise: resolved with the client once the session is ready, rejected
/// with the error `connect` fails with.
type Ready = Settle;

/// The state shared by a client's JS object, its handles and the driver's event host.
pub struct ClientInner {
    driver: RefCell<Option<Link>>,
    subs: RefCell<IdMap<SubId, handle::Sub>>,
    /// The [`HandlePort`] every handle of this client calls.
    port: JsValue,
    /// The one-shot operations awaiting their reply (a few at a time: a `Vec` costs less wasm
    /// than another map instantiation).
    ops: RefCell<Vec<(OpId, Pending)>>,
    on_input: Option<Function>,
    /// The signals of the input requests `onInput` is handling.
    input_aborts: aborts::InputAborts,
    on_warning: Option<Function>,
    transitions: RefCell<Vec<Function>>,
    /// `onTaskDoneOnce` callbacks, and the tasks whose end this page has already reported.
    once: tabs::Once,
    session: RefCell<Option<types::SessionInfo>>,
    /// Until `connect` settles: its promise's settle functions, and the listener on its signal.
    ready: RefCell<Option<Ready>>,
    connect_abort: RefCell<Option<SignalHook>>,
    /// Where the negotiated era is remembered (`dialect: "auto"` only).
    era: Option<EraKey>,
}

impl ClientInner {
    /// A client's state before its driver exists; `ready` settles `connect`.
    fn new(o: &mut options::Connect, era: Option<EraKey>, ready: Ready) -> Rc<Self> {
        Rc::new_cyclic(|me| ClientInner {
            driver: RefCell::new(None),
            subs: RefCell::default(),
            port: HandlePort::new(me.clone()).into(),
            ops: RefCell::default(),
            on_input: o.on_input.take(),
            input_aborts: aborts::InputAborts::default(),
            on_warning: o.on_warning.take(),
            transitions: RefCell::new(Vec::new()),
            once: tabs::Once::default(),
            session: RefCell::new(None),
            ready: RefCell::new(Some(ready)),
            connect_abort: RefCell::new(None),
            era,
        })
    }

    fn driver(&self) -> Option<Link> {
        self.driver.borrow().clone()
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
                let pending = {
                    let mut ops = self.ops.borrow_mut();
                    let at = ops.iter().position(|(id, _)| *id == op);
                    at.map(|at| ops.swap_remove(at).1)
                };
                if let Some(p) = pending {
                    settle_op(p, result);
                }
            }
            Event::Warning { task_id, error } => self.warn(task_id, error),
            Event::Transition {
                task_id,
                from,
                to,
                at,
            } => {
                let js = to_js(&types::TaskTransition {
                    task_id,
                    from,
                    to,
                    at,
                });
                let cbs = self.transitions.borrow().clone();
                for f in cbs {
                    let _ = f.call1(&JsValue::UNDEFINED, &js);
                }
            }
        }
    }

    /// `connect`'s signal is watched by `hook` until `connect` settles.
    fn watch_connect_signal(&self, hook: SignalHook) {
        *self.connect_abort.borrow_mut() = Some(hook);
    }

    /// The driver (or tab) started: `connect` settles once the session is ready, unless it
    /// already failed (then the link closes again).
    fn linked(self: &Rc<Self>, link: Link) {
        let failed = self.ready.borrow().is_none();
        *self.driver.borrow_mut() = Some(link);
        if failed {
            self.shut(Box::new(|| {}));
        } else if self.session.borrow().is_some() {
            self.finish_connect();
        }
    }

    /// The session is ready: remember its era, settle `connect`.
    fn connected(self: &Rc<Self>, info: types::SessionInfo) {
        if let Some(k) = &self.era {
            k.remember(info.dialect);
        }
        *self.session.borrow_mut() = Some(info);
        if self.driver.borrow().is_some() {
            self.finish_connect();
        }
    }

    /// Resolves `connect` with the client (once).
    fn finish_connect(self: &Rc<Self>) {
        if let (Some(s), Some(link)) = (self.settle_connect(), self.driver()) {
            tabs::warn_if_unstored(self, &link);
            resolve(
                &s,
                &McpTaskClient {
                    inner: self.clone(),
                }
                .into(),
            );
        }
    }

    /// `connect` fails with the error `error` makes (once): the driver, if any, closes first.
    fn connect_failed(self: &Rc<Self>, error: impl FnOnce() -> JsValue) {
        if let Some(s) = self.settle_connect() {
            let error = error();
            self.shut(Box::new(move || reject(&s, &error)));
        }
    }

    /// Takes `connect`'s settle functions if it is still waiting, and stops watching its signal.
    fn settle_connect(&self) -> Option<Ready> {
        let hook = self.connect_abort.borrow_mut().take();
        drop(hook);
        self.ready.borrow_mut().take()
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

    /// A subscription ended: its handle settles; a task's settled end is reported once per page.
    fn done(&self, sub: SubId, task_id: Option<String>, end: End) {
        let settled = crate::engine::verdict::settles(&end);
        if let Some(done) = self.end(sub, task_id, end) {
            if settled {
                self.once
                    .task_ended(self.driver(), done.task_id.clone(), &to_js(&done));
            }
        }
    }

    /// A warning for `onWarning`. Before the session is ready, a session-level warning is the
    /// connect failure.
    fn warn(self: &Rc<Self>, task_id: Option<String>, error: ClientError) {
        if task_id.is_none() {
            self.connect_failed(|| js_error(&error.clone().into()));
        }
        let warning = types::ClientWarning {
            task_id,
            error: error.into(),
        };
        if let Some(f) = &self.on_warning {
            let _ = f.call1(&JsValue::UNDEFINED, &to_js(&warning));
        }
    }

    fn answer_input(
        self: &Rc<Self>,
        id: crate::engine::api::InputId,
        task_id: Option<String>,
        req: model::InputRequest,
    ) {
        if req.method == INPUT_WITHDRAWN {
            let why = req.params.get("reason").and_then(Value::as_str);
            return self.input_aborts.abort(id, why.unwrap_or("withdrawn"));
        }
        let ev = types::InputRequestEvent {
            key: req.key,
            method: req.method,
            params: req.params,
            task_id,
        };
        let extra = self.input_aborts.start(id);
        let weak = Rc::downgrade(self);
        let answered: Answered = Box::new(move |answer| {
            let me = weak.upgrade();
            if let Some(c) = &me {
                c.input_aborts.finish(id);
            }
            if let Some(d) = me.and_then(|c| c.driver()) {
                d.op(|e, now| e.answer_input(now, id, answer));
            }
        });
        let handler = self.on_input.clone();
        // The handler runs in a later microtask, outside the driver's event delivery.
        let run: crate::driver::deferred::Settled = Box::new(move |_| {
            let answer = match handler {
                None if ev.method == "elicitation/create" => {
                    Ok(crate::protocol::object([("action", "decline".into())]))
                }
                None => Err(RpcError::new(
                    -32601,
                    ["no onInput handler for ", &ev.method].concat(),
                )),
                Some(f) => match f.call2(&JsValue::UNDEFINED, &to_js(&ev), &extra) {
                    Ok(v) => return when_settled(&v, Box::new(move |r| answered(handled(r)))),
                    Err(e) => Err(thrown(&e)),
                },
            };
            answered(answer);
        });
        later(run);
    }

    /// `callTool`/`request` with the caller's `name` (the tool or method), `params` and `opts`:
    /// the handle's first promise exists before the engine can answer.
    fn call(
        self: &Rc<Self>,
        what: Outgoing,
        name: &JsValue,
        params: Option<JsValue>,
        opts: Option<JsValue>,
    ) -> Promise {
        let u = JsValue::UNDEFINED;
        let (name_arg, params_arg) = match what {
            Outgoing::Tool => ("name", "arguments"),
            Outgoing::Request => ("method", "params"),
        };
        let prep = options::id(name, name_arg).and_then(|n| {
            let c = options::call(opts.as_ref().unwrap_or(&u))?;
            let p = options::object(params.as_ref().unwrap_or(&u), params_arg)?;
            Ok((n, c, p))
        });
        let (name, call, params) = match prep {
            Ok(x) => x,
            Err(m) => return Promise::reject(&invalid(m)),
        };
        if let Some(reason) = call
            .signal
            .as_ref()
            .filter(|s| s.aborted())
            .map(|s| s.reason())
        {
            return Promise::reject(&error::aborted(&reason, None));
        }
        let (p, first) = deferred();
        let options = call.options;
        let start = Box::new(move |e: &mut dyn Requestor, now| match what {
            Outgoing::Tool => e.call_tool(now, &name, params, options),
            Outgoing::Request => e.request(now, &name, params, options),
        });
        match self.start(None, call.signal, Some(&first), start) {
            Ok(_) => p,
            Err(e) => Promise::reject(&e),
        }
    }

    /// Starts a one-shot operation and parks its settle functions under its id.
    fn one_shot(self: &Rc<Self>, make: fn(Settle) -> Pending, run: Run<OpId>) -> Promise {
        let (p, s) = deferred();
        match self.live_driver() {
            Ok(d) => {
                let me = self.clone();
                d.op_then(run, move |op| {
                    me.ops.borrow_mut().push((*op, make(s)));
                });
            }
            Err(e) => {
                let _ = s.1.call1(&JsValue::UNDEFINED, &e);
            }
        }
        p
    }

    fn cancel(self: &Rc<Self>, task_id: String) -> Promise {
        self.one_shot(
            Pending::Void,
            Box::new(move |e, now| e.cancel(now, &task_id)),
        )
    }

    fn delete(self: &Rc<Self>, task_id: String) -> Promise {
        self.one_shot(
            Pending::Void,
            Box::new(move |e, now| e.delete_task(now, &task_id)),
        )
    }

    fn live_driver(&self) -> Result<Link, JsValue> {
        match self.driver() {
            Some(d) if !d.is_closed() => Ok(d),
            _ => Err(error(ErrorKind::Closed, "the client is closed")),
        }
    }
}

/// What receives an input request's answer.
type Answered = Box<dyn FnOnce(Result<Value, RpcError>)>;

/// The answer from how `onInput`'s result settled.
fn handled(settled: Result<JsValue, JsValue>) -> Result<Value, RpcError> {
    match settled.map(|v| from_js(&v)) {
        Ok(Ok(Some(o @ Value::Object(_)))) => Ok(o),
        Ok(_) => Err(RpcError::new(-32603, "onInput must return a JSON object")),
        Err(e) => Err(thrown(&e)),
    }
}

/// An RPC error from whatever `onInput` threw (its numeric `code` is kept).
fn thrown(e: &JsValue) -> RpcError {
    let code = Reflect::get(e, &"code".into())
        .ok()
        .and_then(|c| c.as_f64())
        .filter(|c| c.fract() == 0.0);
    RpcError::new(
        code.map_or(-32603, |c| c as i64),
        crate::driver::global::describe(e),
    )
}

fn settle_op(p: Pending, result: Result<Value, ClientError>) {
    let (s, value) = match p {
        Pending::Void(s) => (s, result.map(|_| JsValue::UNDEFINED)),
        Pending::Json(s) => (s, result.map(|v| to_js(&v))),
    };
    let _ = match value {
        Ok(v) => s.0.call1(&JsValue::UNDEFINED, &v),
        Err(e) => s.1.call1(&JsValue::UNDEFINED, &js_error(&e.into())),
    };
}

fn invalid(msg: impl Into<String>) -> JsValue {
    error(ErrorKind::InvalidInput, msg)
}
