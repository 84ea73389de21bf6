//! The client's side of its `TaskHandle`s. A handle is hand-written JS (`npm/handle.js`: its
//! callbacks, waiting promises and iterators), made by the JS client and handed over when its
//! subscription starts; the client keeps each live subscription's handle, task id and latest
//! snapshot, decides what the end means (the record, what `result()` and the first promise settle
//! with) and answers the handle's questions by subscription id (`ClientCore::ask`).

use std::cell::Ref;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::types::TaskDone;
use super::ClientInner;
use crate::engine::api::{End, SubId};
use crate::engine::known::Known;
use crate::engine::verdict;
use crate::protocol::model;

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

    /// The subscription ended: the record (what `result()` settles with is read from it) and
    /// whether the first promise resolves with the handle.
    #[wasm_bindgen(method, js_name = _done)]
    fn done(this: &TaskHandle, record: &JsValue, resolves_first: bool);
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
    /// Registers `handle` for the subscription `start` creates, before any of its events;
    /// returns the subscription's id.
    pub(super) fn start(
        self: &Rc<Self>,
        handle: TaskHandle,
        task_id: Option<String>,
        start: super::Run<SubId>,
    ) -> Result<f64, JsValue> {
        let d = self.live_driver()?;
        let sub = d.op_then(start, |sub| {
            let entry = Sub {
                handle,
                task_id: task_id.map(Rc::from),
                task: None,
            };
            self.subs.borrow_mut().insert(*sub, entry);
        });
        Ok(sub.0 as f64)
    }

    /// A status snapshot arrived for `sub`.
    pub(super) fn status(&self, sub: SubId, task: model::Task) {
        let Some(handle) = self.subs.borrow().get(sub).map(|s| s.handle.clone()) else {
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
        if let Some(s) = self.subs.borrow_mut().get_mut(sub) {
            s.task_id = Some(id);
            s.task = Some(known);
        }
        handle.status(&js, terminal);
    }

    /// Subscription `sub` ended: its handle settles. Returns its record when it was live.
    pub(super) fn end(&self, sub: SubId, task_id: Option<String>, end: End) -> Option<TaskDone> {
        let s = self.subs.borrow_mut().remove(sub)?;
        let task_id = task_id.or_else(|| s.task_id.as_deref().map(str::to_owned));
        Some(finish(&s.handle, task_id, end, s.snapshot()))
    }

    /// Stops waiting on subscription `sub`: it ends `aborted` (nothing is sent).
    pub(super) fn stop(self: &Rc<Self>, sub: f64) {
        let sub = sub_id(sub);
        if self.subs.borrow().get(sub).is_none() {
            return;
        }
        match self.driver() {
            Some(d) => d.op(|e, now| e.unsubscribe(now, sub)),
            None => self.done(sub, None, End::Aborted),
        }
    }

    /// What a handle reads of subscription `sub` (`null` before it is known): `what` `SUB_ID` the
    /// task id, `SUB_STATUS` the last status, `SUB_TASK` the last snapshot.
    pub(super) fn read_sub(&self, sub: f64, what: u8) -> JsValue {
        let Ok(s) = Ref::filter_map(self.subs.borrow(), |s| s.get(sub_id(sub))) else {
            return JsValue::NULL;
        };
        let none = || JsValue::NULL;
        match what {
            super::codes::SUB_ID => s.task_id.as_deref().map_or_else(none, JsValue::from_str),
            super::codes::SUB_STATUS => s
                .task
                .as_ref()
                .map_or_else(none, |t| t.status.name().into()),
            _ => s.snapshot().map_or_else(none, |t| to_js(&t)),
        }
    }
}

/// Ends `handle` with `end` (`last`: its last snapshot): builds the record (which says what
/// `result()` settles with: its `error`, else its outcome's result) and decides whether the first
/// promise resolves. Returns the record.
pub(super) fn finish(
    handle: &TaskHandle,
    task_id: Option<String>,
    end: End,
    last: Option<model::Task>,
) -> TaskDone {
    let resolves_first = verdict::resolves_first(&end, last.as_ref());
    let done = TaskDone::from_end(task_id, end, last);
    handle.done(&to_js(&done), resolves_first);
    done
}
