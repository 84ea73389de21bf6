//! One tab's membership in a scope: its own subscriptions and operations (in tab-local ids,
//! re-sent to every new leader), its role, the channel, the locks and the page events. This
//! module holds the tab's state, its start and the JS layer's side.

mod channel;
mod join;
mod outbox;
mod page;
mod requestor;
mod route;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::{Rc, Weak};

use gloo_timers::callback::Interval;

use super::leader::Leading;
use super::ledger::Ledger;
use super::web::{self, Channel, Held, Listener};
use super::wire::{Msg, Op, SessionWire, TabId};
use super::{Requestor, SharedOptions};
use crate::coord::idmap::IdMap;
use crate::driver::persist::{Scope, Store};
use crate::driver::{global, DriverOptions, HeaderSource, Host, TransportKind};
use crate::engine::api::{ClientError, Config, End, ErrorKind, Event, OpId, SubId};
use crate::protocol::model::Task;
use requestor::TabReq;

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
        self.send(queued);
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
        self.send(std::mem::take(&mut req.queued));
        r
    }

    /// Routes the operations a requestor queued, then hands this tab its events (not generic:
    /// one copy for every `op`/`op_then` instance).
    fn send(&self, queued: Vec<(u64, Op)>) {
        for (id, op) in queued {
            self.route(id, op);
        }
        self.deliver();
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
        for (id, _) in ops {
            self.push_local(Event::Reply {
                op: OpId(id),
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
}
