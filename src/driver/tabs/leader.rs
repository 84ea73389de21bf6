//! The leader's side: one driver for the scope, the routing of every tab's operations onto it and
//! of its events back (tab-local ids ↔ engine ids), the tasks it keeps tracking on its own, and
//! the records it persists.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use serde_json::Value;
use wasm_bindgen_futures::spawn_local;

use super::tab::{Role, Tab};
use super::web::{self, Held};
use super::wire::{Msg, Op, SessionWire, TabId};
use crate::driver::persist::{SessionRecord, TaskRecord, FIRED_RETENTION_MS, RETENTION_MS};
use crate::driver::{global, Driver, Host, TransportKind};
use crate::engine::api::{End, Event, Input, InputId, OpId, SubId};
use crate::engine::snapshot::TaskSnapshot;
use crate::engine::Engine;

/// Persist tracked tasks' poll times this often (in ticks).
const CHECKPOINT_TICKS: u64 = 5;
/// Look for tabs that died without saying goodbye this often (in ticks).
const PRUNE_TICKS: u64 = 5;
/// Retry opening the driver (WebSocket refused) after this long.
const RETRY_CONNECT_MS: u32 = 3_000;

/// Who an engine subscription belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    Tab(TabId, u64),
    /// The leader's own tracking of a persisted task.
    Internal(String),
}

/// A follower the leader heard from.
#[derive(Debug, Clone)]
struct Peer {
    visible: bool,
    /// Times its presence lock was missing in a row.
    missing: u32,
}

#[derive(Default)]
struct Router {
    subs: HashMap<SubId, Dest>,
    sub_keys: HashMap<(TabId, u64), SubId>,
    ops: HashMap<OpId, (TabId, u64)>,
    op_keys: HashMap<(TabId, u64), OpId>,
    /// Input ids handed to tabs → the engine's id, the task and the request key.
    inputs: HashMap<u64, (InputId, Option<String>, String)>,
    sub_tasks: HashMap<SubId, String>,
    internal: HashMap<String, SubId>,
    /// Subscriptions their tab stopped on purpose: the leader lets go of the task when they end.
    stopped: HashSet<SubId>,
    peers: HashMap<TabId, Peer>,
}

/// The leader's state (inside [`Role::Leader`]).
pub(super) struct Leading {
    pub epoch: u64,
    pub driver: Option<Driver>,
    /// Records loaded and imported: operations can be applied.
    pub ready: bool,
    held: Option<Held>,
    inbox: Vec<(TabId, u64, Op)>,
    router: Router,
    records: HashMap<String, TaskRecord>,
    answered: HashMap<String, BTreeSet<String>>,
    dirty: BTreeSet<String>,
    flushing: bool,
    any_visible: bool,
    server_info: Value,
}

impl Tab {
    fn leading<R>(&self, f: impl FnOnce(&mut Leading) -> R) -> Option<R> {
        match &mut self.0.st.borrow_mut().role {
            Role::Leader(l) => Some(f(l)),
            _ => None,
        }
    }

    fn is_epoch(&self, epoch: u64) -> bool {
        matches!(&self.0.st.borrow().role, Role::Leader(l) if l.epoch == epoch)
    }

    fn ready_driver(&self) -> Option<Driver> {
        self.leading(|l| if l.ready { l.driver.clone() } else { None })
            .flatten()
    }

    /// Sends an event to a tab (this one directly, others over the channel).
    fn send_to(&self, tab: TabId, epoch: u64, event: Event) {
        if tab == self.0.id {
            self.push_local(event);
        } else {
            self.post(&Msg::Ev {
                to: Some(tab),
                epoch,
                event,
            });
        }
    }

    /// Broadcasts that this tab leads (also the heartbeat).
    pub(super) fn announce(&self) {
        let hidden_ms = self.hidden_ms();
        let msg = {
            let st = self.0.st.borrow();
            let Role::Leader(l) = &st.role else { return };
            Msg::Leader {
                from: self.0.id,
                epoch: l.epoch,
                hidden_ms,
                session: st.session.clone(),
            }
        };
        self.post(&msg);
    }

    /// The lock is ours (or there is no lock): take over the scope.
    pub(super) fn become_leader(&self, held: Option<Held>) {
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
                dirty: BTreeSet::new(),
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
    pub(super) fn step_down(&self, mut l: Box<Leading>, closing: bool) {
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

    /// Applies one tab's operation to the engine (this tab's own ones too).
    pub(super) fn apply(&self, from: TabId, id: u64, op: Op) {
        let Some(driver) = self.ready_driver() else {
            self.leading(|l| l.inbox.push((from, id, op)));
            return;
        };
        let epoch = self.leading(|l| l.epoch).unwrap_or_default();
        match op {
            Op::CallTool { .. } | Op::Request { .. } | Op::Watch { .. } => {
                let known = self
                    .leading(|l| l.router.sub_keys.contains_key(&(from, id)))
                    .unwrap_or(true);
                if !known {
                    if let Op::Watch { task_id } = &op {
                        self.import_record(task_id, false);
                    }
                    let watched = match &op {
                        Op::Watch { task_id } => Some(task_id.clone()),
                        _ => None,
                    };
                    driver.op_then(
                        |e, now| match op {
                            Op::CallTool {
                                name,
                                arguments,
                                opts,
                            } => e.call_tool(now, &name, arguments, opts),
                            Op::Request {
                                method,
                                params,
                                opts,
                            } => e.request(now, &method, params, opts),
                            Op::Watch { task_id } => e.watch(now, &task_id),
                            _ => SubId(0),
                        },
                        |sub| {
                            self.leading(|l| {
                                l.router.subs.insert(*sub, Dest::Tab(from, id));
                                l.router.sub_keys.insert((from, id), *sub);
                                if let Some(t) = watched {
                                    l.router.sub_tasks.insert(*sub, t);
                                }
                            });
                        },
                    );
                }
                self.ack(from, epoch, id);
            }
            Op::Unsubscribe { sub } => {
                let engine_sub = self
                    .leading(|l| {
                        let s = l.router.sub_keys.get(&(from, sub.0)).copied();
                        if let Some(s) = s {
                            l.router.stopped.insert(s);
                        }
                        s
                    })
                    .flatten();
                match engine_sub {
                    Some(s) => driver.op(|e, now| e.unsubscribe(now, s)),
                    None => self.send_to(
                        from,
                        epoch,
                        Event::Done {
                            sub,
                            task_id: None,
                            end: End::Aborted,
                        },
                    ),
                }
            }
            Op::Cancel { .. } | Op::ListTasks { .. } | Op::ListTools => {
                let known = self
                    .leading(|l| l.router.op_keys.contains_key(&(from, id)))
                    .unwrap_or(true);
                if known {
                    return;
                }
                driver.op_then(
                    |e, now| match op {
                        Op::Cancel { task_id } => e.cancel(now, &task_id),
                        Op::ListTasks { cursor } => e.list_tasks(now, cursor.as_deref()),
                        _ => e.list_tools(now),
                    },
                    |o| {
                        self.leading(|l| {
                            l.router.ops.insert(*o, (from, id));
                            l.router.op_keys.insert((from, id), *o);
                        });
                    },
                );
            }
            Op::AnswerInput { id: wire, answer } => {
                let found = self.leading(|l| l.router.inputs.remove(&wire.0)).flatten();
                if let Some((input, task, key)) = found {
                    driver.op(|e, now| e.answer_input(now, input, answer));
                    if let Some(t) = task {
                        self.leading(|l| l.answered.entry(t.clone()).or_default().insert(key));
                        self.persist(&t);
                    }
                }
            }
            Op::Forget { task_id } => {
                let internal = self.leading(|l| {
                    l.records.remove(&task_id);
                    l.answered.remove(&task_id);
                    l.dirty.remove(&task_id);
                    let s = l.router.internal.remove(&task_id);
                    if let Some(s) = s {
                        l.router.subs.remove(&s);
                    }
                    s
                });
                if let Some(Some(s)) = internal {
                    driver.op(|e, now| e.unsubscribe(now, s));
                }
            }
        }
    }

    fn ack(&self, to: TabId, epoch: u64, id: u64) {
        if to == self.0.id {
            if let Some(s) = self.0.st.borrow_mut().subs.get_mut(&id) {
                s.acked = true;
            }
        } else {
            self.post(&Msg::Ack { to, epoch, id });
        }
    }

    /// Seeds the engine with a task's record if it does not know the task; `track`: also keep
    /// following it on the leader's own account until it ends, so its record stays current when
    /// no tab watches it.
    fn import_record(&self, task_id: &str, track: bool) {
        let Some(driver) = self.ready_driver() else {
            return;
        };
        let plan = self.leading(|l| {
            if track && l.router.internal.contains_key(task_id) {
                return None;
            }
            let rec = l.records.get(task_id).cloned();
            let keys: Vec<String> = l
                .answered
                .get(task_id)
                .map(|k| k.iter().cloned().collect())
                .unwrap_or_default();
            Some((rec, keys))
        });
        let Some(Some((rec, keys))) = plan else {
            return;
        };
        let id = task_id.to_owned();
        driver.op_then(
            |e, now| {
                if e.task(&id).is_none() {
                    if let Some(mut s) = rec.as_ref().and_then(|r| r.snapshot.clone()) {
                        s.input_keys = keys;
                        e.import_task(now, s);
                    }
                }
                let status = e.task(&id).map(|t| t.status)?;
                if !track || status.is_terminal() {
                    return None;
                }
                Some(e.watch(now, &id))
            },
            |sub| {
                if let Some(s) = sub {
                    self.leading(|l| {
                        l.router.subs.insert(*s, Dest::Internal(task_id.to_owned()));
                        l.router.internal.insert(task_id.to_owned(), *s);
                        l.router.sub_tasks.insert(*s, task_id.to_owned());
                    });
                }
            },
        );
    }

    /// Drops the leader's own tracking of a task that no tab follows any more.
    fn release_if_unwatched(&self, task_id: &str) {
        let internal = self
            .leading(|l| {
                let watched = l.router.sub_tasks.iter().any(|(s, t)| {
                    t == task_id && matches!(l.router.subs.get(s), Some(Dest::Tab(..)))
                });
                if watched {
                    return None;
                }
                let s = l.router.internal.remove(task_id);
                if let Some(s) = s {
                    l.router.subs.remove(&s);
                    l.router.sub_tasks.remove(&s);
                }
                s
            })
            .flatten();
        if let (Some(s), Some(driver)) = (internal, self.ready_driver()) {
            driver.op(|e, now| e.unsubscribe(now, s));
        }
    }

    /// Routes one event of the leader's engine (ignored once this leadership ended).
    fn on_engine_event(&self, epoch: u64, ev: Event) {
        if self.is_epoch(epoch) {
            self.route_event(epoch, ev);
            self.deliver();
        }
    }

    fn route_event(&self, epoch: u64, ev: Event) {
        match ev {
            Event::Connected {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            } => {
                let s = SessionWire {
                    dialect,
                    protocol_version,
                    server_info: server_info.clone(),
                    capabilities,
                };
                self.leading(|l| l.server_info = server_info);
                self.announce_session(&s);
                self.announce();
                self.save_session();
            }
            Event::Status { sub, task } => {
                let task_id = task.task_id.clone();
                let dest = self.leading(|l| {
                    l.router.sub_tasks.insert(sub, task_id.clone());
                    l.router.subs.get(&sub).cloned()
                });
                if let Some(Some(Dest::Tab(t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Status {
                            sub: SubId(local),
                            task,
                        },
                    );
                }
                self.persist(&task_id);
            }
            Event::Done { sub, task_id, end } => {
                let dest = self.leading(|l| {
                    let stopped = l.router.stopped.remove(&sub);
                    l.router.sub_tasks.remove(&sub);
                    let d = l.router.subs.remove(&sub);
                    match &d {
                        Some(Dest::Tab(t, local)) => {
                            l.router.sub_keys.remove(&(*t, *local));
                        }
                        Some(Dest::Internal(id)) => {
                            l.router.internal.remove(id);
                        }
                        None => {}
                    }
                    (d, stopped)
                });
                let (dest, stopped) = match dest {
                    Some((d, stopped)) => (Some(d), stopped),
                    None => (None, false),
                };
                if let Some(id) = &task_id {
                    self.persist(id);
                    let internal = matches!(dest, Some(Some(Dest::Internal(_))));
                    if stopped {
                        // Stopped on purpose: let go unless another tab still follows the task.
                        self.release_if_unwatched(id);
                    } else if !internal && !matches!(end, End::Finished { .. }) {
                        // The watcher's tab went away before the end: keep tracking.
                        self.import_record(id, true);
                    }
                }
                if let Some(Some(Dest::Tab(t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Done {
                            sub: SubId(local),
                            task_id,
                            end,
                        },
                    );
                }
            }
            Event::Input {
                id,
                task_id,
                request,
            } => {
                let wire = InputId(((epoch & 0xffff_ffff) << 32) | (id.0 & 0xffff_ffff));
                let target = self.leading(|l| {
                    l.router
                        .inputs
                        .insert(wire.0, (id, task_id.clone(), request.key.clone()));
                    // The tab that follows the task longest answers it; else this one.
                    l.router
                        .subs
                        .iter()
                        .filter_map(|(s, d)| match d {
                            Dest::Tab(t, _)
                                if task_id.is_some()
                                    && l.router.sub_tasks.get(s) == task_id.as_ref() =>
                            {
                                Some((*s, *t))
                            }
                            _ => None,
                        })
                        .min()
                        .map(|(_, t): (SubId, TabId)| t)
                });
                let to = target.flatten().unwrap_or(self.0.id);
                self.send_to(
                    to,
                    epoch,
                    Event::Input {
                        id: wire,
                        task_id,
                        request,
                    },
                );
            }
            Event::Reply { op, result } => {
                let dest = self.leading(|l| {
                    let d = l.router.ops.remove(&op);
                    if let Some(k) = d {
                        l.router.op_keys.remove(&k);
                    }
                    d
                });
                if let Some(Some((t, local))) = dest {
                    self.send_to(
                        t,
                        epoch,
                        Event::Reply {
                            op: OpId(local),
                            result,
                        },
                    );
                }
            }
            Event::Warning {
                task_id: Some(task),
                error,
            } => {
                let tabs = self.leading(|l| {
                    let set: HashSet<TabId> = l
                        .router
                        .subs
                        .iter()
                        .filter(|(s, _)| l.router.sub_tasks.get(*s) == Some(&task))
                        .filter_map(|(_, d)| match d {
                            Dest::Tab(t, _) => Some(*t),
                            Dest::Internal(_) => None,
                        })
                        .collect();
                    set
                });
                let mut tabs: Vec<TabId> = tabs.unwrap_or_default().into_iter().collect();
                if tabs.is_empty() {
                    tabs.push(self.0.id);
                }
                for t in tabs {
                    self.send_to(
                        t,
                        epoch,
                        Event::Warning {
                            task_id: Some(task.clone()),
                            error: error.clone(),
                        },
                    );
                }
            }
            ev @ (Event::Warning { task_id: None, .. } | Event::Transition { .. }) => {
                self.post(&Msg::Ev {
                    to: None,
                    epoch,
                    event: ev.clone(),
                });
                self.push_local(ev);
            }
        }
    }

    /// Persists the shared session (HTTP only: a WebSocket session dies with its socket).
    fn save_session(&self) {
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
    fn persist(&self, task_id: &str) {
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
            let batch = self
                .leading(|l| std::mem::take(&mut l.dirty))
                .unwrap_or_default();
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

    // ----- housekeeping -----

    pub(super) fn leader_tick(&self, n: u64) {
        self.announce();
        if n % CHECKPOINT_TICKS == 0 {
            let ids: BTreeSet<String> = self
                .leading(|l| l.router.sub_tasks.values().cloned().collect())
                .unwrap_or_default();
            for id in ids {
                self.persist(&id);
            }
        }
        if n % PRUNE_TICKS == 0 {
            let me = self.clone();
            spawn_local(async move { me.prune().await });
        }
    }

    /// Drops the subscriptions of tabs whose presence lock is gone (closed without a `Bye`).
    async fn prune(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let Ok(names) = web::held_names(&locks).await else {
            return;
        };
        let prefix = self.presence_prefix();
        let alive: HashSet<TabId> = names
            .iter()
            .filter_map(|n| n.strip_prefix(&prefix))
            .filter_map(|s| s.parse().ok())
            .collect();
        let gone: Vec<TabId> = self
            .leading(|l| {
                let mut tabs: HashSet<TabId> = l.router.peers.keys().copied().collect();
                tabs.extend(l.router.sub_keys.keys().map(|(t, _)| *t));
                tabs.remove(&self.0.id);
                let mut gone = Vec::new();
                for t in tabs {
                    if alive.contains(&t) {
                        if let Some(p) = l.router.peers.get_mut(&t) {
                            p.missing = 0;
                        }
                        continue;
                    }
                    let p = l.router.peers.entry(t).or_insert(Peer {
                        visible: false,
                        missing: 0,
                    });
                    p.missing += 1;
                    // Twice in a row: a tab that just joined may not hold its lock yet.
                    if p.missing >= 2 {
                        gone.push(t);
                    }
                }
                gone
            })
            .unwrap_or_default();
        for t in gone {
            self.drop_tab(t);
        }
    }

    /// Forgets a tab: its subscriptions end (nobody hears), its operations are dropped.
    pub(super) fn drop_tab(&self, tab: TabId) {
        let subs = self.leading(|l| {
            l.router.peers.remove(&tab);
            let keys: Vec<(TabId, u64)> = l
                .router
                .sub_keys
                .keys()
                .filter(|(t, _)| *t == tab)
                .copied()
                .collect();
            let mut subs = Vec::new();
            for k in keys {
                if let Some(s) = l.router.sub_keys.remove(&k) {
                    l.router.subs.remove(&s);
                    subs.push(s);
                }
            }
            l.router.op_keys.retain(|(t, _), _| *t != tab);
            l.router.ops.retain(|_, (t, _)| *t != tab);
            subs
        });
        if let (Some(subs), Some(d)) = (subs, self.ready_driver()) {
            for s in subs {
                d.op(|e, now| e.unsubscribe(now, s));
            }
        }
        self.recompute_visibility(false);
    }

    /// Messages only a leader acts on.
    pub(super) fn on_leader_message(&self, msg: Msg) {
        let epoch = match self.leading(|l| l.epoch) {
            Some(e) => e,
            None => return,
        };
        match msg {
            Msg::Hello { from, visible } => {
                self.leading(|l| {
                    l.router.peers.insert(
                        from,
                        Peer {
                            visible,
                            missing: 0,
                        },
                    )
                });
                self.announce();
                self.recompute_visibility(visible);
            }
            Msg::Op {
                from,
                epoch: e,
                id,
                op,
            } if e == epoch => {
                self.leading(|l| {
                    l.router.peers.entry(from).or_insert(Peer {
                        visible: false,
                        missing: 0,
                    });
                });
                self.apply(from, id, op);
            }
            Msg::Vis { from, visible } => self.leader_visibility(from, visible),
            Msg::Online { .. } => self.leader_online(),
            Msg::Bye { from } => self.drop_tab(from),
            _ => {}
        }
    }

    pub(super) fn leader_visibility(&self, from: TabId, visible: bool) {
        if from != self.0.id {
            self.leading(|l| {
                l.router
                    .peers
                    .entry(from)
                    .or_insert(Peer {
                        visible,
                        missing: 0,
                    })
                    .visible = visible
            });
        }
        self.recompute_visibility(visible);
    }

    /// Feeds the engine whether any tab of the scope is visible; `became_visible`: one page just
    /// became visible (a catch-up poll, throttled by the engine).
    fn recompute_visibility(&self, became_visible: bool) {
        let own = self.0.st.borrow().visible;
        let change = self.leading(|l| {
            let any = own || l.router.peers.values().any(|p| p.visible);
            let changed = any != l.any_visible;
            l.any_visible = any;
            (changed || (became_visible && any)).then_some(any)
        });
        if let (Some(Some(visible)), Some(d)) = (change, self.ready_driver()) {
            d.op(|e, now| e.handle_input(now, Input::Visibility { visible }));
        }
    }

    pub(super) fn leader_online(&self) {
        if let Some(d) = self.ready_driver() {
            d.op(|e, now| e.handle_input(now, Input::Online));
        }
    }
}
