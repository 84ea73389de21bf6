//! The leader's side: one engine for the scope, the routing of every tab's operations onto it
//! and of its events back (tab-local ids ↔ engine ids), the tasks it keeps tracking on its own,
//! the other tabs' visibility and liveness. This module holds the leader's state, its start and
//! the work it does on the engine.

mod events;
mod ops;
mod peers;

use crate::collections::idmap::{IdMap, IdSet};
use std::collections::VecDeque;

use crate::json::Value;

use super::wire::{Msg, Op, TabId};
use super::{Coord, Output, Role, Stored};
use crate::collections::sorted::{SortedMap, SortedSet};
use crate::engine::api::{ClientError, Event, InputId, Millis, OpId, SubId};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::engine::Engine;
use crate::protocol::model::{Dialect, InputRequest};

/// How long a new leader waits for the stored tasks and session before it opens its engine
/// without them (checked on the heartbeat).
const STORAGE_WAIT_MS: Millis = 1_000;

/// Who an engine subscription belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    Tab(TabId, u64),
    /// The leader's own tracking of a stored task.
    Internal(String),
}

/// A follower the leader heard from.
#[derive(Debug, Clone)]
struct Peer {
    visible: bool,
    /// Times its presence lock was missing in a row.
    missing: u32,
}

/// Engine ids ↔ tab-local ids.
#[derive(Default)]
struct Router {
    subs: IdMap<SubId, Dest>,
    /// (Tab, the tab's own id) → engine id.
    sub_keys: IdMap<(TabId, u64), SubId>,
    ops: IdMap<OpId, (TabId, u64)>,
    op_keys: IdMap<(TabId, u64), OpId>,
    /// Input requests handed to tabs and not answered yet, by the id the tabs know.
    inputs: IdMap<u64, Pending>,
    sub_tasks: IdMap<SubId, String>,
    internal: SortedMap<String, SubId>,
    /// Subscriptions their tab stopped on purpose: the leader lets go of the task when they end.
    stopped: IdSet<SubId>,
    peers: IdMap<TabId, Peer>,
}

/// An input request waiting for its answer.
struct Pending {
    input: InputId,
    task_id: Option<String>,
    request: InputRequest,
    /// The tab asked to answer it.
    to: TabId,
    /// Heartbeats since `to` was asked, until it says it received the request (`None` then).
    unreceived: Option<u32>,
    /// Tabs asked before that never said they received it (hung, frozen).
    silent: Vec<TabId>,
}

/// Something to do on the engine (in [`Coord::drive`]).
enum Work {
    Apply {
        from: TabId,
        id: u64,
        op: Op,
    },
    Import {
        task_id: String,
        track: bool,
    },
    Release(String),
    Unsubscribe(SubId),
    Feed(crate::engine::api::Input),
    /// Read the session id of a session that just came up.
    LearnSessionId,
}

/// The leader's state (inside [`Role::Leader`]).
pub(super) struct Leading {
    pub epoch: u64,
    /// When this tab began to lead.
    since: Millis,
    /// The engine was asked for ([`Output::Open`]).
    opening: bool,
    /// The engine is open and the stored tasks imported: operations can be applied.
    pub ready: bool,
    /// Stored tasks loaded before the engine was ready.
    loaded: Vec<Stored>,
    /// Operations that came before the engine was ready.
    inbox: Vec<(TabId, u64, Op)>,
    work: VecDeque<Work>,
    router: Router,
    stored: SortedMap<String, Stored>,
    answered: SortedMap<String, SortedSet<String>>,
    any_visible: bool,
    server_info: Value,
}

impl Leading {
    pub fn new(epoch: u64, now: Millis) -> Leading {
        Leading {
            epoch,
            since: now,
            opening: false,
            ready: false,
            loaded: Vec::new(),
            inbox: Vec::new(),
            work: VecDeque::new(),
            router: Router::default(),
            stored: SortedMap::default(),
            answered: SortedMap::default(),
            // What the engine assumes at first: told otherwise once ready.
            any_visible: true,
            server_info: Value::Null,
        }
    }

    /// Queues the import of stored tasks (the unfinished ones tracked), keeps their records and
    /// adds their answered input keys to those this leader knows.
    fn take_stored(&mut self, tasks: Vec<Stored>) {
        for t in &tasks {
            self.work.push_back(Work::Import {
                task_id: t.task_id.clone(),
                track: false,
            });
        }
        for t in tasks.iter().filter(|t| !t.terminal) {
            self.work.push_back(Work::Import {
                task_id: t.task_id.clone(),
                track: true,
            });
        }
        for t in tasks {
            match self.answered.get_mut(&t.task_id) {
                Some(keys) => keys.extend(t.answered.iter().cloned()),
                None => {
                    self.answered.insert(t.task_id.clone(), t.answered.clone());
                }
            }
            self.stored.insert(t.task_id.clone(), t);
        }
    }
}

/// What a task's record holds, as the leader knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    pub snapshot: TaskSnapshot,
    pub dialect: Option<Dialect>,
    pub answered: SortedSet<String>,
}

impl Coord {
    fn leading(&mut self) -> Option<&mut Leading> {
        match &mut self.role {
            Role::Leader(l) => Some(l),
            _ => None,
        }
    }

    fn leading_ref(&self) -> Option<&Leading> {
        match &self.role {
            Role::Leader(l) => Some(l),
            _ => None,
        }
    }

    fn ready_leading(&mut self) -> Option<&mut Leading> {
        self.leading().filter(|l| l.ready)
    }

    fn queue(&mut self, w: Work) {
        if let Some(l) = self.leading() {
            l.work.push_back(w);
        }
    }

    /// Whether [`drive`](Self::drive) has something to do on the engine.
    pub fn has_work(&self) -> bool {
        self.leading_ref()
            .is_some_and(|l| l.ready && !l.work.is_empty())
    }

    /// Carries out the leader's pending work on its engine.
    pub fn drive(&mut self, now: Millis, engine: &mut Engine) {
        while let Some(w) = self.ready_leading().and_then(|l| l.work.pop_front()) {
            match w {
                Work::Apply { from, id, op } => self.apply(now, engine, from, id, op),
                Work::Import { task_id, track } => self.import_record(now, engine, &task_id, track),
                Work::Release(task_id) => self.release_if_unwatched(now, engine, &task_id),
                Work::Unsubscribe(sub) => engine.unsubscribe(now, sub),
                Work::Feed(input) => engine.handle_input(now, input),
                Work::LearnSessionId => {
                    let s = engine.session_snapshot(Value::Null);
                    self.session_id = s.and_then(|s| s.session_id);
                    self.announce(now);
                }
            }
        }
    }

    /// What to store for a task (its outcome only with `keep_outcome`; input payloads never).
    pub fn export(&self, engine: &Engine, task_id: &str, keep_outcome: bool) -> Option<Export> {
        let l = self.leading_ref()?;
        let answered = l.answered.get(task_id).cloned().unwrap_or_default();
        let mut snapshot = engine.export_task(task_id)?;
        if !keep_outcome {
            snapshot.task.outcome = None;
        }
        snapshot.task.input_requests.clear();
        snapshot.input_keys = answered.iter().cloned().collect();
        Some(Export {
            snapshot,
            dialect: engine.dialect(),
            answered,
        })
    }

    /// The stored tasks and session are loaded: the engine is opened adopting the stored
    /// session (else the one the last leader announced), unless storage answered too late and
    /// it was opened already; the tasks are imported once it is ready.
    pub(super) fn on_loaded(
        &mut self,
        epoch: u64,
        tasks: Vec<Stored>,
        session: Option<SessionSnapshot>,
    ) {
        let Some(l) = self.leading().filter(|l| l.epoch == epoch) else {
            return;
        };
        if l.ready {
            l.take_stored(tasks);
        } else {
            l.loaded.extend(tasks);
        }
        if !l.opening {
            l.opening = true;
            let session = session.or_else(|| self.known_session());
            self.emit(Output::Open { epoch, session });
        }
    }

    /// Storage has not answered for [`STORAGE_WAIT_MS`] (a tab hung inside a transaction holds
    /// it until it runs again): the engine is opened adopting the session the last leader
    /// announced; the stored tasks follow when storage answers.
    pub(super) fn open_unless_loaded(&mut self, now: Millis) {
        let Some(l) = self.leading() else { return };
        if l.opening || now.saturating_sub(l.since) < STORAGE_WAIT_MS {
            return;
        }
        l.opening = true;
        let epoch = l.epoch;
        let session = self.known_session();
        self.emit(Output::Open { epoch, session });
    }

    /// The engine is open: import the stored tasks, keep tracking the unfinished ones, then
    /// apply this tab's operations and those that waited.
    pub(super) fn on_ready(&mut self, epoch: u64) {
        let Some(l) = self.leading().filter(|l| l.epoch == epoch && !l.ready) else {
            return;
        };
        l.ready = true;
        let tasks = std::mem::take(&mut l.loaded);
        l.take_stored(tasks);
        let info = l.server_info.clone();
        self.emit(Output::SaveSession { server_info: info });
        self.resend_all();
        let inbox = self
            .leading()
            .map(|l| std::mem::take(&mut l.inbox))
            .unwrap_or_default();
        for (from, id, op) in inbox {
            self.apply_or_queue(from, id, op);
        }
        self.recompute_visibility(false);
    }

    /// Opening the engine failed: every tab hears why (the shell retries).
    pub(super) fn on_lead_failed(&mut self, epoch: u64, error: ClientError) {
        if self.leading_epoch() != Some(epoch) {
            return;
        }
        let ev = Event::Warning {
            task_id: None,
            error,
        };
        self.post(Msg::Ev {
            to: None,
            epoch,
            event: ev.clone(),
        });
        self.push_local(ev);
    }

    /// Sends an event to a tab (this one directly, others over the channel).
    fn send_to(&mut self, tab: TabId, epoch: u64, event: Event) {
        if tab == self.id {
            self.push_local(event);
        } else {
            self.post(Msg::Ev {
                to: Some(tab),
                epoch,
                event,
            });
        }
    }

    /// Broadcasts that this tab leads (also the heartbeat).
    pub(super) fn announce(&mut self, now: Millis) {
        let Some(epoch) = self.leading_epoch() else {
            return;
        };
        let msg = Msg::Leader {
            from: self.id,
            epoch,
            hidden_ms: self.hidden_ms(now),
            session: self.session.clone(),
            session_id: self.session_id.clone(),
        };
        self.post(msg);
    }
}
