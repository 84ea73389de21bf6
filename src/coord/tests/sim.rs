//! A simulated browser for [`Coord`]: several pages of one scope, a Web Locks manager, a
//! broadcast channel, a store with the completion ledger, and one engine (the testkit harness:
//! fake server, virtual clock, the poll invariants) that whichever page leads drives.
//!
//! With [`Sim::leases`] the lock is a Redis lease instead (several processes, `persist: { redis }`):
//! a holder that dies or stops keeps it until it expires, `steal` only queues, and a process
//! resumed after a pause longer than the lease loses it at once.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use crate::json::{json, Value};

use crate::collections::sorted::SortedSet;
use crate::coord::wire::Msg;
use crate::coord::{Coord, Input, Output, Requestor, Stored};
use crate::engine::api::{CallOptions, Config, DialectChoice, End, Event, Millis, SubId};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::engine::Engine;
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

mod lease;

/// Virtual time per simulation step.
const STEP_MS: Millis = 250;
/// The shell's heartbeat.
const TICK_MS: Millis = 1_000;

/// One browser page of the scope.
pub(crate) struct Page {
    pub(crate) coord: Coord,
    pub(crate) alive: bool,
    /// Hung: runs nothing, holds its locks.
    pub(crate) hung: bool,
    /// Everything handed to the page's host.
    pub(crate) events: Vec<Event>,
    /// Tasks whose end this page reported to the ledger (once per page).
    reported: HashSet<String>,
}

/// One stored task record.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record {
    pub(crate) snapshot: Option<TaskSnapshot>,
    pub(crate) answered: SortedSet<String>,
    pub(crate) terminal: bool,
    /// The completion ledger's flag.
    pub(crate) fired: bool,
}

pub(crate) struct Sim {
    pub(crate) h: Harness,
    pub(crate) pages: Vec<Page>,
    /// The leader lock: its holder and the queued requests.
    holder: Option<usize>,
    waiting: VecDeque<usize>,
    /// The page whose leadership (epoch) the engine serves.
    engine_of: Option<(usize, u64)>,
    pub(crate) store: BTreeMap<String, Record>,
    session: Option<SessionSnapshot>,
    channel: VecDeque<(usize, Msg)>,
    next_id: u64,
    /// Times each task's once-completion callbacks ran (across every page and reload).
    pub(crate) fired: HashMap<String, u32>,
    /// Most pages that ran as leader at one moment.
    pub(crate) max_leaders: usize,
    /// Leaderships that began.
    pub(crate) leaderships: usize,
    /// Input requests handed to a page.
    pub(crate) inputs_seen: usize,
    /// Answer input requests (else leave them pending).
    pub(crate) answer_inputs: bool,
    /// A hung page holds a storage transaction open: a new leader reads neither the stored
    /// session nor the records until [`release_storage`](Self::release_storage) (writes are
    /// not modelled as blocked).
    pub(crate) storage_held: bool,
    /// The leadership whose load waits for the storage.
    late: Option<(usize, u64)>,
    dialect: Dialect,
    last_tick: Millis,
    /// Leases of this length in place of Web Locks.
    lease_ms: Option<Millis>,
    /// When the lease of a holder that stopped renewing (dead or paused) runs out.
    lapse: Option<Millis>,
}

impl Sim {
    /// One page, coordinated, against a fake server of `dialect`.
    pub(crate) fn new(dialect: Dialect, seed: u64) -> Sim {
        let mut h = Harness::new(choice(dialect), dialect, seed);
        h.auto_answer = false;
        let now = h.now;
        let mut sim = Sim {
            h,
            pages: Vec::new(),
            holder: None,
            waiting: VecDeque::new(),
            engine_of: None,
            store: BTreeMap::new(),
            session: None,
            channel: VecDeque::new(),
            next_id: seed | 1,
            fired: HashMap::new(),
            max_leaders: 0,
            leaderships: 0,
            inputs_seen: 0,
            answer_inputs: true,
            storage_held: false,
            late: None,
            dialect,
            last_tick: now,
            lease_ms: None,
            lapse: None,
        };
        sim.open();
        sim
    }

    fn random(&mut self) -> u64 {
        // xorshift64: ids and epochs only need to differ.
        let mut x = self.next_id;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.next_id = x;
        x >> 11
    }

    /// Opens a new page (it joins the scope); returns its index.
    pub(crate) fn open(&mut self) -> usize {
        let id = self.random();
        let coord = Coord::new(id, self.h.now, true, true);
        self.pages.push(Page {
            coord,
            alive: true,
            hung: false,
            events: Vec::new(),
            reported: HashSet::new(),
        });
        let i = self.pages.len() - 1;
        self.settle();
        i
    }

    /// Reloads page `i`: it goes away (`pagehide`), a new page opens and resumes every stored
    /// task no page has reported yet. Returns the new page.
    pub(crate) fn reload(&mut self, i: usize) -> usize {
        self.close(i, true);
        let j = self.open();
        let pending: Vec<String> = (self.store.iter())
            .filter(|(_, r)| !r.fired)
            .map(|(id, _)| id.clone())
            .collect();
        for id in pending {
            self.op(j, |c, now| {
                c.watch(now, &id);
            });
        }
        j
    }

    /// Page `i` goes away: `graceful` with its `pagehide` (a `Bye`), else it crashed. Its locks
    /// are freed either way.
    pub(crate) fn close(&mut self, i: usize, graceful: bool) {
        if !self.live(i) {
            return;
        }
        if graceful {
            self.input(i, Input::PageHide);
        }
        if let Some(p) = self.pages.get_mut(i) {
            p.alive = false;
        }
        self.gone(i);
    }

    /// Page `i` hangs for good: it runs nothing more, yet holds its locks.
    pub(crate) fn hang(&mut self, i: usize) {
        if !self.live(i) {
            return;
        }
        if let Some(p) = self.pages.get_mut(i) {
            p.hung = true;
        }
        // Its engine does nothing any more.
        if self.engine_of.is_some_and(|(p, _)| p == i) {
            self.stop_engine();
        }
        self.stop_renewing(i);
    }

    fn live(&self, i: usize) -> bool {
        self.pages.get(i).is_some_and(|p| p.alive && !p.hung)
    }

    /// A page's locks are freed (it died).
    fn gone(&mut self, i: usize) {
        self.waiting.retain(|&w| w != i);
        if self.engine_of.is_some_and(|(p, _)| p == i) {
            self.stop_engine();
        }
        if self.lease_ms.is_some() {
            self.stop_renewing(i);
        } else if self.holder == Some(i) {
            self.release();
        }
        self.settle();
    }

    /// Runs one of page `i`'s operations as its JS layer would.
    pub(crate) fn op<R>(&mut self, i: usize, f: impl FnOnce(&mut Coord, Millis) -> R) -> Option<R> {
        if !self.live(i) {
            return None;
        }
        let now = self.h.now;
        let r = self.pages.get_mut(i).map(|p| f(&mut p.coord, now));
        self.settle();
        r
    }

    /// Page `i` calls the fake server's `job` tool with `args`.
    pub(crate) fn call(&mut self, i: usize, args: Value) -> Option<SubId> {
        self.op(i, |c, now| {
            c.call_tool(now, "job", args, CallOptions::default())
        })
    }

    /// Feeds page `i` an input (no-op for a page that is gone or hung).
    pub(crate) fn input(&mut self, i: usize, input: Input) {
        if !self.live(i) {
            return;
        }
        let now = self.h.now;
        if let Some(p) = self.pages.get_mut(i) {
            p.coord.handle(now, input);
        }
        self.settle();
    }

    /// Runs the world for `ms` of virtual time.
    pub(crate) fn run_for(&mut self, ms: Millis) {
        let until = self.h.now + ms;
        while self.h.now < until {
            let step = STEP_MS.min(until - self.h.now);
            self.h.run_for(step);
            if self.lapse.is_some_and(|t| t <= self.h.now) {
                self.lapse = None;
                self.release();
            }
            self.settle();
            if self.h.now >= self.last_tick + TICK_MS {
                self.last_tick = self.h.now;
                for i in 0..self.pages.len() {
                    self.input(i, Input::Tick);
                }
            }
        }
    }

    /// Performs every page's outputs, delivers the channel, lets the leader drive the engine
    /// and routes the engine's events, until nothing moves.
    fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut moved = false;
            for i in 0..self.pages.len() {
                while let Some(o) = self.next_output(i) {
                    moved = true;
                    self.perform(i, o);
                }
            }
            while let Some((from, msg)) = self.channel.pop_front() {
                moved = true;
                let now = self.h.now;
                for (j, p) in self.pages.iter_mut().enumerate() {
                    if j != from && p.alive && !p.hung {
                        p.coord.handle(now, Input::Message(msg.clone()));
                    }
                }
            }
            if let Some((i, epoch)) = self.engine_of {
                let now = self.h.now;
                if let Some(p) = self.pages.get_mut(i) {
                    if p.coord.has_work() {
                        moved = true;
                        p.coord.drive(now, &mut self.h.engine);
                        self.h.pump();
                    }
                }
                for event in std::mem::take(&mut self.h.events) {
                    moved = true;
                    if let Some(p) = self.pages.get_mut(i) {
                        p.coord.handle(now, Input::Engine { epoch, event });
                    }
                }
            } else {
                self.h.events.clear();
            }
            let leaders = (self.pages.iter())
                .filter(|p| p.alive && !p.hung && p.coord.role_name() == "leader")
                .count();
            self.max_leaders = self.max_leaders.max(leaders);
            if !moved {
                return;
            }
        }
        panic!("the simulated tabs did not settle");
    }

    fn next_output(&mut self, i: usize) -> Option<Output> {
        let p = self.pages.get_mut(i)?;
        if !p.alive || p.hung {
            return None;
        }
        p.coord.poll_output()
    }

    fn perform(&mut self, i: usize, o: Output) {
        let now = self.h.now;
        match o {
            Output::Post(msg) => self.channel.push_back((i, msg)),
            Output::Deliver(ev) => self.deliver(i, ev),
            Output::RequestLock { steal } => self.request_lock(i, steal),
            Output::Lead { epoch } => self.load(i, epoch),
            Output::Open { epoch, session } => self.lead(i, epoch, session),
            Output::StepDown => {
                if self.engine_of.is_some_and(|(p, _)| p == i) {
                    self.stop_engine();
                }
                if self.holder == Some(i) {
                    self.release();
                }
            }
            Output::Persist(id) => self.persist(i, &id),
            Output::Forget(id) => {
                self.store.remove(&id);
            }
            Output::SaveSession { server_info } => {
                if let Some(s) = self.h.engine.session_snapshot(server_info) {
                    self.session = Some(s);
                }
            }
            Output::QueryAlive => {
                let alive = (self.pages.iter())
                    .filter(|p| p.alive)
                    .map(|p| p.coord.id())
                    .collect();
                if let Some(p) = self.pages.get_mut(i) {
                    p.coord.handle(now, Input::Alive(alive));
                }
            }
        }
    }

    /// What the page's host does with an event: answers input requests, and reports each task's
    /// end to the completion ledger once per page (a check-and-set on the stored record).
    fn deliver(&mut self, i: usize, ev: Event) {
        let now = self.h.now;
        if let Event::Input { id, .. } = &ev {
            self.inputs_seen += 1;
            if self.answer_inputs {
                let answer = Ok(json!({ "action": "accept", "content": { "name": "x" } }));
                if let Some(p) = self.pages.get_mut(i) {
                    p.coord.answer_input(now, *id, answer);
                }
            }
        }
        if let Event::Done {
            task_id: Some(t),
            end,
            ..
        } = &ev
        {
            let reports = !matches!(end, End::Aborted);
            let first = self
                .pages
                .get_mut(i)
                .is_some_and(|p| reports && p.reported.insert(t.clone()));
            if first {
                let rec = self.store.entry(t.clone()).or_default();
                if !std::mem::replace(&mut rec.fired, true) {
                    *self.fired.entry(t.clone()).or_default() += 1;
                }
            }
        }
        if let Some(p) = self.pages.get_mut(i) {
            p.events.push(ev);
        }
    }

    /// Web Locks: a new request replaces the page's queued one; `steal` takes the lock from its
    /// holder at once (the holder hears it lost it).
    fn request_lock(&mut self, i: usize, steal: bool) {
        self.waiting.retain(|&w| w != i);
        if self.holder == Some(i) {
            return;
        }
        match self.holder {
            // A lease is taken only once it expired.
            Some(j) if steal && self.lease_ms.is_none() => {
                self.holder = None;
                if self.live(j) {
                    let now = self.h.now;
                    if let Some(p) = self.pages.get_mut(j) {
                        p.coord.handle(now, Input::LockLost);
                    }
                }
                self.grant(i);
            }
            Some(_) => self.waiting.push_back(i),
            None => self.grant(i),
        }
    }

    fn grant(&mut self, i: usize) {
        self.holder = Some(i);
        let epoch = self.random();
        let now = self.h.now;
        if let Some(p) = self.pages.get_mut(i) {
            p.coord.handle(now, Input::LockGranted { epoch });
        }
    }

    fn release(&mut self) {
        self.holder = None;
        self.lapse = None;
        let pages = &self.pages;
        self.waiting
            .retain(|&w| pages.get(w).is_some_and(|p| p.alive));
        // A paused process cannot take a lease (it sends nothing); it keeps trying once resumed.
        let leases = self.lease_ms.is_some();
        let next = (self.waiting.iter())
            .position(|&w| (self.pages.get(w)).is_some_and(|p| !(leases && p.hung)));
        if let Some(w) = next.and_then(|at| self.waiting.remove(at)) {
            self.grant(w);
        }
    }

    /// A new leader reads the store: its tasks and session at once, or (the storage held) once
    /// it is released.
    fn load(&mut self, i: usize, epoch: u64) {
        if self.storage_held {
            self.late = Some((i, epoch));
        } else {
            self.loaded(i, epoch);
        }
    }

    fn loaded(&mut self, i: usize, epoch: u64) {
        let now = self.h.now;
        let tasks = (self.store.iter())
            .map(|(id, r)| Stored {
                task_id: id.clone(),
                snapshot: r.snapshot.clone(),
                answered: r.answered.clone(),
                terminal: r.terminal,
            })
            .collect();
        let session = self.session.clone();
        if let Some(p) = self.pages.get_mut(i) {
            let input = Input::Loaded {
                epoch,
                tasks,
                session,
            };
            p.coord.handle(now, input);
        }
    }

    /// The storage answers again: a leader waiting for it gets the stored tasks and session.
    pub(crate) fn release_storage(&mut self) {
        self.storage_held = false;
        if let Some((i, epoch)) = self.late.take() {
            self.loaded(i, epoch);
            self.settle();
        }
    }

    /// A new leader opens its engine adopting `session`.
    fn lead(&mut self, i: usize, epoch: u64, session: Option<SessionSnapshot>) {
        self.stop_engine();
        let now = self.h.now;
        let seed = self.random();
        let mut engine = Engine::new(config(self.dialect), seed, now);
        if let Some(s) = &session {
            if !engine.adopt_session(now, s) {
                engine = Engine::new(config(self.dialect), seed, now);
            }
        }
        self.h.engine = engine;
        self.h.pump();
        self.engine_of = Some((i, epoch));
        self.leaderships += 1;
        if let Some(p) = self.pages.get_mut(i) {
            p.coord.handle(now, Input::Ready { epoch });
        }
    }

    /// The engine stops (its page stepped down, hung or died): in-flight requests are dropped.
    fn stop_engine(&mut self) {
        if self.engine_of.take().is_some() {
            let now = self.h.now;
            self.h.engine.detach(now);
            self.h.pump();
            self.h.drop_open_requests();
            self.h.events.clear();
        }
    }

    /// Writes a task's record: the ledger flag and answered keys are kept, and a stored terminal
    /// state is never replaced by an older one.
    fn persist(&mut self, i: usize, task_id: &str) {
        if self.engine_of.map(|(p, _)| p) != Some(i) {
            return;
        }
        let Some(x) =
            (self.pages.get(i)).and_then(|p| p.coord.export(&self.h.engine, task_id, false))
        else {
            return;
        };
        let terminal = x.snapshot.task.status.is_terminal();
        let rec = self.store.entry(task_id.to_owned()).or_default();
        rec.answered.extend(x.answered);
        if terminal || !rec.terminal {
            rec.snapshot = Some(x.snapshot);
            rec.terminal = terminal;
        }
    }

    /// Pages that lead right now.
    pub(crate) fn leaders(&self) -> Vec<usize> {
        (self.pages.iter().enumerate())
            .filter(|(_, p)| p.alive && !p.hung && p.coord.role_name() == "leader")
            .map(|(i, _)| i)
            .collect()
    }

    /// The statuses and end page `i` saw for its subscription `sub`.
    pub(crate) fn end_of(&self, i: usize, sub: SubId) -> Option<&End> {
        self.pages.get(i)?.events.iter().find_map(|e| match e {
            Event::Done { sub: s, end, .. } if *s == sub => Some(end),
            _ => None,
        })
    }

    /// The task id page `i` learnt for its subscription `sub`.
    pub(crate) fn task_of(&self, i: usize, sub: SubId) -> Option<String> {
        self.pages.get(i)?.events.iter().find_map(|e| match e {
            Event::Status { sub: s, task } if *s == sub => Some(task.task_id.clone()),
            Event::Done {
                sub: s,
                task_id: Some(t),
                ..
            } if *s == sub => Some(t.clone()),
            _ => None,
        })
    }

    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Each task's poll interval on the server (for the spacing check).
    pub(crate) fn interval_of(&self, task_id: &str) -> Option<Millis> {
        self.h.server.tasks.get(task_id).and_then(|t| t.interval)
    }
}

fn choice(d: Dialect) -> DialectChoice {
    match d {
        Dialect::Legacy => DialectChoice::Legacy,
        Dialect::Draft => DialectChoice::Draft,
        Dialect::Modern => DialectChoice::Modern,
    }
}

fn config(d: Dialect) -> Config {
    Config {
        dialect: choice(d),
        ..Config::default()
    }
}
