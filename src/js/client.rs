//! The exported class `McpTaskClient`: its methods read and check the caller's arguments and
//! hand the work to the client's state ([`ClientInner`]).

use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use super::aborts::SignalHook;
use super::error::{self, js_error};
use super::handle::{self, deferred, Settle, TaskHandle};
use super::types::{ErrorInfo, ErrorKind};
use super::{invalid, options, to_js, ClientInner, Outgoing, Pending};
use crate::driver::deferred::{reject, resolve};
use crate::driver::era::EraKey;
use crate::driver::tabs::Requestor;
use crate::driver::tabs::{Link, SharedOptions};
use crate::driver::{DriverOptions, Host};
use crate::engine::api::{DialectChoice, End};

/// An MCP client that turns requests into tracked tasks.
#[wasm_bindgen]
pub struct McpTaskClient {
    pub(super) inner: Rc<ClientInner>,
}

#[wasm_bindgen]
impl McpTaskClient {
    /// Connects and negotiates the dialect; resolves once the session is ready.
    #[wasm_bindgen(unchecked_return_type = "Promise<McpTaskClient>")]
    pub fn connect(
        #[wasm_bindgen(unchecked_param_type = "string")] url: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ConnectOptions")] options: Option<JsValue>,
    ) -> Promise {
        let (p, settle) = deferred();
        let raw = options.unwrap_or(JsValue::UNDEFINED);
        if let Err(e) = start(&url, &raw, settle.clone()) {
            reject(&settle, &e);
        }
        p
    }

    /// The dialect the session speaks.
    #[wasm_bindgen(getter, unchecked_return_type = "Dialect")]
    pub fn dialect(&self) -> JsValue {
        let d = self.inner.driver().and_then(|d| d.read(|e| e.dialect()));
        d.map_or(JsValue::NULL, |d| to_js(&d))
    }

    /// What the session negotiated (protocol version, server info and capabilities).
    #[wasm_bindgen(getter, unchecked_return_type = "SessionInfo")]
    pub fn session(&self) -> JsValue {
        self.inner
            .session
            .borrow()
            .as_ref()
            .map_or(JsValue::NULL, to_js)
    }

    /// Calls a tool, as a task when the tool and server allow it (`opts.task`). Declared in
    /// `typescript.rs` (generic).
    #[wasm_bindgen(js_name = callTool, skip_typescript)]
    pub fn call_tool(
        &self,
        name: JsValue,
        args: Option<JsValue>,
        opts: Option<JsValue>,
    ) -> Promise {
        self.inner.call(Outgoing::Tool, &name, args, opts)
    }

    /// Sends any request (augmented as a task where the dialect allows it).
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskHandle>")]
    pub fn request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] method: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Arguments")] params: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] opts: Option<JsValue>,
    ) -> Promise {
        self.inner.call(Outgoing::Request, &method, params, opts)
    }

    /// Tracks an existing task by id (e.g. after a reload). Declared in `typescript.rs` (generic).
    #[wasm_bindgen(skip_typescript)]
    pub fn watch(&self, task_id: JsValue, opts: Option<JsValue>) -> Result<TaskHandle, JsValue> {
        let task_id = options::id(&task_id, "taskId").map_err(invalid)?;
        let signal =
            options::signal(opts.as_ref().unwrap_or(&JsValue::UNDEFINED)).map_err(invalid)?;
        if let Some(s) = signal.as_ref().filter(|s| s.aborted()) {
            // Ends at once, without involving the engine.
            let h = self.inner.new_handle(None, Some(s), None)?;
            handle::finish(&h, Some(task_id), End::Aborted, None);
            return Ok(h);
        }
        let id = task_id.clone();
        let watch = Box::new(move |e: &mut dyn Requestor, now| e.watch(now, &id));
        self.inner.start(Some(task_id), signal, None, watch)
    }

    /// One page of the server's tasks (`tasks/list`; legacy and draft servers only).
    #[wasm_bindgen(js_name = listTasks, unchecked_return_type = "Promise<TaskList>")]
    pub fn list_tasks(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] cursor: JsValue,
    ) -> Promise {
        let cursor = match options::optional_string(&cursor, "cursor") {
            Ok(c) => c,
            Err(m) => return Promise::reject(&invalid(m)),
        };
        self.inner.one_shot(
            Pending::Json,
            Box::new(move |e, now| e.list_tasks(now, cursor.as_deref())),
        )
    }

    /// Deletes a finished task on the server (`tasks/delete`, draft servers only; other dialects
    /// reject with `invalidInput` without sending anything) and forgets it here.
    #[wasm_bindgen(js_name = deleteTask, unchecked_return_type = "Promise<void>")]
    pub fn delete_task(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        self.inner.delete(task_id)
    }

    /// The server's tools (`tools/list`; also refreshes the client's `taskSupport` cache).
    #[wasm_bindgen(js_name = listTools, unchecked_return_type = "Promise<ToolList>")]
    pub fn list_tools(&self) -> Promise {
        self.inner
            .one_shot(Pending::Json, Box::new(|e, now| e.list_tools(now)))
    }

    /// The client's latest snapshot of a task, if it tracks it.
    #[wasm_bindgen(unchecked_return_type = "Task | null")]
    pub fn task(
        &self,
        #[wasm_bindgen(js_name = taskId, unchecked_param_type = "string")] task_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let task_id = options::id(&task_id, "taskId").map_err(invalid)?;
        let t = self
            .inner
            .driver()
            .and_then(|d| d.read(|e| e.task(&task_id)));
        Ok(t.map_or(JsValue::NULL, |t| to_js(&t)))
    }

    /// Calls `cb` on every task state change; returns the unsubscribe function.
    #[wasm_bindgen(js_name = onTransition, unchecked_return_type = "() => void")]
    pub fn on_transition(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(transition: TaskTransition) => void")] cb: Function,
    ) -> JsValue {
        self.inner.transitions.borrow_mut().push(cb.clone());
        let weak = Rc::downgrade(&self.inner);
        Closure::<dyn FnMut()>::new(move || {
            if let Some(c) = weak.upgrade() {
                c.transitions.borrow_mut().retain(|f| f != &cb);
            }
        })
        .into_js_value()
    }

    /// Ends every subscription and the session (`DELETE` for legacy HTTP), then closes the transport.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        self.inner.input_aborts.abort_all();
        let (p, settle) = deferred();
        self.inner
            .shut(Box::new(move || resolve(&settle, &JsValue::UNDEFINED)));
        p
    }
}

/// Reads `connect`'s arguments and starts the client; `settle` settles `connect`'s promise once
/// the session is ready or could not be had.
fn start(url: &JsValue, raw: &JsValue, settle: Settle) -> Result<(), JsValue> {
    let url = options::url(url).map_err(invalid)?;
    let mut o = options::connect(&url, raw).map_err(invalid)?;
    // Tabs/persistence options: `persist`, `identity`, `persistResults`, `tabs`.
    let shared = SharedOptions::from_js(raw).map_err(invalid)?;
    let identity = shared.as_ref().and_then(|s| s.identity.as_deref());
    let era = (o.config.dialect == DialectChoice::Auto).then(|| EraKey::new(&url, identity));
    o.config.known_era = era.as_ref().and_then(EraKey::recall);
    let signal = options::signal(raw).map_err(invalid)?;
    if let Some(s) = signal.as_ref().filter(|s| s.aborted()) {
        return Err(error::aborted(&s.reason(), None));
    }
    let inner = ClientInner::new(&mut o, era, settle);
    if let Some(s) = &signal {
        inner.watch_connect_signal(abort_connect(s, &inner));
    }
    // The driver holds the client strongly until `close()` (like an open socket does).
    let me = inner.clone();
    let host: Host = Rc::new(move |ev| me.on_event(ev));
    let opts = DriverOptions {
        url,
        transport: o.transport,
        config: o.config,
        headers: o.headers,
        websocket: o.websocket,
    };
    Link::connect(
        opts,
        shared,
        host,
        Box::new(move |link| match link {
            Ok(link) => inner.linked(link),
            Err(e) => inner.connect_failed(|| js_error(&e.into())),
        }),
    );
    Ok(())
}

/// Fails the wait for the session when `signal` aborts; the listener lives as long as the hook.
fn abort_connect(signal: &web_sys::AbortSignal, inner: &Rc<ClientInner>) -> SignalHook {
    let weak = Rc::downgrade(inner);
    let sig = signal.clone();
    let cb = Closure::<dyn FnMut()>::new(move || {
        if let Some(c) = weak.upgrade() {
            c.connect_failed(|| {
                let info = ErrorInfo::new(ErrorKind::Aborted, "connect was aborted");
                error::caused(&info, &sig.reason())
            });
        }
    });
    SignalHook::listen(signal.clone(), cb)
}
