//! One tab's membership in a scope: its own subscriptions and operations (in tab-local ids,
//! re-sent to every new leader), its role, the channel, the locks and the page events.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::{Rc, Weak};

use gloo_timers::callback::Interval;
use serde_json::Value;
use wasm_bindgen::JsValue;

use super::idmap::IdMap;
use super::leader::Leading;
use super::ledger::Ledger;
use super::web::{self, Channel, Held, Listener};
use super::wire::{Msg, Op, SessionWire, TabId};
use super::{Requestor, SharedOptions};
use crate::driver::persist::{Scope, Store};
use crate::driver::{global, DriverOptions, HeaderSource, Host, TransportKind};
use crate::engine::api::{
    CallOptions, ClientError, Config, End, ErrorKind, Event, InputId, OpId, SubId,
};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Task};

/// Heartbeat / housekeeping period.
pub(super) const TICK_MS: u32 = 1_000;
/// A follower takes the lock from a leader silent this long (its last heartbeat said visible)…
const STEAL_VISIBLE_MS: u64 = 6_000;
/// …or this long when it said hidden (hidden pages' timers may run once a minute).
const STEAL_HIDDEN_MS: u64 = 150_000;
/// A visible follower takes over from a leader hidden this long, before the browser throttles
/// the hidden leader's timers (and so its polling) to once a minute.
const HANDOFF_HIDDEN_MS: u64 = 60_000;

/// What a leader needs to open its own driver (the `DriverOptions` parts, cloneable).
pub(super) struct Conf {
    pub url: String,
    pub transport: TransportKind,
    pub config: Config,
    pub headers: HeaderSource,
    pub websocket: Option<js_sys::Function>,
    pub shared: SharedOptions,
}

impl Conf {
    pub fn driver_options(&self) -> DriverOptions {
        DriverOptions {
            url: self.url.clone(),
            transport: self.transport,
            config: self.config.clone(),
            headers: self.headers.clone(),
            websocket: self.websocket.clone(),
        }
    }
}

/// One of this tab's live subscriptions.
#[derive(Debug, Clone)]
pub(super) struct MySub {
    pub op: Op,
    pub task_id: Option<String>,
    /// Some leader received it (a call is then never sent twice).
    pub acked: bool,
    /// The caller stopped waiting; the leader has not confirmed yet.
    pub stopping: bool,
}

pub(super) enum Role {
    /// No leader known yet (or the last one left).
    Electing,
    Follower {
        epoch: u64,
    },
    Leader(Box<Leading>),
}

pub(super) struct State {
    pub role: Role,
    pub closed: bool,
    next_local: u64,
    pub subs: IdMap<MySub>,
    pub ops: IdMap<Op>,
    /// The latest snapshot this tab saw of each task it follows.
    pub tasks: HashMap<String, Task>,
    pub session: Option<SessionWire>,
    delivered_session: Option<SessionWire>,
    pub visible: bool,
    /// When this page was last hidden (`None`: visible).
    pub hidden_since: Option<u64>,
    pub leader_seen: u64,
    /// How long the leader's page had been hidden at `leader_seen` (0: visible).
    pub leader_hidden_ms: u64,
}

#[derive(Default)]
pub(super) struct WebParts {
    pub channel: Option<Channel>,
    pub locks: Option<web::LockManager>,
    presence: Option<Rc<RefCell<Option<Held>>>>,
    presence_req: Option<web::Pending>,
    pub leader_req: Option<web::Pending>,
    listeners: Vec<Listener>,
    ticker: Option<Interval>,
}

pub(super) struct Inner {
    pub id: TabId,
    pub scope: Scope,
    pub store: Store,
    pub ledger: Ledger,
    pub conf: Conf,
    pub st: RefCell<State>,
    host: RefCell<Option<Host>>,
    outbox: RefCell<VecDeque<Event>>,
    delivering: Cell<bool>,
    pub web: RefCell<WebParts>,
    pub ticks: Cell<u64>,
}

/// A cheap handle on this tab's membership.
#[derive(Clone)]
pub struct Tab(pub(super) Rc<Inner>);

fn lock_base(scope: &Scope) -> String {
    format!("mcp-task-client|{}", scope.key)
}

impl Tab {
    pub(super) fn lock_name(&self) -> String {
        format!("{}|leader", lock_base(&self.0.scope))
    }

    fn presence_name(scope: &Scope, id: TabId) -> String {
        format!("{}|tab|{id}", lock_base(scope))
    }

    pub(super) fn presence_prefix(&self) -> String {
        format!("{}|tab|", lock_base(&self.0.scope))
    }

    pub(super) fn weak(&self) -> Weak<Inner> {
        Rc::downgrade(&self.0)
    }

    /// Opens the store and joins the scope (leader at once when alone or uncoordinated).
    pub async fn start(opts: DriverOptions, shared: SharedOptions, host: Host) -> Tab {
        let scope = Scope::new(&opts.url, shared.identity.as_deref());
        let store = Store::open(scope.clone()).await;
        let ledger = Ledger::new(store.clone(), format!("{}|ledger", lock_base(&scope)));
        let now = global::now();
        let tab = Tab(Rc::new(Inner {
            id: global::random_seed() >> 11,
            scope,
            store,
            ledger,
            conf: Conf {
                url: opts.url,
                transport: opts.transport,
                config: opts.config,
                headers: opts.headers,
                websocket: opts.websocket,
                shared,
            },
            st: RefCell::new(State {
                role: Role::Electing,
                closed: false,
                next_local: 1,
                subs: IdMap::default(),
                ops: IdMap::default(),
                tasks: HashMap::new(),
                session: None,
                delivered_session: None,
                visible: web::page_visible(),
                hidden_since: (!web::page_visible()).then_some(now),
                leader_seen: now,
                leader_hidden_ms: 0,
            }),
            host: RefCell::new(Some(host)),
            outbox: RefCell::new(VecDeque::new()),
            delivering: Cell::new(false),
            web: RefCell::new(WebParts::default()),
            ticks: Cell::new(0),
        }));
        tab.join();
        tab
    }

    fn join(&self) {
        let coordinated = self.0.conf.shared.coordinate;
        let locks = web::lock_manager().filter(|_| coordinated);
        let weak = self.weak();
        let channel = locks.as_ref().and_then(|_| {
            Channel::open(&lock_base(&self.0.scope), move |text| {
                if let (Some(t), Some(msg)) = (weak.upgrade(), Msg::decode(&text)) {
                    Tab(t).on_message(msg);
                }
            })
        });
        self.listen_page();
        let weak = self.weak();
        let ticker = Interval::new(TICK_MS, move || {
            if let Some(t) = weak.upgrade() {
                Tab(t).on_tick();
            }
        });
        let coordinated = channel.is_some() && locks.is_some();
        {
            let mut w = self.0.web.borrow_mut();
            w.channel = channel;
            w.locks = locks.filter(|_| coordinated);
            w.ticker = Some(ticker);
        }
        if !coordinated {
            return self.become_leader(None);
        }
        self.hold_presence();
        self.request_leadership(false);
        let visible = self.0.st.borrow().visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }

    /// A lock named after this tab, held for its life: the leader reads who is alive from it.
    fn hold_presence(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let slot: Rc<RefCell<Option<Held>>> = Rc::default();
        let s2 = slot.clone();
        let name = Self::presence_name(&self.0.scope, self.0.id);
        let req = web::acquire(
            &locks,
            &name,
            false,
            move |h| *s2.borrow_mut() = Some(h),
            || {},
        )
        .ok();
        let mut w = self.0.web.borrow_mut();
        w.presence = Some(slot);
        w.presence_req = req;
    }

    /// Queues for the leader lock (`steal`: take it now).
    pub(super) fn request_leadership(&self, steal: bool) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        if let Some(mut old) = self.0.web.borrow_mut().leader_req.take() {
            old.abort();
        }
        let (w1, w2) = (self.weak(), self.weak());
        let req = web::acquire(
            &locks,
            &self.lock_name(),
            steal,
            move |held| {
                if let Some(t) = w1.upgrade() {
                    let tab = Tab(t);
                    tab.0.web.borrow_mut().leader_req = None;
                    tab.become_leader(Some(held));
                }
            },
            move || {
                if let Some(t) = w2.upgrade() {
                    Tab(t).on_lock_lost();
                }
            },
        );
        match req {
            Ok(p) => self.0.web.borrow_mut().leader_req = Some(p),
            // The lock manager refused (e.g. an opaque origin): lead alone.
            Err(_) => self.become_leader(None),
        }
    }

    fn listen_page(&self) {
        let mut ls = Vec::new();
        let doc = web::document();
        let g = web::global();
        let on = |target: &JsValue, kind: &'static str, f: fn(&Tab)| {
            let weak = self.weak();
            Listener::on(target, kind, move |_| {
                if let Some(t) = weak.upgrade() {
                    f(&Tab(t));
                }
            })
        };
        if let Some(d) = &doc {
            ls.extend(on(d, "visibilitychange", |t| {
                t.on_visibility(web::page_visible())
            }));
            ls.extend(on(d, "freeze", Tab::on_freeze));
            ls.extend(on(d, "resume", Tab::on_resume));
        }
        ls.extend(on(&g, "online", Tab::on_online));
        ls.extend(on(&g, "pagehide", Tab::on_pagehide));
        ls.extend(on(&g, "pageshow", Tab::on_resume));
        self.0.web.borrow_mut().listeners = ls;
    }

    pub(super) fn post(&self, msg: &Msg) {
        if let Some(c) = self.0.web.borrow().channel.as_ref() {
            c.post(&msg.encode());
        }
    }

    // ----- the JS layer's side -----

    pub fn op_then<R>(
        &self,
        f: impl FnOnce(&mut dyn Requestor, u64) -> R,
        then: impl FnOnce(&R),
    ) -> R {
        let mut req = TabReq {
            tab: self,
            queued: Vec::new(),
        };
        let r = f(&mut req, global::now());
        let queued = std::mem::take(&mut req.queued);
        then(&r);
        for (id, op) in queued {
            self.route(id, op);
        }
        self.deliver();
        r
    }

    pub fn read<R>(&self, f: impl FnOnce(&dyn Requestor) -> R) -> R {
        f(&TabReq {
            tab: self,
            queued: Vec::new(),
        })
    }

    pub fn is_closed(&self) -> bool {
        self.0.st.borrow().closed
    }

    pub fn ledger(&self) -> Ledger {
        self.0.ledger.clone()
    }

    pub fn storage(&self) -> &'static str {
        self.0.store.kind()
    }

    pub fn role_name(&self) -> &'static str {
        match self.0.st.borrow().role {
            Role::Electing => "electing",
            Role::Follower { .. } => "follower",
            Role::Leader(_) => "leader",
        }
    }

    pub async fn pending_tasks(&self) -> Vec<String> {
        self.0
            .store
            .tasks()
            .await
            .into_iter()
            .filter(|r| !r.fired)
            .map(|r| r.task_id)
            .collect()
    }

    pub async fn forget(&self, task_id: &str) {
        self.op(|r, _| {
            r.queued.push((
                0,
                Op::Forget {
                    task_id: task_id.to_owned(),
                },
            ))
        });
        self.0.store.delete_task(task_id).await;
    }

    fn op<R>(&self, f: impl FnOnce(&mut TabReq<'_>, u64) -> R) -> R {
        let mut req = TabReq {
            tab: self,
            queued: Vec::new(),
        };
        let r = f(&mut req, global::now());
        for (id, op) in std::mem::take(&mut req.queued) {
            self.route(id, op);
        }
        self.deliver();
        r
    }

    /// Leaves the scope: this tab's subscriptions end `closed`; a leader steps down without
    /// ending the session.
    pub async fn close(&self) {
        let (role, subs, ops) = {
            let mut st = self.0.st.borrow_mut();
            if st.closed {
                return;
            }
            st.closed = true;
            let role = std::mem::replace(&mut st.role, Role::Electing);
            (
                role,
                std::mem::take(&mut st.subs),
                std::mem::take(&mut st.ops),
            )
        };
        match role {
            Role::Leader(l) => self.step_down(l, true),
            _ => self.post(&Msg::Bye { from: self.0.id }),
        }
        let error = ClientError::new(ErrorKind::Closed, "the client was closed");
        for (id, s) in subs {
            let end = End::Failed {
                error: error.clone(),
            };
            self.push_local(Event::Done {
                sub: SubId(id),
                task_id: s.task_id,
                end,
            });
        }
        for id in ops.keys() {
            self.push_local(Event::Reply {
                op: OpId(*id),
                result: Err(error.clone()),
            });
        }
        self.deliver();
        let mut w = self.0.web.borrow_mut();
        w.ticker = None;
        w.listeners.clear();
        w.channel = None;
        if let Some(mut r) = w.leader_req.take() {
            r.abort();
        }
        if let Some(mut r) = w.presence_req.take() {
            r.abort();
        }
        if let Some(p) = w.presence.take() {
            p.borrow_mut().take();
        }
    }

    pub fn release_host(&self) {
        self.0.host.borrow_mut().take();
    }

    // ----- routing this tab's operations -----

    /// Sends one of this tab's operations to wherever the leader is.
    pub(super) fn route(&self, id: u64, op: Op) {
        enum To {
            Me,
            Peer(u64),
            Nobody,
        }
        let to = match &self.0.st.borrow().role {
            Role::Leader(l) if l.ready => To::Me,
            Role::Follower { epoch, .. } => To::Peer(*epoch),
            _ => To::Nobody,
        };
        match to {
            To::Me => self.apply(self.0.id, id, op),
            To::Peer(epoch) => self.post(&Msg::Op {
                from: self.0.id,
                epoch,
                id,
                op,
            }),
            // Nobody has it yet: stopping is local (the next leader never hears of it). Anything
            // else stays in `subs`/`ops` and is sent once a leader is known; answers to a gone
            // leader's input requests are dropped (the next leader asks again where it can).
            To::Nobody => {
                if let Op::Unsubscribe { sub } = op {
                    self.abort_local(sub);
                }
            }
        }
    }

    fn abort_local(&self, sub: SubId) {
        let s = self.0.st.borrow_mut().subs.remove(&sub.0);
        if let Some(s) = s {
            self.push_local(Event::Done {
                sub,
                task_id: s.task_id,
                end: End::Aborted,
            });
        }
    }

    /// A new leader: give it every live subscription and pending operation.
    pub(super) fn resend_all(&self) {
        let (subs, ops) = {
            let st = self.0.st.borrow();
            (st.subs.clone(), st.ops.clone())
        };
        for (id, s) in subs {
            if s.stopping {
                self.abort_local(SubId(id));
                continue;
            }
            let op = match (&s.task_id, &s.op) {
                (Some(t), _) => Op::Watch { task_id: t.clone() },
                (None, Op::Watch { .. }) => s.op.clone(),
                (None, _) if s.acked => {
                    // The old leader may have sent it: sending it again could run it twice.
                    let gone = self.0.st.borrow_mut().subs.remove(&id);
                    if gone.is_some() {
                        let mut error = ClientError::new(
                            ErrorKind::Transport,
                            "the leader tab went away before the server named the task; the call may have run",
                        );
                        error.data = Some(Value::from("leaderLost"));
                        self.push_local(Event::Done {
                            sub: SubId(id),
                            task_id: None,
                            end: End::Failed { error },
                        });
                    }
                    continue;
                }
                (None, _) => s.op.clone(),
            };
            self.route(id, op);
        }
        for (id, op) in ops {
            self.route(id, op);
        }
        self.deliver();
    }

    // ----- events for this tab -----

    /// Queues an event for this tab's host, applying the exactly-once guards.
    pub(super) fn push_local(&self, ev: Event) {
        let keep = {
            let mut st = self.0.st.borrow_mut();
            match &ev {
                Event::Status { sub, task } => match st.subs.get_mut(&sub.0) {
                    Some(s) => {
                        s.task_id = Some(task.task_id.clone());
                        st.tasks.insert(task.task_id.clone(), task.clone());
                        true
                    }
                    None => false,
                },
                Event::Done { sub, end, .. } => {
                    if let End::Finished { task: Some(t), .. } = end {
                        if st.subs.contains_key(&sub.0) {
                            st.tasks.insert(t.task_id.clone(), t.clone());
                        }
                    }
                    st.subs.remove(&sub.0).is_some()
                }
                Event::Reply { op, .. } => st.ops.remove(&op.0).is_some(),
                _ => true,
            }
        };
        if keep {
            self.0.outbox.borrow_mut().push_back(ev);
        }
    }

    /// Tells this tab's host about the session (once per change).
    pub(super) fn announce_session(&self, s: &SessionWire) {
        let fresh = {
            let mut st = self.0.st.borrow_mut();
            st.session = Some(s.clone());
            if st.delivered_session.as_ref() == Some(s) {
                false
            } else {
                st.delivered_session = Some(s.clone());
                true
            }
        };
        if fresh {
            self.push_local(s.event());
        }
    }

    /// Hands queued events to the host, in order, with no borrow held.
    pub(super) fn deliver(&self) {
        if self.0.delivering.replace(true) {
            return;
        }
        loop {
            let ev = self.0.outbox.borrow_mut().pop_front();
            let Some(ev) = ev else { break };
            let host = self.0.host.borrow().clone();
            if let Some(h) = host {
                h(ev);
            }
        }
        self.0.delivering.set(false);
    }

    // ----- the channel -----

    fn on_message(&self, msg: Msg) {
        if self.is_closed() {
            return;
        }
        match msg {
            Msg::Leader {
                from,
                epoch,
                hidden_ms,
                session,
            } if from != self.0.id => self.on_leader(epoch, hidden_ms, session),
            Msg::Ev { to, epoch, event } if to.is_none_or(|t| t == self.0.id) => {
                let (current, connected) = {
                    let st = self.0.st.borrow();
                    (
                        matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch),
                        st.delivered_session.is_some(),
                    )
                };
                // Before this tab is connected, the leader's session warnings are not ours: they
                // would read as this tab's failed connect.
                let theirs = !connected && matches!(event, Event::Warning { task_id: None, .. });
                if current && !theirs {
                    self.push_local(event);
                }
            }
            Msg::Ack { to, epoch, id } if to == self.0.id => {
                let mut st = self.0.st.borrow_mut();
                if matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch) {
                    if let Some(s) = st.subs.get_mut(&id) {
                        s.acked = true;
                    }
                }
            }
            other => self.on_leader_message(other),
        }
        self.deliver();
    }

    fn on_leader(&self, epoch: u64, hidden_ms: u64, session: Option<SessionWire>) {
        let new_leader = {
            let mut st = self.0.st.borrow_mut();
            if matches!(st.role, Role::Leader(_)) {
                // Two leaders for a moment (a stolen lock): the loser finds out from its lock.
                return;
            }
            st.leader_seen = global::now();
            st.leader_hidden_ms = hidden_ms;
            let known = matches!(st.role, Role::Follower { epoch: e, .. } if e == epoch);
            if !known {
                st.role = Role::Follower { epoch };
            }
            !known
        };
        if let Some(s) = session {
            self.announce_session(&s);
        }
        if new_leader {
            self.resend_all();
        }
        self.maybe_take_over();
    }

    /// This page is visible and the leader's has been hidden long: lead from here instead.
    fn maybe_take_over(&self) {
        let take = {
            let st = self.0.st.borrow();
            let hidden_for = st
                .leader_hidden_ms
                .saturating_add(global::now().saturating_sub(st.leader_seen));
            st.visible
                && !st.closed
                && matches!(st.role, Role::Follower { .. })
                && st.leader_hidden_ms > 0
                && hidden_for > HANDOFF_HIDDEN_MS
        };
        if take && self.0.web.borrow().locks.is_some() {
            self.0.st.borrow_mut().leader_hidden_ms = 0;
            self.request_leadership(true);
        }
    }

    /// How long this page has been hidden (0: visible).
    pub(super) fn hidden_ms(&self) -> u64 {
        self.0
            .st
            .borrow()
            .hidden_since
            .map_or(0, |t| global::now().saturating_sub(t).max(1))
    }

    // ----- page events and housekeeping -----

    fn on_tick(&self) {
        let n = self.0.ticks.get().wrapping_add(1);
        self.0.ticks.set(n);
        let leading = matches!(self.0.st.borrow().role, Role::Leader(_));
        if leading {
            return self.leader_tick(n);
        }
        let (closed, silent, limit) = {
            let st = self.0.st.borrow();
            let limit = if st.leader_hidden_ms == 0 {
                STEAL_VISIBLE_MS
            } else {
                STEAL_HIDDEN_MS
            };
            (
                st.closed,
                global::now().saturating_sub(st.leader_seen),
                limit,
            )
        };
        if !closed && silent > limit && self.0.web.borrow().locks.is_some() {
            // The lock is held by a tab that says nothing (hung, or frozen without a `freeze`).
            self.0.st.borrow_mut().leader_seen = global::now();
            self.request_leadership(true);
        }
    }

    fn on_visibility(&self, visible: bool) {
        {
            let mut st = self.0.st.borrow_mut();
            st.visible = visible;
            st.hidden_since = if visible {
                None
            } else {
                st.hidden_since.or(Some(global::now()))
            };
        }
        let follower = !matches!(self.0.st.borrow().role, Role::Leader(_));
        if follower {
            self.post(&Msg::Vis {
                from: self.0.id,
                visible,
            });
            self.maybe_take_over();
        } else {
            self.leader_visibility(self.0.id, visible);
            self.announce();
        }
    }

    fn on_online(&self) {
        let follower = !matches!(self.0.st.borrow().role, Role::Leader(_));
        if follower {
            self.post(&Msg::Online { from: self.0.id });
        } else {
            self.leader_online();
        }
    }

    /// The page is about to be frozen: a leader hands over now (frozen pages run nothing).
    fn on_freeze(&self) {
        let role = {
            let mut st = self.0.st.borrow_mut();
            if !matches!(st.role, Role::Leader(_)) {
                return;
            }
            std::mem::replace(&mut st.role, Role::Electing)
        };
        if let Role::Leader(l) = role {
            self.step_down(l, false);
        }
    }

    /// Unfrozen (or back from the back/forward cache): rejoin, and hear from the leader again.
    fn on_resume(&self) {
        if self.is_closed() {
            return;
        }
        let rejoin = {
            let mut st = self.0.st.borrow_mut();
            match st.role {
                Role::Leader(_) => false,
                _ => {
                    st.role = Role::Electing;
                    st.leader_seen = global::now();
                    true
                }
            }
        };
        if !rejoin {
            return;
        }
        if self.0.web.borrow().leader_req.is_none() {
            self.request_leadership(false);
        }
        let visible = web::page_visible();
        self.0.st.borrow_mut().visible = visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }

    fn on_pagehide(&self) {
        if !matches!(self.0.st.borrow().role, Role::Leader(_)) {
            self.post(&Msg::Bye { from: self.0.id });
        }
    }

    /// Our leader lock was stolen (we were silent too long): become a follower again.
    fn on_lock_lost(&self) {
        let role = {
            let mut st = self.0.st.borrow_mut();
            if st.closed || !matches!(st.role, Role::Leader(_)) {
                return;
            }
            st.leader_seen = global::now();
            std::mem::replace(&mut st.role, Role::Electing)
        };
        if let Role::Leader(l) = role {
            self.step_down(l, false);
        }
        self.request_leadership(false);
        let visible = self.0.st.borrow().visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }
}

/// A tab's [`Requestor`]: allocates tab-local ids and queues operations for the leader.
pub(super) struct TabReq<'a> {
    tab: &'a Tab,
    pub queued: Vec<(u64, Op)>,
}

impl TabReq<'_> {
    fn alloc(&mut self) -> u64 {
        let mut st = self.tab.0.st.borrow_mut();
        let id = st.next_local;
        st.next_local += 1;
        id
    }

    fn sub(&mut self, op: Op) -> SubId {
        let id = self.alloc();
        let s = MySub {
            op: op.clone(),
            task_id: None,
            acked: false,
            stopping: false,
        };
        self.tab.0.st.borrow_mut().subs.insert(id, s);
        self.queued.push((id, op));
        SubId(id)
    }

    fn one_shot(&mut self, op: Op) -> OpId {
        let id = self.alloc();
        self.tab.0.st.borrow_mut().ops.insert(id, op.clone());
        self.queued.push((id, op));
        OpId(id)
    }
}

impl Requestor for TabReq<'_> {
    fn call_tool(&mut self, _now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId {
        self.sub(Op::CallTool {
            name: name.to_owned(),
            arguments,
            opts,
        })
    }

    fn request(&mut self, _now: u64, method: &str, params: Value, opts: CallOptions) -> SubId {
        self.sub(Op::Request {
            method: method.to_owned(),
            params,
            opts,
        })
    }

    fn watch(&mut self, _now: u64, task_id: &str) -> SubId {
        let sub = self.sub(Op::Watch {
            task_id: task_id.to_owned(),
        });
        if let Some(s) = self.tab.0.st.borrow_mut().subs.get_mut(&sub.0) {
            s.task_id = Some(task_id.to_owned());
        }
        sub
    }

    fn unsubscribe(&mut self, _now: u64, sub: SubId) {
        let live = match self.tab.0.st.borrow_mut().subs.get_mut(&sub.0) {
            Some(s) => {
                s.stopping = true;
                true
            }
            None => false,
        };
        if live {
            self.queued.push((0, Op::Unsubscribe { sub }));
        }
    }

    fn cancel(&mut self, _now: u64, task_id: &str) -> OpId {
        self.one_shot(Op::Cancel {
            task_id: task_id.to_owned(),
        })
    }

    fn answer_input(&mut self, _now: u64, id: InputId, answer: Result<Value, RpcError>) {
        self.queued.push((0, Op::AnswerInput { id, answer }));
    }

    fn list_tasks(&mut self, _now: u64, cursor: Option<&str>) -> OpId {
        self.one_shot(Op::ListTasks {
            cursor: cursor.map(str::to_owned),
        })
    }

    fn list_tools(&mut self, _now: u64) -> OpId {
        self.one_shot(Op::ListTools)
    }

    fn task(&self, task_id: &str) -> Option<Task> {
        let from_engine = match &self.tab.0.st.borrow().role {
            Role::Leader(l) => l
                .driver
                .as_ref()
                .and_then(|d| d.read(|e| e.task(task_id).cloned())),
            _ => None,
        };
        from_engine.or_else(|| self.tab.0.st.borrow().tasks.get(task_id).cloned())
    }

    fn dialect(&self) -> Option<Dialect> {
        self.tab.0.st.borrow().session.as_ref().map(|s| s.dialect)
    }
}
