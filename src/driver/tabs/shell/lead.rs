//! The leader's I/O: loading the stored tasks and session, opening the driver (adopting the
//! session), closing it on stepping down, and writing records and the session.

use std::rc::Rc;

use crate::json::Value;
use gloo_timers::future::TimeoutFuture;

use super::Tab;
use crate::bridge::records::{SessionRecord, TaskRecord, FIRED_RETENTION_MS, RETENTION_MS};
use crate::coord::{Input, Stored};
use crate::driver::{global, spawn, Driver, Host, TransportKind};
use crate::engine::snapshot::SessionSnapshot;
use crate::engine::Engine;

/// Retry opening the driver (WebSocket refused) after this long.
const RETRY_CONNECT_MS: u32 = 3_000;

impl Tab {
    fn leads(&self, epoch: u64) -> bool {
        self.0.coord.borrow().leading_epoch() == Some(epoch)
    }

    /// Loads the scope's records (dropping stale ones) and session for the machine.
    pub(super) fn load(&self, epoch: u64) {
        let me = self.clone();
        spawn(async move {
            let tasks = me.load_tasks().await;
            let session = me.0.store.session().await.map(|s| s.session);
            me.feed(Input::Loaded {
                epoch,
                tasks,
                session,
            });
        });
    }

    /// Opens the driver for `epoch`, adopting `session` (HTTP only: a WebSocket session dies
    /// with its socket), retrying while the machine leads `epoch`.
    pub(super) fn open(&self, epoch: u64, session: Option<SessionSnapshot>) {
        let me = self.clone();
        let session = session.filter(|_| me.0.conf.transport == TransportKind::Http);
        // Outside the machine's step that asked for it.
        spawn(async move { me.try_open(epoch, session) });
    }

    /// One attempt of [`open`](Self::open); a failed one is tried again after [`RETRY_CONNECT_MS`].
    fn try_open(&self, epoch: u64, session: Option<SessionSnapshot>) {
        if !self.leads(epoch) {
            return;
        }
        let weak = self.weak();
        let host: Host = Rc::new(move |event| {
            if let Some(t) = weak.upgrade() {
                Tab(t).feed(Input::Engine { epoch, event });
            }
        });
        let config = self.0.conf.config.clone();
        let adopt = session.clone();
        let opts = self.0.conf.driver_options();
        let me = self.clone();
        let prepare = move |engine: &mut Engine, now| {
            if let Some(s) = adopt {
                if !engine.adopt_session(now, &s) {
                    *engine = Engine::new(config, global::random_seed(), now);
                }
            }
        };
        Driver::connect_with(
            opts,
            host,
            prepare,
            Box::new(move |res| match res {
                Ok(d) if me.leads(epoch) => {
                    *me.0.driver.borrow_mut() = Some((epoch, d));
                    me.feed(Input::Ready { epoch });
                }
                Ok(d) => close_driver(d),
                Err(error) => {
                    me.feed(Input::LeadFailed { epoch, error });
                    spawn(async move {
                        TimeoutFuture::new(RETRY_CONNECT_MS).await;
                        me.try_open(epoch, session);
                    });
                }
            }),
        );
    }

    async fn load_tasks(&self) -> Vec<Stored> {
        let now = global::now();
        let mut out = Vec::new();
        for r in self.0.store.tasks().await {
            let stale = now.saturating_sub(r.updated_at) > RETENTION_MS
                || r.fired_at
                    .is_some_and(|t| now.saturating_sub(t) > FIRED_RETENTION_MS);
            if stale {
                self.0.store.delete_task(&r.task_id).await;
                continue;
            }
            out.push(Stored {
                terminal: r.is_terminal(),
                task_id: r.task_id,
                snapshot: r.snapshot,
                answered: r.answered_inputs,
            });
        }
        out
    }

    /// Leaves the leader role: the engine is detached (the session stays open for the next
    /// leader), the lock released.
    pub(super) fn step_down(&self) {
        if let Some((_, d)) = self.0.driver.borrow_mut().take() {
            close_driver(d);
        }
        if let Some(mut h) = self.0.web.borrow_mut().leader_lock.take() {
            h.release();
        }
    }

    /// Persists the shared session (HTTP only: a WebSocket session dies with its socket).
    pub(super) fn save_session(&self, server_info: Value) {
        if self.0.conf.transport != TransportKind::Http {
            return;
        }
        let Some(session) = self
            .driver()
            .and_then(|d| d.read(|e| e.session_snapshot(server_info)))
        else {
            return;
        };
        let store = self.0.store.clone();
        spawn(async move {
            let rec = SessionRecord {
                session,
                saved_at: global::now(),
            };
            store.put_session(&rec).await;
        });
    }

    /// Marks a task's record for writing (batched).
    pub(super) fn persist(&self, task_id: String) {
        self.0.dirty.borrow_mut().insert(task_id);
        if !self.0.flushing.replace(true) {
            let me = self.clone();
            spawn(async move { me.flush().await });
        }
    }

    async fn flush(&self) {
        loop {
            let batch = std::mem::take(&mut *self.0.dirty.borrow_mut());
            if batch.is_empty() {
                self.0.flushing.set(false);
                return;
            }
            for id in batch {
                if let Some(rec) = self.record_of(&id) {
                    // A host store retrying the edit (a concurrent write) gets the record anew.
                    let (me, key, mut rec) = (self.clone(), id.clone(), Some(rec));
                    let update = move |old| match rec.take().or_else(|| me.record_of(&key)) {
                        Some(r) => Some(r.merged_over(old)),
                        None => old,
                    };
                    self.0.store.update_task(&id, update).await;
                }
            }
        }
    }

    /// The record of a task as this leader knows it (results stripped unless opted in).
    fn record_of(&self, task_id: &str) -> Option<TaskRecord> {
        let keep = self.0.conf.shared.sharing.persist_results;
        let d = self.driver()?;
        let x = d.read(|e| self.0.coord.borrow().export(e, task_id, keep))?;
        let now = global::now();
        let mut rec = TaskRecord::new(&self.0.scope, task_id, now);
        rec.dialect = x.dialect;
        rec.status = Some(x.snapshot.task.status);
        rec.snapshot = Some(x.snapshot);
        rec.answered_inputs = x.answered;
        Some(rec)
    }
}

/// Detaches a driver's engine (the session stays open) and closes its streams.
fn close_driver(d: Driver) {
    d.op(|e, now| e.detach(now));
    // Outside the caller's borrows: closing ends subscriptions, whose events reach the tab.
    spawn(async move {
        let closing = d.clone();
        d.close(Box::new(move || closing.release_host()));
    });
}
