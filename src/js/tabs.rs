//! The JS face of tab coordination and persistence (issue 5): `resume()`, `forget()`, `role`,
//! `storage`, and the completion-ledger check behind `onDone`.

use std::rc::{Rc, Weak};

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::handle::{HandleState, TaskHandle};
use super::types::{DoneKind, ErrorKind, TaskDone};
use super::{ClientInner, McpTaskClient};
use crate::driver::tabs::Ledger;

/// The ledger to consult before firing `onDone` for `done` (tasks of shared clients): every end
/// the task itself reached, also one whose outcome could not be fetched (a later page must not
/// fire again because the server forgot a task whose end already fired), but not the ends this
/// page chose (it stopped waiting, or closed its client), which claim nothing.
pub(super) fn ledger_for(client: &Weak<ClientInner>, done: &TaskDone) -> Option<(Ledger, String)> {
    let chosen_here = match done.kind {
        DoneKind::Finished => false,
        DoneKind::Aborted => true,
        DoneKind::Failed => done
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Closed),
    };
    if chosen_here {
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
