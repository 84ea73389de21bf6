//! Where one task's `tasks/result` fetch stands: idle, or busy (queued for a slot or the session,
//! or in flight). A request id is only known while busy; a held request raced by a fresh one (see
//! `race.rs`) and the grace before that race only while a request is held.

use super::api::Millis;
use super::ids::ReqId;
use crate::protocol::jsonrpc::RpcError;

/// One task's result fetch.
#[derive(Debug, Default)]
pub(crate) struct ResultFetch {
    /// Queued or in flight.
    busy: bool,
    /// JSON-RPC id of the `tasks/result` in flight (the latest one sent).
    req: Option<ReqId>,
    /// The held `tasks/result` a fresh one races after a pushed end.
    race: Option<ReqId>,
    /// When the `tasks/result` in flight went out.
    sent: Option<Millis>,
    /// A push said the task ended while its `tasks/result` was held: the stream's grace runs
    /// before a fresh one races it.
    grace: bool,
    /// Its held `tasks/result` waits for its first poll's time: a push before it means the
    /// session's pushes bring the end (see `pushed.rs`).
    pub(crate) hold_deferred: bool,
    /// An error a `tasks/result` answered while the task looked running, and whether it came
    /// soon after the request: the next poll weighs it (see `results.rs`).
    /// Boxed: rare, and every task has a fetch.
    early_error: Option<Box<(RpcError, bool)>>,
    /// Failed result fetches in a row (retry backoff).
    errors: u32,
}

impl ResultFetch {
    pub(crate) fn is_idle(&self) -> bool {
        !self.busy
    }

    /// Starts a fetch: `true` when it was idle.
    pub(crate) fn start(&mut self) -> bool {
        !std::mem::replace(&mut self.busy, true)
    }

    /// The fetch is over (answered, closed, not wanted): no request, no race, no grace.
    pub(crate) fn stop(&mut self) {
        self.busy = false;
        self.req = None;
        self.race = None;
        self.grace = false;
    }

    /// Request `id` went out at `now`.
    pub(crate) fn sent(&mut self, id: ReqId, now: Millis) {
        self.busy = true;
        self.req = Some(id);
        self.sent = Some(now);
    }

    /// Request `n` is over: the fetch waits for no answer to it.
    pub(crate) fn ended(&mut self, n: ReqId) {
        if self.req == Some(n) {
            self.req = None;
        }
    }

    /// The `tasks/result` in flight.
    pub(crate) fn req(&self) -> Option<ReqId> {
        self.req
    }

    /// When the `tasks/result` in flight went out.
    pub(crate) fn sent_at(&self) -> Option<Millis> {
        self.sent
    }

    /// The held request raced by a fresh one.
    pub(crate) fn race(&self) -> Option<ReqId> {
        self.race
    }

    /// The held request is raced from now on: its id.
    pub(crate) fn start_race(&mut self) -> Option<ReqId> {
        self.grace = false;
        self.race = self.req;
        self.race
    }

    /// The race is decided.
    pub(crate) fn end_race(&mut self) {
        self.race = None;
    }

    /// A grace starts for the held request: `false` when none is held.
    pub(crate) fn start_grace(&mut self) -> bool {
        self.grace = self.req.is_some();
        self.grace
    }

    /// Ends the grace: whether it ran with the request still held.
    pub(crate) fn take_grace(&mut self) -> bool {
        std::mem::take(&mut self.grace) && self.req.is_some()
    }

    pub(crate) fn set_early_error(&mut self, error: RpcError, soon: bool) {
        self.early_error = Some(Box::new((error, soon)));
    }

    pub(crate) fn take_early_error(&mut self) -> Option<(RpcError, bool)> {
        self.early_error.take().map(|e| *e)
    }

    /// A fetch failed: the failures in a row.
    pub(crate) fn failed(&mut self) -> u32 {
        self.errors = self.errors.saturating_add(1);
        self.errors
    }

    /// A fetch brought the result.
    pub(crate) fn succeeded(&mut self) {
        self.errors = 0;
    }
}
