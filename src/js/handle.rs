//! The client's side of its `TaskHandle`s. A handle is hand-written JS (`npm/handle.js`: its
//! callbacks, waiting promises and iterators); the client keeps each live subscription's handle,
//! task id and latest snapshot, decides what the end means (the record, what `result()` and the
//! first promise settle with) and answers the handle's questions through its [`HandlePort`].

use std::cell::{Ref, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::convert::to_js;
use super::error::{caused, error};
use super::types::{ErrorKind, TaskDone};
use super::ClientInner;
use crate::engine::api::{End, SubId};
use crate::engine::known::Known;
use crate::engine::verdict;
use crate::protocol::model;

pub use crate::driver::deferred::{deferred, Settle};

#[wasm_bindgen]
extern "C" {
    /// The package's JS `TaskHandle`, as the client calls it.
    #[derive(Clone)]
    pub type TaskHandle;

    /// Whether a snapshot must come as JS (a callback or iterator receives it).
    #[wasm_bindgen(method, getter, js_name = _wantsTasks)]
    fn wants_tasks(this: &TaskHandle) -> bool;

    /// A snapshot arrived: `task` as JS when wanted, else `undefined`.
    #[wasm_bindgen(method, js_name = _status)]
    fn status(this: &TaskHandle, task: &JsValue, terminal: bool);

    /// The subscription ended: the record, whether `result()` resolves (with `value`; else it
    /// rejects with it) and whether the first promise resolves with the handle.
    #[wasm_bindgen(method, js_name = _done)]
    fn done(this: &TaskHandle, record: &JsValue, ok: bool, value: &JsValue, resolves_first: bool);

    /// The reason of the abort signal that stopped the handle, if one did.
    #[wasm_bindgen(method, getter, js_name = _abortReason)]
    fn abort_reason(this: &TaskHandle) -> JsValue;
}

thread_local! {
    static HANDLE_CLASS: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Called once by the package entry with its `TaskHandle` class.
#[wasm_bindgen(js_name = __registerHandleClass, skip_typescript)]
pub fn register_handle_class(class: Function) {
    HANDLE_CLASS.with(|c| *c.borrow_mut() = Some(class));
}

/// The registered `TaskHandle` class.
fn handle_class() -> Result<Function, JsValue> {
    let class = HANDLE_CLASS.with(|c| c.borrow().clone());
    class.ok_or_else(|| {
        error(
            ErrorKind::InvalidInput,
            "load the package through its entry module",
        )
    })
}

/// A live subscription: its handle, the task's id and its latest snapshot, both the engine's own
/// where it runs here (the handle keeps no copy).
pub struct Sub {
    handle: TaskHandle,
    task_id: Option<Rc<str>>,
    task: Option<Rc<Known>>,
}

impl Sub {
    fn snapshot(&self) -> Option<model::Task> {
        let id = self.task_id.as_deref().unwrap_or_default();
        Some(self.task.as_ref()?.task(id))
    }
}

/// The subscription id a handle passes back (ids stay far below 2^53).
fn sub_id(sub: f64) -> SubId {
    SubId(sub as u64)
}

impl ClientInner {
    /// A new handle for subscription `sub` (`None`: ended before it had one), stopped when
    /// `signal` aborts; `first` settles the promise `callTool`/`request` return.
    pub(super) fn new_handle(
        &self,
        sub: Option<SubId>,
        signal: Option<&AbortSignal>,
        first: Option<&Settle>,
    ) -> Result<TaskHandle, JsValue> {
        let sub = sub.map_or(JsValue::UNDEFINED, |s| JsValue::from_f64(s.0 as f64));
        let signal = signal.map_or(JsValue::UNDEFINED, |s| s.into());
        let first = first.map_or(JsValue::UNDEFINED, |(res, rej)| Array::of2(res, rej).into());
        let args = Array::of4(&self.port, &sub, &signal, &first);
        Ok(Reflect::construct(&handle_class()?, &args)?.unchecked_into())
    }

    /// Registers a handle for the subscription `start` creates, before any of its events.
    pub(super) fn start(
        self: &Rc<Self>,
        task_id: Option<String>,
        signal: Option<AbortSignal>,
        first: Option<&Settle>,
        start: super::Run<SubId>,
    ) -> Result<TaskHandle, JsValue> {
        let d = self.live_driver()?;
        // Checked before the engine starts anything: a subscription nobody holds is never made.
        handle_class()?;
        let mut made = Err(JsValue::UNDEFINED);
        d.op_then(start, |sub| {
            made = self.new_handle(Some(*sub), signal.as_ref(), first);
            if let Ok(handle) = &made {
                let entry = Sub {
                    handle: handle.clone(),
                    task_id: task_id.map(Rc::from),
                    task: None,
                };
                self.subs.borrow_mut().insert(*sub, entry);
            }
        });
        made
    }

    /// A status snapshot arrived for `sub`.
    pub(super) fn status(&self, sub: SubId, task: model::Task) {
        let Some(handle) = self.subs.borrow().get(&sub).map(|s| s.handle.clone()) else {
            return;
        };
        let terminal = task.status.is_terminal();
        // Converted only for a callback or iterator: most handles just wait for the end.
        let js = if handle.wants_tasks() {
            to_js(&task)
        } else {
            JsValue::UNDEFINED
        };
        let shared = self.driver().and_then(|d| d.known(&task.task_id));
        let (id, known) = match shared {
            Some(shared) => shared,
            None => (Rc::from(task.task_id.as_str()), Rc::new(Known::new(task))),
        };
        if let Some(s) = self.subs.borrow_mut().get_mut(&sub) {
            s.task_id = Some(id);
            s.task = Some(known);
        }
        handle.status(&js, terminal);
    }

    /// Subscription `sub` ended: its handle settles. Returns its record when it was live.
    pub(super) fn end(&self, sub: SubId, task_id: Option<String>, end: End) -> Option<TaskDone> {
        let s = self.subs.borrow_mut().remove(&sub)?;
        let task_id = task_id.or_else(|| s.task_id.as_deref().map(str::to_owned));
        Some(finish(&s.handle, task_id, end, s.snapshot()))
    }

    fn sub(&self, sub: f64) -> Option<Ref<'_, Sub>> {
        Ref::filter_map(self.subs.borrow(), |s| s.get(&sub_id(sub))).ok()
    }
}

/// Ends `handle` with `end` (`last`: its last snapshot): builds the record and decides what
/// `result()` and the first promise settle with. Returns the record.
pub(super) fn finish(
    handle: &TaskHandle,
    task_id: Option<String>,
    end: End,
    last: Option<model::Task>,
) -> TaskDone {
    let last = match &end {
        End::Finished { task: Some(t), .. } => Some(t.clone()),
        _ => last,
    };
    let resolves_first = verdict::resolves_first(&end, last.as_ref());
    let done = TaskDone::from_end(task_id, end, last);
    let (ok, value) = match done.result() {
        Ok(v) => (true, v.map_or(JsValue::NULL, to_js)),
        Err(info) => {
            let cause = match info.kind {
                ErrorKind::Aborted => handle.abort_reason(),
                _ => JsValue::UNDEFINED,
            };
            (false, caused(info, &cause))
        }
    };
    handle.done(&to_js(&done), ok, &value, resolves_first);
    done
}

/// What a client's handles read and ask for, by subscription id. One per client, shared by its
/// handles; not part of the public API.
#[wasm_bindgen(skip_typescript)]
pub struct HandlePort {
    client: Weak<ClientInner>,
}

impl HandlePort {
    pub(super) fn new(client: Weak<ClientInner>) -> Self {
        Self { client }
    }

    fn read(&self, sub: f64, f: impl FnOnce(&Sub) -> JsValue) -> JsValue {
        let client = self.client.upgrade();
        let s = client.as_ref().and_then(|c| c.sub(sub));
        s.map_or(JsValue::NULL, |s| f(&s))
    }
}

#[wasm_bindgen]
impl HandlePort {
    /// The subscription's task id; `null` before the server made a task.
    #[wasm_bindgen(skip_typescript)]
    pub fn id(&self, sub: f64) -> JsValue {
        self.read(sub, |s| {
            s.task_id
                .as_deref()
                .map_or(JsValue::NULL, JsValue::from_str)
        })
    }

    /// The subscription's last status; `null` before the first snapshot.
    #[wasm_bindgen(skip_typescript)]
    pub fn status(&self, sub: f64) -> JsValue {
        self.read(sub, |s| {
            s.task.as_ref().map_or(JsValue::NULL, |t| to_js(&t.status))
        })
    }

    /// The subscription's last snapshot; `null` before the first one.
    #[wasm_bindgen(skip_typescript)]
    pub fn task(&self, sub: f64) -> JsValue {
        self.read(sub, |s| s.snapshot().map_or(JsValue::NULL, |t| to_js(&t)))
    }

    /// Stops waiting: the subscription ends `aborted` (nothing is sent).
    #[wasm_bindgen(skip_typescript)]
    pub fn stop(&self, sub: f64) {
        let Some(c) = self.client.upgrade() else {
            return;
        };
        let sub = sub_id(sub);
        if !c.subs.borrow().contains_key(&sub) {
            return;
        }
        match c.driver() {
            Some(d) => d.op(|e, now| e.unsubscribe(now, sub)),
            None => c.done(sub, None, End::Aborted),
        }
    }

    /// Asks the server to cancel the task; resolves once it acknowledged.
    #[wasm_bindgen(skip_typescript)]
    pub fn cancel(&self, task_id: String) -> Promise {
        match self.client.upgrade() {
            Some(c) => c.cancel(task_id),
            None => gone(),
        }
    }

    /// Deletes the task on the server; rejects `invalidInput` without a task id.
    #[wasm_bindgen(skip_typescript)]
    pub fn delete(&self, task_id: Option<String>) -> Promise {
        match (task_id, self.client.upgrade()) {
            (Some(id), Some(c)) => c.delete(id),
            (None, _) => Promise::reject(&error(ErrorKind::InvalidInput, "no task to delete")),
            (_, None) => gone(),
        }
    }
}

fn gone() -> Promise {
    Promise::reject(&error(ErrorKind::Closed, "the client is gone"))
}
