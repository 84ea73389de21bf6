//! One leadership (epoch): taking over the scope, opening its driver and importing the persisted
//! records, and stepping down.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use wasm_bindgen_futures::spawn_local;

use super::{Leading, Router};
use crate::driver::persist::{FIRED_RETENTION_MS, RETENTION_MS};
use crate::driver::tabs::tab::{Role, Tab};
use crate::driver::tabs::web::Held;
use crate::driver::tabs::wire::Msg;
use crate::driver::{global, Driver, Host, TransportKind};
use crate::engine::api::Event;
use crate::engine::Engine;

/// Retry opening the driver (WebSocket refused) after this long.
const RETRY_CONNECT_MS: u32 = 3_000;

impl Tab {
    /// The lock is ours (or there is no lock): take over the scope.
    pub(in crate::driver::tabs) fn become_leader(&self, held: Option<Held>) {
        let epoch = global::random_seed() >> 11;
        {
            let mut st = self.0.st.borrow_mut();
            if st.closed {
                return;
            }
            st.role = Role::Leader(Box::new(Leading {
                epoch,
                driver: None,
                ready: false,
                held,
                inbox: Vec::new(),
                router: Router::default(),
                records: HashMap::new(),
                answered: HashMap::new(),
                dirty: HashSet::new(),
                flushing: false,
                // What the engine assumes at first: told otherwise once ready.
                any_visible: true,
                server_info: Value::Null,
            }));
        }
        self.announce();
        let me = self.clone();
        spawn_local(async move { me.lead(epoch).await });
    }

    /// Loads the scope's records and session, opens the driver (adopting the session), imports
    /// every record, then applies the operations waiting for it.
    async fn lead(&self, epoch: u64) {
        let now = global::now();
        let mut records = Vec::new();
        for r in self.0.store.tasks().await {
            let stale = now.saturating_sub(r.updated_at) > RETENTION_MS
                || r.fired_at
                    .is_some_and(|t| now.saturating_sub(t) > FIRED_RETENTION_MS);
            if stale {
                self.0.store.delete_task(&r.task_id).await;
            } else {
                records.push(r);
            }
        }
        let http = self.0.conf.transport == TransportKind::Http;
        let session = if http {
            self.0.store.session().await
        } else {
            None
        };
        loop {
            if !self.is_epoch(epoch) {
                return;
            }
            let weak = self.weak();
            let host: Host = Rc::new(move |ev| {
                if let Some(t) = weak.upgrade() {
                    Tab(t).on_engine_event(epoch, ev);
                }
            });
            let config = self.0.conf.config.clone();
            let adopt = session.clone();
            let res =
                Driver::connect_with(self.0.conf.driver_options(), host, move |engine, now| {
                    if let Some(s) = adopt {
                        if !engine.adopt_session(now, &s.session) {
                            *engine = Engine::new(config, global::random_seed(), now);
                        }
                    }
                })
                .await;
            match res {
                Ok(d) => {
                    if !self.is_epoch(epoch) {
                        d.op(|e, now| e.detach(now));
                        d.close().await;
                        d.release_host();
                        return;
                    }
                    self.leading(|l| l.driver = Some(d));
                    break;
                }
                Err(e) => {
                    self.push_local(Event::Warning {
                        task_id: None,
                        error: e.clone(),
                    });
                    self.post(&Msg::Ev {
                        to: None,
                        epoch,
                        event: Event::Warning {
                            task_id: None,
                            error: e,
                        },
                    });
                    self.deliver();
                    TimeoutFuture::new(RETRY_CONNECT_MS).await;
                }
            }
        }
        self.save_session();
        let Some(driver) = self.leading(|l| l.driver.clone()).flatten() else {
            return;
        };
        driver.op(|e, now| {
            for r in &records {
                if let Some(mut s) = r.snapshot.clone() {
                    s.input_keys = r.answered_inputs.iter().cloned().collect();
                    e.import_task(now, s);
                }
            }
        });
        let ids: Vec<String> = records
            .iter()
            .filter(|r| !r.is_terminal())
            .map(|r| r.task_id.clone())
            .collect();
        self.leading(|l| {
            for r in records {
                l.answered
                    .insert(r.task_id.clone(), r.answered_inputs.clone());
                l.records.insert(r.task_id.clone(), r);
            }
            l.ready = true;
        });
        for id in ids {
            self.import_record(&id, true);
        }
        self.resend_all();
        let inbox = self
            .leading(|l| std::mem::take(&mut l.inbox))
            .unwrap_or_default();
        for (from, id, op) in inbox {
            self.apply(from, id, op);
        }
        self.recompute_visibility(false);
        self.deliver();
    }

    /// Leaves the leader role: the engine is detached (the session stays open for the next
    /// leader), the lock released. Events of the old engine are ignored from here on.
    pub(in crate::driver::tabs) fn step_down(&self, mut l: Box<Leading>, closing: bool) {
        if let Some(d) = l.driver.take() {
            d.op(|e, now| e.detach(now));
            spawn_local(async move {
                d.close().await;
                d.release_host();
            });
        }
        if let Some(mut h) = l.held.take() {
            h.release();
        }
        if !closing {
            self.deliver();
        }
    }
}
