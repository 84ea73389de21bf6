//! The JS face of tab coordination and persistence: `resume()`, `forget()`, and when a task's end
//! is this page's to report (`onTaskDoneOnce`); `role` and `storage` are read in `client.rs`.

use std::cell::RefCell;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::types::{ClientWarning, ErrorInfo, ErrorKind};
use super::{ClientCore, ClientInner, Heard};
use crate::collections::sorted::SortedSet;
use crate::driver::tabs::Link;

/// The tasks whose end this page already reported.
#[derive(Default)]
pub(super) struct Once {
    /// A sorted set, as the engine keeps task ids (no hash set instance of its own).
    reported: RefCell<SortedSet<String>>,
}

impl Once {
    /// A handle of this page saw task `task_id` end for good (any end the server decided: a
    /// terminal status, a result that cannot be had, a task the server does not know): the first
    /// time per task in this page, claim the task in the completion ledger (with `persist`) and,
    /// if this page wins it, run `won` (which calls the `onTaskDoneOnce` callbacks). The claim is
    /// made even with no callbacks: it marks the task as reported for `resume()` in every tab and
    /// later load.
    pub(super) fn task_ended(
        &self,
        link: Option<Link>,
        task_id: Option<String>,
        won: Box<dyn FnOnce()>,
    ) {
        let Some(id) = task_id else {
            return;
        };
        if !self.reported.borrow_mut().insert(id.clone()) {
            return;
        }
        #[cfg(feature = "tabs")]
        {
            // A page-only store (an opaque origin) shares nothing: `reported` alone makes it once.
            let shared = link.filter(|l| l.storage().is_some_and(|s| s != "memory"));
            let ledger = shared.and_then(|l| l.ledger()).map(|l| (l, id));
            crate::driver::tabs::fire(ledger, won);
        }
        #[cfg(not(feature = "tabs"))]
        {
            let _ = link;
            won();
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
    let warning = ClientWarning {
        task_id: None,
        error,
    };
    inner.emit(Heard::Warning, 0.0, &warning);
}

impl ClientCore {
    /// The tasks a shared scope (`persist`) stores (`ClientCore::ask` 16 and 17), with one
    /// callback `then`: to `forget` a task, stops tracking it in every tab and deletes its stored
    /// record, then calls `then()`; else calls `then(ids)` with the ids of every stored task of
    /// this scope whose end no page has reported yet (the JS client watches each).
    pub(super) fn stored(&self, forget: Option<String>, then: Function) -> Result<(), JsValue> {
        let reply = move |v: &JsValue| {
            let _ = then.call1(&JsValue::UNDEFINED, v);
        };
        let Some(task_id) = forget else {
            let link = self.inner.live_driver()?;
            link.pending_tasks(Box::new(move |ids| {
                let ids: Array = ids.iter().map(|id| JsValue::from_str(id)).collect();
                reply(&ids);
            }));
            return Ok(());
        };
        let done = Box::new(move || reply(&JsValue::UNDEFINED));
        match self.inner.driver() {
            Some(l) => l.forget(&task_id, done),
            None => done(),
        }
        Ok(())
    }
}
