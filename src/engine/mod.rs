//! Sans-IO task engine: session and dialect negotiation, request ids, task registry, poll
//! scheduler, subscriptions and result cache. No clock, no randomness source, no I/O of its own.
//!
//! The driver feeds [`Input`]s and user operations in, then calls [`Engine::poll_output`] until it
//! returns [`Output::Wake`] and sleeps until then (`u64::MAX`: nothing scheduled, wait for input).
//! The engine talks to a dialect only through [`Codec`](crate::protocol::dialect::Codec); era
//! detection alone names a dialect (it probes with the modern codec's `server/discover`).
//!
//! Behaviour worth knowing (details in each module):
//! - Era negotiation (`Auto`) by evidence: the era in which the server offers tasks
//!   (`negotiate.rs`); forced dialects are verified at connect. An `initialize` answer
//!   declaring `tasks` the draft's way means draft (see `detect.rs`).
//! - Task methods the server lacks are remembered for the session (`absent.rs`).
//! - Draft tasks are named by the engine: a call follows its task from the moment it is sent;
//!   `created` or a first status answer confirms it; `tasks/delete` on request or after delivery.
//! - `tools/call` augmentation follows the cached `tools/list` (see `tools.rs`); a legacy server
//!   advertising `tasks: {}` without `requests` (rmcp 2.0) is taken at its tools' word:
//!   `required`/`optional` tools are augmented.
//! - One status request in flight per task, shared by all its subscribers; cadence per
//!   task age (`cadence.rs`); every subscriber gets exactly one `Done`.
//! - A task ends once: its outcome is fetched once (`tasks/result`, or one last `tasks/get` for
//!   inline outcomes, or the draft original response) and cached until GC.
//! - At createdAt + ttl one last poll decides between the task's real end and `expired`; an
//!   unknown id after a known task is `expired`.
//! - A legacy session answering 404 (or 400 with an id-less error) is re-initialized; every
//!   task stays tracked and the requests it refused are sent again. Sessions dying right after
//!   being made are re-initialized with a growing gap; a task the new session does not know
//!   has `expired`.
//! - An HTTP error whose body is not JSON-RPC fails its request naming the status and quoting
//!   the body; the era probe falls back to `initialize` on it (`unreadable.rs`).
//! - A response stream with event ids that ends before its answer is resumed (`resume.rs`); an
//!   HTTP 401 is sent once more when the credentials can change, then fails as `Unauthorized`,
//!   like a 403 (`unauthorized.rs`).

pub mod api;
mod calls;
mod ids;
#[cfg(feature = "receiver")]
mod receiver;
mod registry;
mod requests;
mod scheduler;
mod session;
pub mod snapshot;
pub mod verdict;
#[cfg(target_arch = "wasm32")]
pub(crate) use registry::known;
pub use scheduler::socket::{first_socket_failed, FirstSocket};

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) use {
    registry::iso8601::{format_millis, parse_millis},
    scheduler::rng::Rng,
};

/// Outputs the queue keeps room for once drained.
const OUT_ROOM: usize = 64;

/// The build has the draft dialect (the `draft` feature). Without it no session speaks the draft,
/// and the engine's code for what only the draft does (tasks the requestor names, `tasks/delete`)
/// is left out of the build: it sits behind `DRAFT &&`.
const DRAFT: bool = cfg!(feature = "draft");

use std::collections::VecDeque;
use std::rc::Rc;

use crate::json::Value;

use crate::json::ToJson;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Task, TaskList};

use crate::collections::idmap::IdMap;
use crate::collections::sorted::SortedSet;
use api::{
    CallOptions, ClientError, Config, End, ErrorKind, Event, Input, InputId, Millis, OpId, Output,
    SubId,
};
use calls::inputs::Inputs;
use calls::tools::Tools;
use calls::Call;
use ids::CallId;
use registry::tasks::Source;
use registry::Registry;
use requests::pending::Requests;
use requests::{Answer, Failure, Purpose};
#[cfg(not(test))]
use scheduler::rng::Rng;
use scheduler::{TaskTimer, Timer, Timers};
use session::quirks::TaskMethod;
use session::Session;

/// What the test harness reads of the engine's state.
#[cfg(test)]
impl Engine {
    /// Task `task` has ended.
    pub(crate) fn task_ended(&self, task: &str) -> bool {
        self.tasks.get(task).is_some_and(|e| e.is_terminal())
    }

    /// The engine knows task `task`'s interval.
    pub(crate) fn knows_interval(&self, task: &str) -> bool {
        (self.tasks.get(task)).is_some_and(|e| e.server_interval().is_some())
    }

    /// The task whose status transmission `key` asks for.
    pub(crate) fn status_asked_by(&self, key: api::SendKey) -> Option<&str> {
        match self.reqs.id_of(key).and_then(|n| self.reqs.purpose(n)) {
            Some(Purpose::Get(task)) => Some(task),
            _ => None,
        }
    }

    /// Nothing is left in memory for tasks, calls, inputs or subscriptions.
    pub(crate) fn holds_nothing(&self) -> bool {
        self.tasks.is_empty()
            && self.calls.is_empty()
            && self.subs.is_empty()
            && self.inputs.len() == 0
    }
}

/// What a subscription waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A request not yet answered (it may still become a task).
    Call(CallId),
    /// A task in the registry (its id shared with the registry).
    Task(Rc<str>),
}

/// The engine. One engine talks to one server.
pub struct Engine {
    cfg: Config,
    rng: Rng,
    out: VecDeque<Output>,
    closed: bool,
    session: Session,
    reqs: Requests,
    /// The browser's connections to the server, where they are few (HTTP/1.1).
    pool: requests::pool::Pool,
    /// Whether an assumed HTTP/1.1 link multiplexes (see `multiplex.rs`).
    probe: requests::multiplex::Probe,
    tasks: Registry,
    subs: IdMap<SubId, Target>,
    calls: IdMap<CallId, Box<Call>>,
    inputs: Inputs,
    tools: Tools,
    listen: calls::listen::Listen,
    /// The legacy GET listening stream.
    standalone: requests::standalone::Standalone,
    /// The WebSocket link's reconnects.
    socket: scheduler::socket::Socket,
    blocking: registry::results::Blocking,
    /// Status pushes that came before the answer naming their task.
    early: registry::early::EarlyPushes,
    /// Tasks this client runs for the server.
    #[cfg(feature = "receiver")]
    hosted: receiver::Hosted,
    timers: Timers,
    visible: bool,
    last_catch_up: Option<Millis>,
    next_sub: u64,
    next_op: u64,
    next_call: CallId,
}

impl Engine {
    /// A new engine; it starts connecting at once (its first outputs are the probe or `initialize`).
    pub fn new(config: Config, seed: u64, now: Millis) -> Engine {
        let mut engine = Engine::idle(config, Rng::new(seed));
        engine.connect(now);
        engine
    }

    /// An engine with no session and nothing queued: [`Engine::new`] starts connecting it,
    /// [`Engine::resume`] continues a session in it.
    fn idle(config: Config, rng: Rng) -> Engine {
        let session = Session::new(&config);
        let pool = requests::pool::Pool::new(config.link.connections());
        Engine {
            cfg: config,
            rng,
            out: VecDeque::new(),
            closed: false,
            session,
            reqs: Requests::default(),
            pool,
            probe: requests::multiplex::Probe::default(),
            tasks: Registry::new(),
            subs: IdMap::default(),
            calls: IdMap::default(),
            inputs: Inputs::default(),
            tools: Tools::default(),
            listen: calls::listen::Listen::default(),
            early: registry::early::EarlyPushes::default(),
            standalone: requests::standalone::Standalone::default(),
            socket: scheduler::socket::Socket::default(),
            blocking: registry::results::Blocking::default(),
            #[cfg(feature = "receiver")]
            hosted: receiver::Hosted::default(),
            timers: Timers::default(),
            visible: true,
            last_catch_up: None,
            next_sub: 1,
            next_op: 1,
            next_call: CallId::FIRST,
        }
    }

    /// Feeds one thing that happened.
    pub fn handle_input(&mut self, now: Millis, input: Input) {
        if self.closed {
            return;
        }
        match input {
            Input::Message { via, body } => self.on_message(now, via, &body),
            Input::Head {
                key,
                status,
                session_id,
                retry_after_ms,
                www_authenticate,
            } => self.on_head(
                now,
                key,
                status,
                session_id,
                retry_after_ms,
                www_authenticate,
            ),
            Input::Cursor {
                key,
                last_event_id,
                retry_ms,
            } => self.on_cursor(key, last_event_id, retry_ms),
            Input::Ended { key } => self.on_ended(now, key, None),
            Input::Failed { key, error } => self.on_ended(now, key, Some(error)),
            Input::Connection { up } => self.on_connection(now, up),
            Input::Visibility { visible } => {
                self.visible = visible;
                if visible {
                    self.catch_up(now);
                }
            }
            Input::Online => self.catch_up(now),
        }
    }

    /// The next thing to do: run due timers, then hand out queued outputs; `Wake` when idle.
    pub fn poll_output(&mut self, now: Millis) -> Output {
        if self.out.is_empty() && !self.closed {
            self.run_timers(now);
        }
        if self.session.draining() && !self.closed {
            self.drain_held(now);
        }
        if self.blocking.freed() && !self.closed {
            self.fill_result_slots(now);
        }
        match self.next_out(now) {
            Some(o) => o,
            None => {
                // Drained: give back the room a burst (thousands of calls at once) took.
                self.out.shrink_to(OUT_ROOM);
                Output::Wake(if self.closed {
                    u64::MAX
                } else {
                    self.next_wake().unwrap_or(u64::MAX)
                })
            }
        }
    }

    /// Calls a tool; augmented with a task per its `taskSupport` and `opts.augment`.
    pub fn call_tool(
        &mut self,
        now: Millis,
        name: &str,
        arguments: Value,
        opts: CallOptions,
    ) -> SubId {
        let mut params = crate::json::Map::new();
        params.insert("name".into(), Value::from(name));
        params.insert("arguments".into(), arguments);
        self.request(now, "tools/call", Value::Object(params), opts)
    }

    /// Follows a task by id (e.g. after a reload); shares polling with every other subscriber.
    pub fn watch(&mut self, now: Millis, task_id: &str) -> SubId {
        if !self.closed {
            self.tasks.entry(task_id);
        }
        let id = self.tasks.id(task_id).unwrap_or_else(|| task_id.into());
        let sub = self.new_sub(Target::Task(id));
        if self.closed {
            self.done(sub, Some(task_id.to_owned()), closed_end());
            return sub;
        }
        self.subscribe(now, task_id, sub);
        if let Some(error) = self.session.status_unavailable() {
            self.no_status(now, task_id, error);
        }
        sub
    }

    /// Stops waiting: `Done{Aborted}` unless already done. Nothing is sent to the server.
    pub fn unsubscribe(&mut self, now: Millis, sub: SubId) {
        let Some(target) = self.subs.get(&sub).cloned() else {
            return;
        };
        match target {
            Target::Call(c) => {
                if let Some(call) = self.calls.get_mut(&c) {
                    call.abandon();
                }
                self.inputs.drop_call(c);
                self.done(sub, None, End::Aborted);
            }
            Target::Task(t) => {
                self.done(sub, Some(String::from(&*t)), End::Aborted);
                self.leave(now, &t, sub);
            }
        }
    }

    /// Asks the server to cancel a task (`tasks/cancel`, or the dialect's equivalent).
    pub fn cancel(&mut self, now: Millis, task_id: &str) -> OpId {
        let op = self.new_op();
        let task_id = task_id.to_owned();
        self.dispatch_op(now, op, Purpose::Cancel { op, task_id })
    }

    /// Deletes a finished task on the server (draft `tasks/delete`) and forgets it here. Other
    /// dialects have no delete: the reply is an `InvalidInput` error and nothing is sent.
    pub fn delete_task(&mut self, now: Millis, task_id: &str) -> OpId {
        let op = self.new_op();
        let task_id = task_id.to_owned();
        self.dispatch_op(
            now,
            op,
            Purpose::Delete {
                op: Some(op),
                task_id,
            },
        )
    }

    /// Answers an input request surfaced as [`Event::Input`].
    pub fn answer_input(&mut self, now: Millis, id: InputId, answer: Result<Value, RpcError>) {
        if !self.closed {
            self.answer(now, id, answer);
        }
    }

    /// One page of the server's task list (`{tasks, nextCursor?}` in the reply).
    pub fn list_tasks(&mut self, now: Millis, cursor: Option<&str>) -> OpId {
        let op = self.new_op();
        let cursor = cursor.map(str::to_owned);
        self.dispatch_op(now, op, Purpose::List { op, cursor })
    }

    /// The server's tools, all pages (`{tools}` in the reply); refreshes the taskSupport cache.
    pub fn list_tools(&mut self, now: Millis) -> OpId {
        let op = self.new_op();
        if self.closed {
            self.reply(op, Err(closed_error()));
        } else {
            self.tools.wait_op(op);
            self.fetch_tools(now, true);
        }
        op
    }

    /// The latest snapshot of a task the engine tracks.
    pub fn task(&self, task_id: &str) -> Option<Task> {
        Some(self.tasks.get(task_id)?.snapshot.as_ref()?.task(task_id))
    }

    /// The id and latest snapshot of a task the engine tracks, as the engine keeps them (shared,
    /// not copied: a host showing them keeps no copy of its own).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn known(&self, task_id: &str) -> Option<(Rc<str>, Rc<registry::known::Known>)> {
        let snapshot = self.tasks.get(task_id)?.snapshot.clone()?;
        Some((self.tasks.id(task_id)?, snapshot))
    }

    /// The negotiated dialect, once known.
    pub fn dialect(&self) -> Option<Dialect> {
        self.session.dialect()
    }

    /// The answer to the caller's `cancel`: replied as is; the task's status decides its end.
    fn on_cancel(&mut self, now: Millis, op: OpId, task_id: &str, res: Answer) {
        match res {
            Ok(v) => {
                let snapshot = self
                    .session
                    .codec_any()
                    .and_then(|c| c.parse_get(v.clone()).ok());
                self.reply(op, Ok(v));
                if let Some(task) = snapshot.filter(|t| t.task_id == task_id) {
                    if self.tasks.contains_key(task_id) {
                        self.apply_snapshot(now, task_id, task, Source::Other);
                    }
                }
            }
            Err(f) => self.fail_op(op, &f, TaskMethod::Cancel),
        }
        // Whatever the answer, the task's status decides its end (a result that came while the
        // cancel was on its way waits for it).
        self.poll_soon(now, task_id);
    }

    /// Answers `op` with its request's failure; a task method the server lacks is remembered.
    fn fail_op(&mut self, op: OpId, f: &Failure, method: TaskMethod) {
        let error = if self.session.method_missing(f) {
            self.session.remember_absent(method)
        } else {
            f.client_error()
        };
        self.reply(op, Err(error));
    }

    /// The answer to the caller's `list_tasks`: one page of the server's tasks.
    fn on_list(&mut self, op: OpId, res: Answer) {
        let page = match res {
            Ok(v) => self.session.codec_any().map(|c| c.parse_list(v)),
            Err(f) => return self.fail_op(op, &f, TaskMethod::List),
        };
        match page {
            Some(Ok((tasks, next_cursor))) => {
                let page = TaskList { tasks, next_cursor };
                self.reply(op, Ok(page.to_json()));
            }
            Some(Err(e)) => self.reply(op, Err(e.into())),
            None => self.reply(op, Err(ClientError::new(ErrorKind::Protocol, "no dialect"))),
        }
    }

    /// The error for a delete the session's dialect cannot make.
    fn no_delete(&self) -> ClientError {
        let dialect = match self.session.dialect() {
            Some(Dialect::Legacy) => "legacy",
            Some(Dialect::Modern) => "modern",
            Some(Dialect::Draft) => "draft",
            None => "negotiated",
        };
        ClientError::new(
            ErrorKind::InvalidInput,
            [
                "the ",
                dialect,
                " dialect has no tasks/delete (only the SEP-1686 draft deletes tasks)",
            ]
            .concat(),
        )
    }

    /// Whether the session's dialect can delete tasks (the session is ready).
    fn deletes(&self) -> bool {
        DRAFT
            && self
                .session
                .ready_codec()
                .is_some_and(|c| c.build_delete(&self.session.info(), "").is_some())
    }

    /// A finished task's subscribers got their `end`: delete it when a caller asked to and the
    /// server knows it (a task the server never confirmed is not there to delete).
    fn delete_when_delivered(&mut self, now: Millis, task_id: &str, end: &End) {
        let deletes = self.deletes();
        let Some(entry) = self.tasks.get_mut(task_id) else {
            return;
        };
        let delivered = matches!(end, End::Finished { .. });
        if !(deletes && entry.delete_on_done && entry.phase.confirmed() && delivered) {
            return;
        }
        entry.delete_on_done = false;
        let task_id = task_id.to_owned();
        self.dispatch(now, Purpose::Delete { op: None, task_id });
    }

    /// The answer to a `tasks/delete` (draft), sent on the caller's request or once a task's
    /// result was delivered to a caller who asked for that (`CallOptions::delete_on_done`, or
    /// `Config::delete_on_done` for every task). Dialects without delete refuse a request or a
    /// call option before anything is sent.
    fn on_delete(&mut self, now: Millis, op: Option<OpId>, task_id: &str, res: Answer) {
        match (res, op) {
            (Ok(v), op) => {
                // Gone on the server: a terminal task nobody follows is forgotten here too.
                let idle = self
                    .tasks
                    .get(task_id)
                    .is_some_and(|e| e.subs.is_empty() && e.is_terminal());
                if idle {
                    self.on_gc(now, task_id);
                }
                if let Some(op) = op {
                    self.reply(op, Ok(v));
                }
            }
            (Err(f), Some(op)) => self.reply(op, Err(f.client_error())),
            (Err(f), None) => self.warn(Some(task_id.to_owned()), f.client_error()),
        }
    }

    /// Ends everything: each live subscription gets `Done{Failed: Closed}`, each open operation a
    /// `Closed` reply; a legacy HTTP session is ended (`DELETE`).
    pub fn close(&mut self, _now: Millis) {
        self.shut(true);
    }

    /// [`Engine::close`], ending the server session too when `end_session`.
    fn shut(&mut self, end_session: bool) {
        if self.closed {
            return;
        }
        for (sub, target) in std::mem::take(&mut self.subs) {
            let task_id = match target {
                Target::Task(t) => Some(String::from(&*t)),
                Target::Call(_) => None,
            };
            self.emit(Event::Done {
                sub,
                task_id,
                end: closed_end(),
            });
        }
        for op in self.open_ops() {
            self.reply(op, Err(closed_error()));
        }
        (self.standalone).stop(&mut self.pool, &mut self.timers, &mut self.out);
        if let Some(headers) = self.session.end_session_headers().filter(|_| end_session) {
            self.out.push_back(Output::EndSession { headers });
        }
        self.closed = true;
        self.timers.clear_all();
        self.tasks.clear();
        self.calls.clear();
        self.inputs = Inputs::default();
        self.reqs = Requests::default();
        self.blocking = registry::results::Blocking::default();
        #[cfg(feature = "receiver")]
        {
            self.hosted = receiver::Hosted::default();
        }
        self.session.clear_waiting();
        self.pool.backlog.clear();
    }

    // ----- shared helpers -----

    /// How polls are paced now.
    fn pace(&self) -> registry::pace::Pace {
        registry::pace::Pace::new(self.cfg.cadence, self.visible)
    }

    fn emit(&mut self, event: Event) {
        self.out.push_back(Output::Event(event));
    }

    fn warn(&mut self, task_id: Option<String>, error: ClientError) {
        self.emit(Event::Warning { task_id, error });
    }

    fn reply(&mut self, op: OpId, result: Result<Value, ClientError>) {
        self.emit(Event::Reply { op, result });
    }

    /// Ends a subscription (exactly once: the sub is forgotten here).
    fn done(&mut self, sub: SubId, task_id: Option<String>, end: End) {
        if self.subs.remove(&sub).is_some() {
            self.emit(Event::Done { sub, task_id, end });
        }
    }

    fn new_sub(&mut self, target: Target) -> SubId {
        let sub = SubId(self.next_sub);
        self.next_sub += 1;
        self.subs.insert(sub, target);
        sub
    }

    fn new_op(&mut self) -> OpId {
        let op = OpId(self.next_op);
        self.next_op += 1;
        op
    }

    /// Dispatches `purpose` for operation `op`, or answers `op` with the closed error at once.
    fn dispatch_op(&mut self, now: Millis, op: OpId, purpose: Purpose) -> OpId {
        if self.closed {
            self.reply(op, Err(closed_error()));
        } else {
            self.dispatch(now, purpose);
        }
        op
    }

    /// Operations still waiting for a reply (queued or in flight), each once.
    fn open_ops(&self) -> SortedSet<OpId> {
        let mut ops = SortedSet::default();
        for p in self.reqs.purposes().chain(self.session.waiting()) {
            if let Some(op) = p.op() {
                ops.insert(op);
            }
        }
        for op in self.tools.ops() {
            ops.insert(*op);
        }
        ops
    }

    /// When the engine next needs to run: its earliest timer, request timeout or hosted expiry.
    fn next_wake(&mut self) -> Option<Millis> {
        let timer = self.timers.next();
        let drained = self.pool.next_expiry();
        #[cfg(feature = "receiver")]
        let hosted = self.hosted.next_expiry();
        #[cfg(not(feature = "receiver"))]
        let hosted = None;
        // The earliest of them (an absent one counts as the largest time).
        let times = [
            timer,
            self.reqs.next_timeout(),
            hosted,
            drained,
            self.probe_due(),
        ];
        let earliest =
            (times.into_iter()).fold(Millis::MAX, |a, t| a.min(t.unwrap_or(Millis::MAX)));
        (earliest != Millis::MAX).then_some(earliest)
    }

    fn run_timers(&mut self, now: Millis) {
        self.pool_expire(now);
        self.probe_tick(now);
        while let Some(n) = self.reqs.pop_timeout(now) {
            self.on_timeout(now, n);
        }
        (self.tasks).respace_after_leap(now, self.visible, (&mut self.rng, &mut self.timers));
        #[cfg(feature = "receiver")]
        self.with_hosted(|hosted, fx| hosted.expire_due(now, fx));
        while let Some(timer) = self.timers.pop_due(now) {
            match timer {
                Timer::Task(kind, slot) => {
                    let Some(t) = self.tasks.id_at(slot).map(str::to_owned) else {
                        continue;
                    };
                    match kind {
                        TaskTimer::Poll => self.on_poll_timer(now, t),
                        TaskTimer::Deadline => self.on_deadline(now, &t),
                        TaskTimer::Gc => self.on_gc(now, &t),
                        TaskTimer::Result => self.on_result_timer(now, &t),
                    }
                }
                Timer::Connect => self.connect(now),
                Timer::Listen => self.send_listen(now),
                Timer::Standalone => {
                    self.reopen_standalone();
                }
                Timer::Reconnect => self.out.push_back(Output::Reconnect),
                Timer::Hold => self.release_hold(now),
                Timer::Initialized => self.initialized_answered(None),
                Timer::Tools => self.retry_tools(now),
                Timer::Resume(n) => self.resume_stream(n),
            }
        }
    }
}

fn closed_error() -> ClientError {
    ClientError::new(ErrorKind::Closed, "the client was closed")
}

fn closed_end() -> End {
    End::Failed {
        error: closed_error(),
    }
}
