//! Where one task's `tasks/result` fetch stands: idle, or busy (queued for a slot or the session,
//! or in flight). A request id is only known while busy; a held request raced by a fresh one (see
//! `race.rs`) and the grace before that race only while a request is held.

use crate::engine::api::Millis;
use crate::engine::ids::ReqId;
use crate::protocol::jsonrpc::RpcError;

/// One task's result fetch. Most tracked tasks run with no fetch at all, or only wait for a slot:
/// its state is boxed, allocated by the first request and given back once it holds nothing any
/// more.
#[derive(Debug, Default)]
pub(crate) struct ResultFetch {
    /// Queued or in flight.
    busy: bool,
    state: Option<Box<Fetch>>,
    /// Its held `tasks/result` waits for its first poll's time: a push before it means the
    /// session's pushes bring the end (see `pushed.rs`).
    pub(super) hold_deferred: bool,
}

#[derive(Debug, Default, PartialEq)]
struct Fetch {
    /// JSON-RPC id of the `tasks/result` in flight (the latest one sent).
    req: Option<ReqId>,
    /// The held `tasks/result` a fresh one races after a pushed end.
    race: Option<ReqId>,
    /// When the `tasks/result` in flight went out.
    sent: Option<Millis>,
    /// A push said the task ended while its `tasks/result` was held: the stream's grace runs
    /// before a fresh one races it.
    grace: bool,
    /// An error a `tasks/result` answered while the task looked running, and whether it came
    /// soon after the request: the next poll weighs it (see `results.rs`).
    early_error: Option<(RpcError, bool)>,
    /// Failed result fetches in a row (retry backoff).
    errors: u32,
    /// Holds cut on the way since the last result (see `cut.rs`).
    cuts: u32,
}

/// What an idle fetch with no history holds.
static IDLE: Fetch = Fetch {
    req: None,
    race: None,
    sent: None,
    grace: false,
    early_error: None,
    errors: 0,
    cuts: 0,
};

impl ResultFetch {
    fn get(&self) -> &Fetch {
        self.state.as_deref().unwrap_or(&IDLE)
    }

    fn get_mut(&mut self) -> &mut Fetch {
        self.state.get_or_insert_with(Box::default)
    }

    /// Gives the box back once it holds nothing.
    fn tidy(&mut self) {
        if self.state.as_deref() == Some(&IDLE) {
            self.state = None;
        }
    }

    pub(super) fn is_idle(&self) -> bool {
        !self.busy
    }

    /// Starts a fetch: `true` when it was idle.
    pub(crate) fn start(&mut self) -> bool {
        !std::mem::replace(&mut self.busy, true)
    }

    /// The fetch is over (answered, closed, not wanted): no request, no race, no grace.
    pub(super) fn stop(&mut self) {
        self.busy = false;
        if let Some(f) = self.state.as_deref_mut() {
            f.req = None;
            f.race = None;
            f.grace = false;
        }
        self.tidy();
    }

    /// Request `id` went out at `now`.
    pub(crate) fn sent(&mut self, id: ReqId, now: Millis) {
        self.busy = true;
        let f = self.get_mut();
        f.req = Some(id);
        f.sent = Some(now);
    }

    /// Request `n` is over: the fetch waits for no answer to it.
    pub(super) fn ended(&mut self, n: ReqId) {
        if let Some(f) = self.state.as_deref_mut().filter(|f| f.req == Some(n)) {
            f.req = None;
        }
    }

    /// The `tasks/result` in flight.
    pub(crate) fn req(&self) -> Option<ReqId> {
        self.get().req
    }

    /// When the `tasks/result` in flight went out.
    pub(crate) fn sent_at(&self) -> Option<Millis> {
        self.get().sent
    }

    /// The held request raced by a fresh one.
    pub(super) fn race(&self) -> Option<ReqId> {
        self.get().race
    }

    /// The held request is raced from now on: its id.
    pub(super) fn start_race(&mut self) -> Option<ReqId> {
        let f = self.get_mut();
        f.grace = false;
        f.race = f.req;
        f.race
    }

    /// The race is decided.
    pub(super) fn end_race(&mut self) {
        if let Some(f) = self.state.as_deref_mut() {
            f.race = None;
        }
    }

    /// A grace starts for the held request: `false` when none is held.
    pub(super) fn start_grace(&mut self) -> bool {
        let held = self.get().req.is_some();
        if let Some(f) = self.state.as_deref_mut() {
            f.grace = held;
        }
        held
    }

    /// Ends the grace: whether it ran with the request still held.
    pub(super) fn take_grace(&mut self) -> bool {
        self.state
            .as_deref_mut()
            .is_some_and(|f| std::mem::take(&mut f.grace) && f.req.is_some())
    }

    pub(super) fn set_early_error(&mut self, error: RpcError, soon: bool) {
        self.get_mut().early_error = Some((error, soon));
    }

    pub(super) fn take_early_error(&mut self) -> Option<(RpcError, bool)> {
        let error = self.state.as_deref_mut()?.early_error.take();
        self.tidy();
        error
    }

    /// A fetch failed: the failures in a row.
    pub(super) fn failed(&mut self) -> u32 {
        let f = self.get_mut();
        f.errors = f.errors.saturating_add(1);
        f.errors
    }

    /// A hold was cut on the way: the cuts since the last result.
    pub(super) fn cut(&mut self) -> u32 {
        let f = self.get_mut();
        f.cuts = f.cuts.saturating_add(1);
        f.cuts
    }

    /// A fetch brought the result.
    pub(super) fn succeeded(&mut self) {
        if let Some(f) = self.state.as_deref_mut() {
            f.errors = 0;
            f.cuts = 0;
        }
        self.tidy();
    }
}
