//! The JS face of tab coordination and persistence: `resume()`, `forget()`, `role`,
//! `storage`, and `onTaskDoneOnce` (the completion ledger's callers).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::types::{ClientWarning, ErrorInfo, ErrorKind};
use super::{ClientInner, McpTaskClient};
use crate::driver::deferred::{deferred, reject, resolve};
use crate::driver::tabs::{Link, Requestor};
use crate::engine::sorted::SortedSet;

/// The client's `onTaskDoneOnce` callbacks and the tasks whose end this page already reported.
#[derive(Default)]
pub(super) struct Once {
    callbacks: RefCell<Vec<Function>>,
    /// A sorted set, as the engine keeps task ids (no hash set instance of its own).
    reported: RefCell<SortedSet<String>>,
}

impl Once {
    /// A handle of this page saw its task end for good (any end the server decided: a terminal
    /// status, a result that cannot be had, a task the server does not know): the first time per
    /// task in this page, claim the task in the completion ledger (with `persist`) and, if this
    /// page wins it, call the callbacks. The claim is made even with no callbacks: it marks the
    /// task as reported for `resume()` in every tab and later load. `done` is the `TaskDone`
    /// record of task `task_id`, as JS.
    pub(super) fn task_ended(&self, link: Option<Link>, task_id: Option<String>, done: &JsValue) {
        let Some(id) = task_id else {
            return;
        };
        if !self.reported.borrow_mut().insert(id.clone()) {
            return;
        }
        let callbacks = self.callbacks.borrow().clone();
        #[cfg(feature = "tabs")]
        {
            // A page-only store (an opaque origin) shares nothing: `reported` alone makes it once.
            let shared = link.filter(|l| l.storage().is_some_and(|s| s != "memory"));
            let ledger = shared.and_then(|l| l.ledger()).map(|l| (l, id));
            crate::driver::tabs::fire(ledger, callbacks, done.clone());
        }
        #[cfg(not(feature = "tabs"))]
        {
            let _ = link;
            crate::driver::tabs::call_all(&callbacks, done);
        }
    }
}

/// With `persist` but no storage the origin lets us use (an opaque origin: a sandboxed frame, a
/// `data:` page; or storage blocked), tasks live in memory for this page only: say so once.
pub(super) fn warn_if_unstored(inner: &ClientInner, link: &Link) {
    if link.storage() != Some("memory") {
        return;
    }
    let error = ErrorInfo::new(
        ErrorKind::InvalidInput,
        "persist: this origin has no storage (an opaque origin, or storage blocked): tasks are \
         kept in memory for this page only, and not shared with other tabs or reloads",
    );
    if let Some(f) = &inner.on_warning {
        let warning = ClientWarning {
            task_id: None,
            error,
        };
        let _ = f.call1(&JsValue::UNDEFINED, &to_js(&warning));
    }
}

#[wasm_bindgen]
impl McpTaskClient {
    /// With `persist`: handles for every stored task of this server and identity whose end no
    /// page has reported yet (also tasks that ended while no tab was open). `[]` without `persist`.
    /// Declared in `typescript.rs` (generic).
    #[wasm_bindgen(skip_typescript)]
    pub fn resume(&self) -> Promise {
        let link = match self.inner.live_driver() {
            Ok(l) => l,
            Err(e) => return Promise::reject(&e),
        };
        let (p, settle) = deferred();
        let inner = self.inner.clone();
        link.pending_tasks(Box::new(move |ids| {
            let out = Array::new();
            for id in ids {
                let task_id = id.clone();
                let watch = Box::new(move |e: &mut dyn Requestor, now| e.watch(now, &task_id));
                match inner.start(Some(id), None, None, watch) {
                    Ok(h) => out.push(&h),
                    Err(e) => return reject(&settle, &e),
                };
            }
            resolve(&settle, &out);
        }));
        p
    }

    /// Calls `cb` once per task that ends — with `persist`, once across every tab and reload of
    /// this origin (the first page to see the end wins; the completion ledger decides), without
    /// it once in this client. For side effects that must not repeat (a notification, a write);
    /// UI belongs in each handle's `onDone`, which fires in every page holding a handle. Returns
    /// the unsubscribe function.
    #[wasm_bindgen(js_name = onTaskDoneOnce, unchecked_return_type = "() => void")]
    pub fn on_task_done_once(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(done: TaskDone) => void")] cb: Function,
    ) -> JsValue {
        self.inner.once.callbacks.borrow_mut().push(cb.clone());
        let weak = Rc::downgrade(&self.inner);
        Closure::<dyn FnMut()>::new(move || {
            if let Some(c) = weak.upgrade() {
                c.once.callbacks.borrow_mut().retain(|f| f != &cb);
            }
        })
        .into_js_value()
    }

    /// With `persist`: stops tracking a task in every tab and deletes its stored record.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn forget(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let (p, settle) = deferred();
        let done = Box::new(move || resolve(&settle, &JsValue::UNDEFINED));
        match self.inner.driver() {
            Some(l) => l.forget(&task_id, done),
            None => done(),
        }
        p
    }

    /// This tab's part: `"solo"` (no `persist`), `"leader"` (does the network I/O), `"follower"`
    /// or `"electing"` (between leaders).
    #[wasm_bindgen(
        getter,
        unchecked_return_type = "\"solo\" | \"leader\" | \"follower\" | \"electing\""
    )]
    pub fn role(&self) -> String {
        self.inner.driver().map_or("solo", |l| l.role()).to_owned()
    }

    /// Where tracked tasks are stored: `"indexedDB"`, `"localStorage"`, `"memory"`; `null` without `persist`.
    #[wasm_bindgen(
        getter,
        unchecked_return_type = "\"indexedDB\" | \"localStorage\" | \"memory\" | null"
    )]
    pub fn storage(&self) -> JsValue {
        self.inner
            .driver()
            .and_then(|l| l.storage())
            .map_or(JsValue::NULL, JsValue::from_str)
    }
}
