//! `TaskHandle` (one subscription to one task or request) and its `updates()` iterator.

use std::cell::{Cell, RefCell, RefMut};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::convert::to_js;
use super::error::{caused, error};
use super::types::{DoneKind, ErrorKind, Task, TaskDone};
use super::ClientInner;
use crate::engine::api::{End, SubId};
use crate::engine::known::Known;
use crate::protocol::model;

pub use crate::driver::deferred::{deferred, Settle};
use crate::driver::deferred::{later, reject, resolve};

/// Calls a user callback; a throwing callback must not disturb the client.
fn call_user(f: &Function, v: &JsValue) {
    let _ = f.call1(&JsValue::UNDEFINED, v);
}

/// An `abort` listener registered on a caller's signal, removed when the hook is dropped.
pub struct SignalHook {
    signal: AbortSignal,
    cb: Closure<dyn FnMut()>,
}

impl SignalHook {
    /// Calls `cb` when `signal` aborts (a signal aborts once).
    pub fn listen(signal: AbortSignal, cb: Closure<dyn FnMut()>) -> Self {
        let _ = signal.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
        Self { signal, cb }
    }
}

impl Drop for SignalHook {
    fn drop(&mut self) {
        // The closure dies here: the signal must not call it afterwards.
        let cb = self.cb.as_ref().unchecked_ref();
        let _ = self.signal.remove_event_listener_with_callback("abort", cb);
    }
}

/// The bit marking an `onDone` callback's id.
const DONE: u32 = 1 << 31;

/// The shared state behind a `TaskHandle` (every JS wrapper of one subscription points here).
pub struct HandleState {
    client: Weak<ClientInner>,
    sub: Cell<Option<SubId>>,
    /// The task's id: the engine's own where it runs here.
    task_id: RefCell<Option<Rc<str>>>,
    /// The last snapshot, kept compact (its id is `task_id`): the engine's own where it runs
    /// here.
    task: RefCell<Option<Rc<Known>>>,
    /// Bumped on every delivered snapshot.
    version: Cell<u32>,
    /// The end record, boxed: most handles wait unfinished, and it is large.
    done: RefCell<Option<Box<TaskDone>>>,
    /// `onStatus` and `onDone` callbacks by id (an `onDone` one's has [`DONE`] set), in one list:
    /// most handles have one callback.
    cbs: RefCell<Vec<(u32, Function)>>,
    next_cb: Cell<u32>,
    first: RefCell<Option<Settle>>,
    /// What only some handles use, allocated on first use: most handles only wait.
    extras: RefCell<Option<Box<Extras>>>,
}

/// The parts of a handle's state that `result()`, `updates()`, `cancel()` or a signal add.
#[derive(Default)]
struct Extras {
    abort_reason: Option<JsValue>,
    waiters: Vec<Settle>,
    iters: Vec<Rc<IterState>>,
    cancels: Vec<Settle>,
    signal: Option<SignalHook>,
}

impl HandleState {
    pub fn new(client: Weak<ClientInner>, task_id: Option<String>) -> Rc<Self> {
        Rc::new(Self {
            client,
            sub: Cell::new(None),
            task_id: RefCell::new(task_id.map(Rc::from)),
            task: RefCell::new(None),
            version: Cell::new(0),
            done: RefCell::new(None),
            cbs: RefCell::new(Vec::new()),
            next_cb: Cell::new(1),
            first: RefCell::new(None),
            extras: RefCell::new(None),
        })
    }

    /// The promise `callTool`/`request` return: settles on the first status or on the end.
    pub fn first_promise(&self) -> Promise {
        let (p, s) = deferred();
        *self.first.borrow_mut() = Some(s);
        p
    }

    /// The extras, created on first use.
    fn extras(&self) -> RefMut<'_, Extras> {
        RefMut::map(self.extras.borrow_mut(), |e| {
            &mut **e.get_or_insert_with(Box::default)
        })
    }

    /// Takes a list out of the extras (empty when there are none).
    fn take<T>(&self, list: impl FnOnce(&mut Extras) -> &mut Vec<T>) -> Vec<T> {
        match self.extras.borrow_mut().as_mut() {
            Some(e) => std::mem::take(list(e)),
            None => Vec::new(),
        }
    }

    pub fn set_sub(&self, sub: SubId) {
        self.sub.set(Some(sub));
    }

    fn wrapper(self: &Rc<Self>) -> JsValue {
        TaskHandle { st: self.clone() }.into()
    }

    /// Stops waiting when `signal` aborts (local only: the engine sends nothing).
    pub fn watch_signal(self: &Rc<Self>, signal: AbortSignal) {
        let weak = Rc::downgrade(self);
        let sig = signal.clone();
        let cb = Closure::<dyn FnMut()>::new(move || {
            if let Some(h) = weak.upgrade() {
                h.extras().abort_reason = Some(sig.reason());
                h.stop();
            }
        });
        let aborted = signal.aborted();
        let reason = signal.reason();
        self.extras().signal = Some(SignalHook::listen(signal, cb));
        if aborted {
            self.extras().abort_reason = Some(reason);
            self.stop();
        }
    }

    fn release_signal(&self) {
        // Dropped outside the borrow: it calls `removeEventListener`.
        let hook = self
            .extras
            .borrow_mut()
            .as_mut()
            .and_then(|e| e.signal.take());
        drop(hook);
    }

    /// Ends the handle `aborted` without involving the engine (an already-aborted signal).
    pub fn abort_now(self: &Rc<Self>, reason: JsValue) {
        self.extras().abort_reason = Some(reason);
        self.on_done(None, End::Aborted);
    }

    /// Stop waiting: the subscription ends `aborted` (nothing is sent).
    pub fn stop(self: &Rc<Self>) {
        if self.done.borrow().is_some() {
            return;
        }
        let client = self.client.upgrade();
        match (self.sub.get(), client.and_then(|c| c.driver())) {
            (Some(sub), Some(d)) => d.op(|e, now| e.unsubscribe(now, sub)),
            _ => {
                self.on_done(None, End::Aborted);
            }
        }
    }

    /// The last snapshot as a task.
    fn snapshot(&self) -> Option<model::Task> {
        let id = self.task_id.borrow();
        let task = self.task.borrow();
        Some(task.as_ref()?.task(id.as_deref().unwrap_or_default()))
    }

    /// A status snapshot arrived.
    pub fn on_status(self: &Rc<Self>, task: model::Task) {
        if self.done.borrow().is_some() {
            return;
        }
        let terminal = task.status.is_terminal();
        let cbs: Vec<Function> = self
            .cbs
            .borrow()
            .iter()
            .filter(|(id, _)| id & DONE == 0)
            .map(|(_, f)| f.clone())
            .collect();
        // Converted only for callbacks: most handles just wait for the end.
        let js = (!cbs.is_empty()).then(|| to_js(&task));
        self.version.set(self.version.get().wrapping_add(1));
        if let Some(first) = self.first.borrow_mut().take() {
            resolve(&first, &self.wrapper());
        }
        // A terminal snapshot reaches iterators once, as the final one (with its outcome).
        if !terminal {
            if let Some(e) = self.extras.borrow().as_ref() {
                for it in &e.iters {
                    it.push(task.clone());
                }
            }
        }
        // Kept before any callback runs (promise reactions above run later, as microtasks).
        let shared = self.client.upgrade().and_then(|c| c.driver());
        let (id, known) = match shared.and_then(|d| d.known(&task.task_id)) {
            Some(shared) => shared,
            None => (Rc::from(task.task_id.as_str()), Rc::new(Known::new(task))),
        };
        self.task_id.borrow_mut().replace(id);
        *self.task.borrow_mut() = Some(known);
        if let Some(js) = &js {
            for f in &cbs {
                call_user(f, js);
            }
        }
        let cancels = self.take(|e| &mut e.cancels);
        for s in cancels {
            self.cancel_into(s);
        }
    }

    /// The subscription ended (exactly once): settles everything waiting and fires this handle's
    /// `onDone` callbacks here, in this page. Returns the record's task id and the record as JS
    /// when it ended just now.
    pub fn on_done(
        self: &Rc<Self>,
        task_id: Option<String>,
        end: End,
    ) -> Option<(Option<String>, JsValue)> {
        if self.done.borrow().is_some() {
            return None;
        }
        if let End::Finished { task: Some(t), .. } = &end {
            *self.task.borrow_mut() = Some(Rc::new(Known::new(t.clone())));
        }
        let last = self.snapshot();
        let task_id = task_id.or_else(|| self.task_id.borrow().as_deref().map(str::to_owned));
        let done = TaskDone::from_end(task_id, end, last);
        if self.task_id.borrow().is_none() {
            *self.task_id.borrow_mut() = done.task_id.as_deref().map(Rc::from);
        }
        let js = to_js(&done);
        // The page-wide `onTaskDoneOnce` callbacks get their own copy.
        let ended = (done.task_id.clone(), to_js(&done));
        let resolves_first = done.kind == DoneKind::Finished || done.task.is_some();
        let last = done.task.clone();
        *self.done.borrow_mut() = Some(Box::new(done));
        self.release_signal();
        let settled = self.settlement();
        if let Some(first) = self.first.borrow_mut().take() {
            if resolves_first {
                resolve(&first, &self.wrapper());
            } else {
                reject(&first, &settled.clone().err().unwrap_or(JsValue::UNDEFINED));
            }
        }
        for w in self.take(|e| &mut e.waiters) {
            match &settled {
                Ok(v) => resolve(&w, v),
                Err(e) => reject(&w, e),
            }
        }
        for it in self.take(|e| &mut e.iters) {
            if let Some(t) = &last {
                it.push_if_new(t);
            }
            it.finish();
        }
        let cbs = std::mem::take(&mut *self.cbs.borrow_mut());
        for (_, f) in cbs.iter().filter(|(id, _)| id & DONE != 0) {
            call_user(f, &js);
        }
        for s in self.take(|e| &mut e.cancels) {
            resolve(&s, &JsValue::UNDEFINED);
        }
        Some(ended)
    }

    /// What `result()` settles with, once done.
    fn settlement(&self) -> Result<JsValue, JsValue> {
        let done = self.done.borrow();
        let Some(done) = done.as_ref() else {
            return Err(JsValue::UNDEFINED);
        };
        match done.result() {
            Ok(v) => Ok(v.map_or(JsValue::NULL, to_js)),
            Err(info) => {
                let cause = match info.kind {
                    ErrorKind::Aborted => self
                        .extras
                        .borrow()
                        .as_ref()
                        .and_then(|e| e.abort_reason.clone()),
                    _ => None,
                };
                Err(caused(info, &cause.unwrap_or(JsValue::UNDEFINED)))
            }
        }
    }

    fn cancel_into(self: &Rc<Self>, s: Settle) {
        let Some(task_id) = self.task_id.borrow().clone() else {
            self.extras().cancels.push(s);
            return;
        };
        match self.client.upgrade() {
            Some(c) => c.cancel(&task_id, s),
            None => reject(&s, &error(ErrorKind::Closed, "the client is gone")),
        }
    }

    /// Adds a callback (`kind`: 0 or [`DONE`]); returns its id.
    fn subscribe(&self, kind: u32, cb: Function) -> u32 {
        let id = self.next_cb.get() | kind;
        self.next_cb.set(self.next_cb.get().wrapping_add(1) & !DONE);
        let mut list = self.cbs.borrow_mut();
        // Most handles get one callback of a kind: no spare room.
        list.reserve_exact(1);
        list.push((id, cb));
        id
    }

    fn off(self: &Rc<Self>, id: u32) -> JsValue {
        let weak = Rc::downgrade(self);
        Closure::<dyn FnMut()>::new(move || {
            if let Some(h) = weak.upgrade() {
                h.cbs.borrow_mut().retain(|(i, _)| *i != id);
            }
        })
        .into_js_value()
    }
}

/// One subscription to one task (or plain request). Obtain it from `callTool`, `request` or `watch`.
/// Declared by hand in `typescript.rs` (a generic class, which wasm-bindgen cannot declare).
#[wasm_bindgen(skip_typescript)]
pub struct TaskHandle {
    st: Rc<HandleState>,
}

impl TaskHandle {
    pub fn new(st: Rc<HandleState>) -> Self {
        Self { st }
    }
}

#[wasm_bindgen]
impl TaskHandle {
    /// The task id; `null` until the server made a task (and for plain results). On the draft
    /// dialect it is the id this client generated, from the moment the request went out.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> JsValue {
        self.st
            .task_id
            .borrow()
            .as_deref()
            .map_or(JsValue::NULL, JsValue::from_str)
    }

    /// The last known status; `null` before the first snapshot.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> JsValue {
        self.st
            .task
            .borrow()
            .as_ref()
            .map_or(JsValue::NULL, |t| to_js(&t.status))
    }

    /// The last known snapshot; `null` before the first one.
    #[wasm_bindgen(getter)]
    pub fn task(&self) -> JsValue {
        let task = self.st.snapshot();
        task.map_or(JsValue::NULL, |t| to_js(&t))
    }

    /// Whether the handle has ended (then `onDone` has fired and `result()` is settled).
    #[wasm_bindgen(getter, js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.st.done.borrow().is_some()
    }

    /// Calls `cb` with the current snapshot (asynchronously, when there is one) and with every new
    /// one until the handle ends; returns the unsubscribe function.
    #[wasm_bindgen(js_name = onStatus)]
    pub fn on_status(&self, cb: Function) -> JsValue {
        if self.st.done.borrow().is_some() {
            return self.st.off(0);
        }
        let id = self.st.subscribe(0, cb.clone());
        if self.st.task.borrow().is_some() {
            let st = self.st.clone();
            let version = st.version.get();
            later(Box::new(move |_| {
                // Replay only if still subscribed and nothing newer was delivered meanwhile.
                let live = st.cbs.borrow().iter().any(|(i, _)| *i == id);
                let task = st.snapshot().map(|t| to_js(&t));
                if let (true, true, Some(task)) = (live, st.version.get() == version, task) {
                    call_user(&cb, &task);
                }
            }));
        }
        self.st.off(id)
    }

    /// Calls `cb` exactly once when the handle ends (at once, asynchronously, if it already has);
    /// returns the unsubscribe function.
    #[wasm_bindgen(js_name = onDone)]
    pub fn on_done(&self, cb: Function) -> JsValue {
        if let Some(done) = self.st.done.borrow().as_ref() {
            let js = to_js(done);
            later(Box::new(move |_| call_user(&cb, &js)));
            return self.st.off(0);
        }
        let id = self.st.subscribe(DONE, cb);
        self.st.off(id)
    }

    /// Resolves with the request's result when the task completes; rejects with an `McpTaskError`
    /// (`rpc`, `taskFailed`, `cancelled`, `expired`, `aborted`, …) otherwise.
    pub fn result(&self) -> Promise {
        if self.st.done.borrow().is_some() {
            return match self.st.settlement() {
                Ok(v) => Promise::resolve(&v),
                Err(e) => Promise::reject(&e),
            };
        }
        let (p, s) = deferred();
        self.st.extras().waiters.push(s);
        p
    }

    /// Every snapshot from now on (starting with the current one), ending when the handle ends.
    pub fn updates(&self) -> TaskUpdates {
        let it = Rc::new(IterState::default());
        if let Some(t) = self.st.snapshot() {
            it.push(t);
        }
        if self.st.done.borrow().is_some() {
            it.finish();
        } else {
            self.st.extras().iters.push(it.clone());
        }
        TaskUpdates { st: it }
    }

    /// Asks the server to cancel the task (`tasks/cancel`, or the dialect's equivalent); resolves
    /// once the server acknowledged. Before the task exists, the cancel is sent as soon as it does.
    pub fn cancel(&self) -> Promise {
        let (p, s) = deferred();
        if self.st.done.borrow().is_some() {
            resolve(&s, &JsValue::UNDEFINED);
        } else {
            self.st.cancel_into(s);
        }
        p
    }

    /// Deletes the task on the server (`tasks/delete`, draft servers only; other dialects reject
    /// with `invalidInput` without sending anything). Rejects `invalidInput` without a task id.
    pub fn delete(&self) -> Promise {
        let id = self.st.task_id.borrow().clone();
        match (id, self.st.client.upgrade()) {
            (Some(id), Some(c)) => c.delete(id.to_string()),
            (None, _) => Promise::reject(&error(ErrorKind::InvalidInput, "no task to delete")),
            (_, None) => Promise::reject(&error(ErrorKind::Closed, "the client is gone")),
        }
    }

    /// Stops waiting (locally; nothing is sent): the handle ends `aborted`.
    pub fn stop(&self) {
        self.st.stop();
    }
}

/// Snapshot queue behind one `updates()` iterator.
#[derive(Default)]
pub struct IterState {
    queue: RefCell<VecDeque<Task>>,
    last: RefCell<Option<Task>>,
    waiter: RefCell<Option<Settle>>,
    finished: Cell<bool>,
}

fn step(value: &JsValue, done: bool) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &"value".into(), value);
    let _ = Reflect::set(&o, &"done".into(), &JsValue::from_bool(done));
    o.into()
}

impl IterState {
    fn push(&self, t: Task) {
        if self.finished.get() {
            return;
        }
        *self.last.borrow_mut() = Some(t.clone());
        match self.waiter.borrow_mut().take() {
            Some(w) => resolve(&w, &step(&to_js(&t), false)),
            None => self.queue.borrow_mut().push_back(t),
        }
    }

    /// Pushes the final snapshot unless it was the last one pushed.
    fn push_if_new(&self, t: &Task) {
        let same = self.last.borrow().as_ref() == Some(t);
        if !same {
            self.push(t.clone());
        }
    }

    fn finish(&self) {
        self.finished.set(true);
        if self.queue.borrow().is_empty() {
            if let Some(w) = self.waiter.borrow_mut().take() {
                resolve(&w, &step(&JsValue::UNDEFINED, true));
            }
        }
    }
}

/// The async iterator returned by `TaskHandle.updates()` (`for await (const task of handle.updates())`).
#[wasm_bindgen]
pub struct TaskUpdates {
    st: Rc<IterState>,
}

#[wasm_bindgen]
impl TaskUpdates {
    /// The next snapshot; `{ done: true }` after the handle ended and all snapshots were read.
    #[wasm_bindgen(unchecked_return_type = "Promise<IteratorResult<Task, undefined>>")]
    pub fn next(&self) -> Promise {
        if let Some(t) = self.st.queue.borrow_mut().pop_front() {
            return Promise::resolve(&step(&to_js(&t), false));
        }
        if self.st.finished.get() {
            return Promise::resolve(&step(&JsValue::UNDEFINED, true));
        }
        let (p, s) = deferred();
        if let Some(old) = self.st.waiter.borrow_mut().replace(s) {
            resolve(&old, &step(&JsValue::UNDEFINED, true));
        }
        p
    }

    /// Ends the iteration early (what `break` in `for await` calls).
    #[wasm_bindgen(
        js_name = "return",
        unchecked_return_type = "Promise<IteratorResult<Task, undefined>>"
    )]
    pub fn finish(&self) -> Promise {
        self.st.queue.borrow_mut().clear();
        self.st.finish();
        Promise::resolve(&step(&JsValue::UNDEFINED, true))
    }
}
