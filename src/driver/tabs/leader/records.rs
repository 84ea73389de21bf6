//! The leader's persistence: the shared session, and task records written in batches.

use wasm_bindgen_futures::spawn_local;

use crate::driver::persist::{SessionRecord, TaskRecord};
use crate::driver::tabs::tab::Tab;
use crate::driver::{global, TransportKind};
use crate::engine::snapshot::TaskSnapshot;

impl Tab {
    /// Persists the shared session (HTTP only: a WebSocket session dies with its socket).
    pub(super) fn save_session(&self) {
        if self.0.conf.transport != TransportKind::Http {
            return;
        }
        let Some((driver, info)) = self
            .leading(|l| l.driver.clone().map(|d| (d, l.server_info.clone())))
            .flatten()
        else {
            return;
        };
        let Some(session) = driver.read(|e| e.session_snapshot(info)) else {
            return;
        };
        let store = self.0.store.clone();
        spawn_local(async move {
            store
                .put_session(&SessionRecord {
                    session,
                    saved_at: global::now(),
                })
                .await;
        });
    }

    /// Marks a task's record for writing (batched).
    pub(super) fn persist(&self, task_id: &str) {
        let start = self.leading(|l| {
            l.dirty.insert(task_id.to_owned());
            !std::mem::replace(&mut l.flushing, true)
        });
        if start == Some(true) {
            let me = self.clone();
            spawn_local(async move { me.flush().await });
        }
    }

    async fn flush(&self) {
        loop {
            let mut batch: Vec<String> = self
                .leading(|l| l.dirty.drain().collect())
                .unwrap_or_default();
            batch.sort_unstable();
            if batch.is_empty() {
                self.leading(|l| l.flushing = false);
                return;
            }
            for id in batch {
                let Some(rec) = self.record_of(&id) else {
                    continue;
                };
                let stored = self
                    .0
                    .store
                    .update_task(&id, move |old| Some(rec.merged_over(old)))
                    .await;
                if let Some(r) = stored {
                    self.leading(|l| l.records.insert(id.clone(), r));
                }
            }
        }
    }

    /// The record of a task as this leader knows it (results stripped unless opted in).
    fn record_of(&self, task_id: &str) -> Option<TaskRecord> {
        let (driver, answered, known) = self.leading(|l| {
            (
                l.driver.clone(),
                l.answered.get(task_id).cloned().unwrap_or_default(),
                l.records.get(task_id).cloned(),
            )
        })?;
        let (snap, dialect): (Option<TaskSnapshot>, _) =
            driver?.read(|e| (e.export_task(task_id), e.dialect()));
        let mut snap = snap?;
        if !self.0.conf.shared.persist_results {
            snap.task.outcome = None;
        }
        snap.task.input_requests.clear();
        snap.input_keys = answered.iter().cloned().collect();
        let now = global::now();
        let mut rec = known.unwrap_or_else(|| TaskRecord::new(&self.0.scope, task_id, now));
        rec.dialect = dialect;
        rec.status = Some(snap.task.status);
        rec.snapshot = Some(snap);
        rec.answered_inputs = answered;
        rec.updated_at = now;
        Some(rec)
    }
}
