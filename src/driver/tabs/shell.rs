//! The web shell around a tab's [`Coord`]: it holds the tab's locks, channel, page listeners,
//! ticker, store and (while leading) driver, feeds the machine what happened and carries out
//! what it outputs. It decides nothing.

mod lead;
mod page;

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::json::Value;
use gloo_timers::callback::Interval;

use super::ledger::Ledger;
use super::web::{Channel, Held, Listener, LockManager, Pending};
use super::{Requestor, SharedOptions};
use crate::bridge::scope::Scope;
use crate::collections::sorted::SortedSet;
use crate::coord::{Coord, Input, Output};
use crate::driver::persist::Store;
use crate::driver::{global, Driver, DriverOptions, HeaderSource, Host, TransportKind};
use crate::engine::api::{CallOptions, Config, InputId, OpId, SubId};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Task};

/// What a leader needs to open its own driver (the `DriverOptions` parts, cloneable).
struct Conf {
    url: String,
    transport: TransportKind,
    config: Config,
    headers: HeaderSource,
    websocket: Option<js_sys::Function>,
    shared: SharedOptions,
}

impl Conf {
    fn driver_options(&self) -> DriverOptions {
        DriverOptions {
            url: self.url.clone(),
            transport: self.transport,
            config: self.config.clone(),
            headers: self.headers.clone(),
            websocket: self.websocket.clone(),
        }
    }
}

/// The browser objects a tab holds.
#[derive(Default)]
struct WebParts {
    channel: Option<Channel>,
    locks: Option<LockManager>,
    presence: Option<Rc<RefCell<Option<Held>>>>,
    presence_req: Option<Pending>,
    leader_req: Option<Pending>,
    leader_lock: Option<Held>,
    listeners: Vec<Listener>,
    ticker: Option<Interval>,
}

struct Inner {
    scope: Scope,
    store: Store,
    ledger: Ledger,
    conf: Conf,
    coord: RefCell<Coord>,
    /// The leader's driver and the epoch it serves.
    driver: RefCell<Option<(u64, Driver)>>,
    host: RefCell<Option<Host>>,
    web: RefCell<WebParts>,
    /// Task records to write (batched, in task id order).
    dirty: RefCell<SortedSet<String>>,
    flushing: Cell<bool>,
    pumping: Cell<bool>,
}

/// A cheap handle on this tab's membership in its scope.
#[derive(Clone)]
pub struct Tab(Rc<Inner>);

fn lock_base(scope: &Scope) -> String {
    ["mcp-task-client|", &scope.key].concat()
}

impl Tab {
    fn weak(&self) -> Weak<Inner> {
        Rc::downgrade(&self.0)
    }

    /// Opens the store and joins the scope (leader at once when alone or uncoordinated).
    pub async fn start(opts: DriverOptions, shared: SharedOptions, host: Host) -> Tab {
        let scope = Scope::new(&opts.url, shared.sharing.identity.as_deref());
        let coord_host = shared.host.clone();
        let store = Store::open(scope.clone(), coord_host.as_ref()).await;
        // A host store's edits are atomic by themselves; a page's need the ledger lock.
        let ledger_locks = (coord_host.is_none())
            .then(|| super::web::lock_manager(None))
            .flatten();
        let ledger = Ledger::new(
            store.clone(),
            ledger_locks,
            [&lock_base(&scope), "|ledger"].concat(),
        );
        let locks =
            super::web::lock_manager(coord_host.as_ref()).filter(|_| shared.sharing.coordinate);
        let coordinated =
            locks.is_some() && (coord_host.is_some() || super::web::has_broadcast_channel());
        let visible = super::web::page_visible();
        let coord = Coord::new(
            global::random_seed() >> 11,
            global::now(),
            visible,
            coordinated,
        );
        let tab = Tab(Rc::new(Inner {
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
            coord: RefCell::new(coord),
            driver: RefCell::new(None),
            host: RefCell::new(Some(host)),
            web: RefCell::new(WebParts::default()),
            dirty: RefCell::new(SortedSet::default()),
            flushing: Cell::new(false),
            pumping: Cell::new(false),
        }));
        tab.join(locks.filter(|_| coordinated));
        if !coordinated {
            tab.feed(Input::LockGranted {
                epoch: global::random_seed() >> 11,
            });
        }
        tab.pump();
        tab
    }

    /// Feeds the machine one input, then carries out what follows.
    fn feed(&self, input: Input) {
        self.0.coord.borrow_mut().handle(global::now(), input);
        self.pump();
    }

    /// The leader's driver, when it serves the epoch the machine leads.
    fn driver(&self) -> Option<Driver> {
        let epoch = self.0.coord.borrow().leading_epoch()?;
        let d = self.0.driver.borrow();
        d.as_ref()
            .filter(|(e, _)| *e == epoch)
            .map(|(_, d)| d.clone())
    }

    /// Lets the machine act on the engine and carries out its outputs until it has none left
    /// (outside of any borrow: the host may call back in).
    fn pump(&self) {
        if self.0.pumping.replace(true) {
            return;
        }
        loop {
            let work = self.0.coord.borrow().has_work();
            if let Some(d) = work.then(|| self.driver()).flatten() {
                let coord = &self.0.coord;
                d.op(|e, now| coord.borrow_mut().drive(now, e));
                continue;
            }
            let out = self.0.coord.borrow_mut().poll_output();
            let Some(o) = out else { break };
            self.perform(o);
        }
        self.0.pumping.set(false);
    }

    fn perform(&self, o: Output) {
        match o {
            Output::Post(msg) => {
                if let Some(c) = self.0.web.borrow().channel.as_ref() {
                    c.post(&msg.encode());
                }
            }
            Output::Deliver(ev) => {
                let host = self.0.host.borrow().clone();
                if let Some(h) = host {
                    h(ev);
                }
            }
            Output::RequestLock { steal } => self.request_lock(steal),
            Output::Lead { epoch } => self.load(epoch),
            Output::Open { epoch, session } => self.open(epoch, session),
            Output::StepDown => self.step_down(),
            Output::Persist(id) => self.persist(id),
            Output::Forget(id) => {
                self.0.dirty.borrow_mut().remove(&id);
            }
            Output::SaveSession { server_info } => self.save_session(server_info),
            Output::QueryAlive => self.query_alive(),
        }
    }

    // ----- the JS layer's side -----

    pub fn op_then<R>(
        &self,
        f: impl FnOnce(&mut dyn Requestor, u64) -> R,
        then: impl FnOnce(&R),
    ) -> R {
        let driver = self.driver();
        let r = {
            let mut coord = self.0.coord.borrow_mut();
            let mut view = View {
                coord: &mut coord,
                driver,
            };
            f(&mut view, global::now())
        };
        then(&r);
        self.pump();
        r
    }

    pub fn read<R>(&self, f: impl FnOnce(&dyn Requestor) -> R) -> R {
        let driver = self.driver();
        let mut coord = self.0.coord.borrow_mut();
        let view = View {
            coord: &mut coord,
            driver,
        };
        f(&view)
    }

    pub fn is_closed(&self) -> bool {
        self.0.coord.borrow().is_closed()
    }

    pub fn ledger(&self) -> Ledger {
        self.0.ledger.clone()
    }

    pub fn storage(&self) -> &'static str {
        self.0.store.kind()
    }

    pub fn role_name(&self) -> &'static str {
        self.0.coord.borrow().role_name()
    }

    pub async fn pending_tasks(&self) -> Vec<String> {
        let tasks = self.0.store.tasks().await;
        tasks
            .into_iter()
            .filter(|r| !r.fired)
            .map(|r| r.task_id)
            .collect()
    }

    pub async fn forget(&self, task_id: &str) {
        self.0.coord.borrow_mut().forget(task_id);
        self.pump();
        self.0.store.delete_task(task_id).await;
    }

    /// Leaves the scope: this tab's subscriptions end `closed`; a leader steps down without
    /// ending the session.
    pub fn close(&self) {
        if self.is_closed() {
            return;
        }
        self.feed(Input::Close);
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

/// The JS layer's view of a tab: operations go to the machine; a leader reads tasks from its
/// engine first.
struct View<'a> {
    coord: &'a mut Coord,
    driver: Option<Driver>,
}

impl Requestor for View<'_> {
    fn call_tool(&mut self, now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId {
        self.coord.call_tool(now, name, arguments, opts)
    }
    fn request(&mut self, now: u64, method: &str, params: Value, opts: CallOptions) -> SubId {
        self.coord.request(now, method, params, opts)
    }
    fn watch(&mut self, now: u64, task_id: &str) -> SubId {
        self.coord.watch(now, task_id)
    }
    fn unsubscribe(&mut self, now: u64, sub: SubId) {
        self.coord.unsubscribe(now, sub)
    }
    fn cancel(&mut self, now: u64, task_id: &str) -> OpId {
        self.coord.cancel(now, task_id)
    }
    fn delete_task(&mut self, now: u64, task_id: &str) -> OpId {
        self.coord.delete_task(now, task_id)
    }
    fn answer_input(&mut self, now: u64, id: InputId, answer: Result<Value, RpcError>) {
        self.coord.answer_input(now, id, answer)
    }
    fn list_tasks(&mut self, now: u64, cursor: Option<&str>) -> OpId {
        self.coord.list_tasks(now, cursor)
    }
    fn list_tools(&mut self, now: u64) -> OpId {
        self.coord.list_tools(now)
    }
    fn task(&self, task_id: &str) -> Option<Task> {
        let from_engine = (self.driver.as_ref()).and_then(|d| d.read(|e| e.task(task_id)));
        from_engine.or_else(|| self.coord.task(task_id).cloned())
    }
    fn dialect(&self) -> Option<Dialect> {
        Requestor::dialect(&*self.coord)
    }
}
