//! Tab coordination for one scope (server URL + identity) as a sans-IO state machine.
//!
//! Every tab of a scope runs one [`Coord`]. The tab that holds the scope's leader lock is the
//! *leader*: it alone owns an engine; every other tab is a *follower* whose operations travel to
//! the leader as [`wire::Msg`]s, in tab-local ids, and whose events come back the same way. The
//! machine decides everything (election, failover, routing, re-sending on a leader change,
//! the exactly-once guards of a tab's events); the web shell only moves messages, holds locks,
//! reads and writes storage and runs the timers.
//!
//! The shell feeds [`Input`]s and the JS layer's operations ([`Requestor`]) in, drains
//! [`Output`]s with [`Coord::poll_output`], and while leading lets the machine act on the engine
//! with [`Coord::drive`] whenever [`Coord::has_work`] says so. Time is passed in.

mod election;
mod follower;
#[cfg(feature = "tabs")]
mod forms;
mod leader;
mod requestor;
pub mod wire;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use crate::json::Value;

use crate::collections::sorted::{SortedMap, SortedSet};
use crate::engine::api::{ClientError, End, ErrorKind, Event, Millis, OpId, SubId};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::protocol::model::Task;
use leader::Leading;
use wire::{Msg, Op, SessionWire, TabId};

pub use requestor::Requestor;

/// What happened to a tab.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Another tab's channel message.
    Message(Msg),
    /// The leader lock is this tab's (or there is no lock to hold); `epoch` is random and new.
    LockGranted { epoch: u64 },
    /// The leader lock was taken from this tab.
    LockLost,
    /// The heartbeat: about once a second.
    Tick,
    /// This page became visible or hidden.
    Visibility(bool),
    /// This page saw the `online` event.
    Online,
    /// This page is about to be frozen.
    Freeze,
    /// This page was unfrozen or restored from the back/forward cache.
    Resume { visible: bool },
    /// This page is being hidden for good (or put in the back/forward cache).
    PageHide,
    /// The stored tasks and session [`Output::Lead`] asked for.
    Loaded {
        epoch: u64,
        tasks: Vec<Stored>,
        session: Option<SessionSnapshot>,
    },
    /// The engine asked for by [`Output::Open`] is open.
    Ready { epoch: u64 },
    /// Opening the engine asked for by [`Output::Open`] failed (the shell retries).
    LeadFailed { epoch: u64, error: ClientError },
    /// An event of the engine opened for `epoch`.
    Engine { epoch: u64, event: Event },
    /// The tabs whose presence lock is held (the answer to [`Output::QueryAlive`]).
    Alive(Vec<TabId>),
    /// The tab leaves the scope.
    Close,
}

/// A stored task as a new leader loads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub task_id: String,
    pub snapshot: Option<TaskSnapshot>,
    /// Input request keys the host answered.
    pub answered: SortedSet<String>,
    pub terminal: bool,
}

/// What the shell must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Send to every other tab of the scope.
    Post(Msg),
    /// Hand to this page's host (the JS layer), in order.
    Deliver(Event),
    /// Queue for the leader lock (`steal`: take it now), dropping an earlier request.
    RequestLock { steal: bool },
    /// Lead: load the stored tasks and session, and answer with [`Input::Loaded`].
    Lead { epoch: u64 },
    /// Open an engine adopting `session` (`None`: a new one; a WebSocket's dies with it) and
    /// answer with [`Input::Ready`] (or [`Input::LeadFailed`]). Events of that engine carry
    /// `epoch`.
    Open {
        epoch: u64,
        session: Option<SessionSnapshot>,
    },
    /// Stop leading: detach the engine (the session stays open for the next leader) and
    /// release the leader lock.
    StepDown,
    /// Write this task's record (see [`Coord::export`]).
    Persist(String),
    /// The caller forgot this task: write its record no more.
    Forget(String),
    /// Store the engine's session, with this server info.
    SaveSession { server_info: Value },
    /// Find out which tabs hold their presence lock (answer with [`Input::Alive`]).
    QueryAlive,
}

/// One of this tab's live subscriptions.
#[derive(Debug, Clone)]
struct MySub {
    op: Op,
    task_id: Option<String>,
    /// Some leader received it (a call is then never sent twice).
    acked: bool,
    /// The caller stopped waiting; the leader has not confirmed yet.
    stopping: bool,
}

enum Role {
    /// No leader known yet (or the last one left).
    Electing,
    Follower {
        epoch: u64,
    },
    Leader(Box<Leading>),
}

/// One tab's coordination state.
pub struct Coord {
    id: TabId,
    /// Locks and a channel exist: other tabs may lead.
    coordinated: bool,
    role: Role,
    closed: bool,
    next_local: u64,
    subs: SortedMap<u64, MySub>,
    ops: SortedMap<u64, Op>,
    /// The latest snapshot this tab saw of each task it follows.
    tasks: SortedMap<String, Task>,
    session: Option<SessionWire>,
    /// The session's legacy `Mcp-Session-Id`: a follower hears it from the leader, a leader
    /// reads it from its engine.
    session_id: Option<String>,
    delivered_session: Option<SessionWire>,
    /// When this page was last hidden (`None`: visible).
    hidden_since: Option<Millis>,
    leader_seen: Millis,
    /// How long the leader's page had been hidden at `leader_seen` (0: visible).
    leader_hidden_ms: u64,
    /// A leader lock request is queued.
    lock_requested: bool,
    ticks: u64,
    out: VecDeque<Output>,
}

impl Coord {
    /// A tab joining its scope: `coordinated` when it has locks and a channel (it then queues
    /// for the lock and greets the others); otherwise the shell grants it the lock at once.
    pub fn new(id: TabId, now: Millis, visible: bool, coordinated: bool) -> Coord {
        let mut c = Coord {
            id,
            coordinated,
            role: Role::Electing,
            closed: false,
            next_local: 1,
            subs: SortedMap::default(),
            ops: SortedMap::default(),
            tasks: SortedMap::default(),
            session: None,
            session_id: None,
            delivered_session: None,
            hidden_since: (!visible).then_some(now),
            leader_seen: now,
            leader_hidden_ms: 0,
            lock_requested: false,
            ticks: 0,
            out: VecDeque::new(),
        };
        if coordinated {
            c.request_lock(false);
            c.hello();
        }
        c
    }

    /// Feeds one input.
    pub fn handle(&mut self, now: Millis, input: Input) {
        if self.closed {
            return;
        }
        match input {
            Input::Message(msg) => self.on_message(now, msg),
            Input::LockGranted { epoch } => self.become_leader(now, epoch),
            Input::LockLost => self.on_lock_lost(now),
            Input::Tick => self.on_tick(now),
            Input::Visibility(v) => self.on_visibility(now, v),
            Input::Online => self.on_online(),
            Input::Freeze => self.on_freeze(),
            Input::Resume { visible } => self.on_resume(now, visible),
            Input::PageHide => self.on_pagehide(),
            Input::Loaded {
                epoch,
                tasks,
                session,
            } => self.on_loaded(epoch, tasks, session),
            Input::Ready { epoch } => self.on_ready(epoch),
            Input::LeadFailed { epoch, error } => self.on_lead_failed(epoch, error),
            Input::Engine { epoch, event } => self.on_engine_event(now, epoch, event),
            Input::Alive(tabs) => self.on_alive(tabs),
            Input::Close => self.close(),
        }
    }

    /// The next thing to do, if any.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    pub fn id(&self) -> TabId {
        self.id
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// `"leader"`, `"follower"` or `"electing"`.
    pub fn role_name(&self) -> &'static str {
        match self.role {
            Role::Electing => "electing",
            Role::Follower { .. } => "follower",
            Role::Leader(_) => "leader",
        }
    }

    /// The epoch this tab leads, if it does.
    pub fn leading_epoch(&self) -> Option<u64> {
        match &self.role {
            Role::Leader(l) => Some(l.epoch),
            _ => None,
        }
    }

    /// The latest snapshot this tab saw of a task it follows.
    pub fn task(&self, task_id: &str) -> Option<&Task> {
        self.tasks.get(task_id)
    }

    pub fn session(&self) -> Option<&SessionWire> {
        self.session.as_ref()
    }

    /// The session as this tab knows it, in the form an engine adopts.
    fn known_session(&self) -> Option<SessionSnapshot> {
        let s = self.session.clone()?;
        Some(SessionSnapshot {
            dialect: s.dialect,
            protocol_version: s.protocol_version,
            session_id: self.session_id.clone(),
            capabilities: s.capabilities,
            server_info: s.server_info,
        })
    }

    fn emit(&mut self, o: Output) {
        self.out.push_back(o);
    }

    fn post(&mut self, msg: Msg) {
        if self.coordinated {
            self.emit(Output::Post(msg));
        }
    }

    fn hello(&mut self) {
        let visible = self.visible();
        self.post(Msg::Hello {
            from: self.id,
            visible,
        });
    }

    fn request_lock(&mut self, steal: bool) {
        self.lock_requested = true;
        self.emit(Output::RequestLock { steal });
    }

    /// Leaves the scope: this tab's subscriptions end `closed`; a leader steps down without
    /// ending the session.
    fn close(&mut self) {
        self.closed = true;
        match std::mem::replace(&mut self.role, Role::Electing) {
            Role::Leader(_) => self.emit(Output::StepDown),
            _ => self.post(Msg::Bye { from: self.id }),
        }
        let error = ClientError::new(ErrorKind::Closed, "the client was closed");
        for (id, s) in std::mem::take(&mut self.subs) {
            let end = End::Failed {
                error: error.clone(),
            };
            self.emit(Output::Deliver(Event::Done {
                sub: SubId(id),
                task_id: s.task_id,
                end,
            }));
        }
        for (id, _) in std::mem::take(&mut self.ops) {
            self.emit(Output::Deliver(Event::Reply {
                op: OpId(id),
                result: Err(error.clone()),
            }));
        }
    }
}
