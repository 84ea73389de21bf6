//! The JS face of tab coordination and persistence (issue 5): `resume()`, `forget()`, `role`,
//! `storage`, and the completion-ledger check behind `onDone`.

use std::rc::{Rc, Weak};

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::handle::{HandleState, TaskHandle};
use super::types::{DoneKind, TaskDone};
use super::{ClientInner, McpTaskClient};
use crate::driver::tabs::Ledger;

/// The ledger to consult before firing `onDone` for `done` (finished tasks of shared clients).
pub(super) fn ledger_for(client: &Weak<ClientInner>, done: &TaskDone) -> Option<(Ledger, String)> {
    if done.kind != DoneKind::Finished {
        return None;
    }
    let id = done.task_id.clone()?;
    let ledger = client.upgrade()?.driver()?.ledger()?;
    Some((ledger, id))
}

#[wasm_bindgen]
impl McpTaskClient {
    /// With `persist`: handles for every stored task of this server and identity whose `onDone`
    /// has not fired yet (also tasks that ended while no tab was open). `[]` without `persist`.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskHandle[]>")]
    pub fn resume(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let link = inner.live_driver()?;
            let out = Array::new();
            for id in link.pending_tasks().await {
                let h = HandleState::new(Rc::downgrade(&inner), Some(id.clone()));
                inner.start(&h, None, move |e, now| e.watch(now, &id))?;
                out.push(&TaskHandle::new(h).into());
            }
            Ok(out.into())
        })
    }

    /// With `persist`: stops tracking a task in every tab and deletes its stored record.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn forget(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Promise {
        let link = self.inner.driver();
        future_to_promise(async move {
            if let Some(l) = link {
                l.forget(&task_id).await;
            }
            Ok(JsValue::UNDEFINED)
        })
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
