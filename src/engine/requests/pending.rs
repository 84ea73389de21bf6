//! The requests awaiting their answers: id and key allocation, each pending request with its
//! transmission key and timeout, and the one-way input answers whose delivery is unconfirmed.

use super::resume::{resume_delay, StreamPos, MAX_RESUMES};
use crate::collections::fifo::Fifo;
use crate::collections::idmap::IdMap;
use crate::engine::api::{Millis, Output, SendKey};
use crate::engine::ids::ReqId;
use crate::engine::requests::Purpose;
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::{Timer, Timers};
use crate::engine::session::absent::METHOD_NOT_FOUND;
use crate::protocol::find;
use crate::protocol::jsonrpc::{Id, RpcError};

/// A request awaiting its answer.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) purpose: Purpose,
    pub(crate) key: SendKey,
    /// Session generation it was sent in.
    pub(super) epoch: u64,
    /// Sent with a session id (a 404 then means the session is gone).
    pub(super) sessioned: bool,
    pub(super) http_status: Option<u16>,
    pub(super) retry_after: Option<Millis>,
    /// `Mcp-Session-Id` from the response head.
    pub(super) session_id: Option<String>,
    /// When it times out (`None`: never, or not yet: see `waits`).
    timeout_at: Option<Millis>,
    /// It waits for a connection in the browser's queue: its timeout starts once it gets one.
    waits: bool,
    /// Where its SSE response stream is, for resuming it.
    pub(crate) stream: StreamPos,
    /// Why it was sent again already.
    pub(crate) resent: Resent,
    /// Answered HTTP 202 with no response: the response may still come on another stream.
    pub(super) accepted: bool,
}

impl Pending {
    /// A request for `purpose` sent on `key` in session generation `epoch` (`sessioned`: with a
    /// session id); nothing heard yet.
    fn new(purpose: Purpose, key: SendKey, epoch: u64, sessioned: bool) -> Pending {
        Pending {
            purpose,
            key,
            epoch,
            sessioned,
            http_status: None,
            retry_after: None,
            session_id: None,
            timeout_at: None,
            waits: false,
            stream: StreamPos::default(),
            resent: Resent::default(),
            accepted: false,
        }
    }

    /// An `error` answering it means its session is gone: HTTP 404 on a request that carried a
    /// session id, unless the error says the method is missing.
    pub(super) fn session_gone(&self, error: &RpcError) -> bool {
        self.sessioned && self.http_status == Some(404) && error.code != METHOD_NOT_FOUND
    }

    /// An id-less `error` on its stream means its session is gone: on a request that carried a
    /// session id, a 404, or a 400 saying the session is unknown (unless the error says the
    /// method is missing).
    pub(super) fn refused_for_session(&self, error: &RpcError) -> bool {
        self.sessioned
            && error.code != METHOD_NOT_FOUND
            && match self.http_status {
                Some(404) => true,
                Some(400) => names_dead_session(&error.message),
                _ => false,
            }
    }
}

/// An error message saying the request's session is unknown (servers answer a dead session with
/// 400 as well as 404: "No valid session ID provided", "Server not initialized"…).
fn names_dead_session(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    find(&m, "session").is_some() || find(&m, "not initialized").is_some()
}

/// Why a request is a resend: after an HTTP 401 (a second one fails it), after a DPoP nonce
/// challenge (one more is not honoured).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Resent {
    pub(crate) reauthorized: bool,
    pub(crate) nonce: bool,
}

/// What a transmission carries.
#[derive(Debug)]
enum Carried {
    /// A pending request.
    Request(ReqId),
    /// A one-way input answer about a task (if known), its delivery unconfirmed.
    Answer(Option<String>),
}

/// The requests awaiting answers: id and key allocation, the pending map with its transmission
/// keys (a pending request's current key always maps back to it), timeouts, and the one-way
/// input answers whose delivery is unconfirmed.
#[derive(Debug)]
pub(crate) struct Requests {
    next_id: ReqId,
    next_key: u64,
    pending: IdMap<ReqId, Box<Pending>>,
    /// What each live transmission carries: a pending request, or a one-way input answer whose
    /// delivery is still unconfirmed.
    keys: IdMap<SendKey, Carried>,
    /// Request timeouts in the order they were set (a constant delay, so in time order too);
    /// entries of answered requests are skipped when reached.
    timeouts: Fifo<(Millis, ReqId)>,
    /// The next request tracked is a resend after an HTTP 401, and why.
    resending: Resent,
}

impl Default for Requests {
    fn default() -> Self {
        Self {
            next_id: ReqId::FIRST,
            next_key: 1,
            pending: IdMap::default(),
            keys: IdMap::default(),
            timeouts: Fifo::default(),
            resending: Resent::default(),
        }
    }
}

impl Requests {
    /// Pending request `n`.
    pub(super) fn get(&self, n: ReqId) -> Option<&Pending> {
        self.pending.get(&n).map(Box::as_ref)
    }

    /// Pending request `n`, to update what its answer so far said.
    pub(crate) fn get_mut(&mut self, n: ReqId) -> Option<&mut Pending> {
        self.pending.get_mut(&n).map(Box::as_mut)
    }

    /// Requests awaiting their answers.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether request `n` awaits its answer.
    pub(crate) fn is_pending(&self, n: ReqId) -> bool {
        self.pending.contains_key(&n)
    }

    /// The pending request a response's JSON-RPC `id` answers.
    pub(crate) fn route(&self, id: &Id) -> Option<ReqId> {
        let n = ReqId(
            u64::try_from(match id {
                Id::Number(n) => *n,
                Id::String(s) => crate::json::parse_i64(s)?,
            })
            .ok()?,
        );
        self.is_pending(n).then_some(n)
    }

    /// A message other than the answer arrived on transmission `key`'s stream: a finished task's
    /// `tasks/result` that still talks is not stalled (its timeout runs `after` from `now`).
    pub(super) fn talks(&mut self, key: SendKey, now: Millis, after: Millis) {
        let Some(n) = self.id_of(key) else {
            return;
        };
        let result = matches!(self.purpose(n), Some(Purpose::Result(_)));
        if result && self.has_timeout(n) {
            self.arm_timeout(n, now.saturating_add(after));
        }
    }

    /// The task whose `tasks/result` transmission `key` carries.
    pub(crate) fn result_task(&self, key: SendKey) -> Option<&String> {
        match self.purpose(self.id_of(key)?)? {
            Purpose::Result(t) => Some(t),
            _ => None,
        }
    }

    /// What request `n` is for, while it is pending.
    pub(crate) fn purpose(&self, n: ReqId) -> Option<&Purpose> {
        self.pending.get(&n).map(|p| &p.purpose)
    }

    /// The pending request transmission `key` carries.
    pub(crate) fn id_of(&self, key: SendKey) -> Option<ReqId> {
        match self.keys.get(&key)? {
            Carried::Request(n) => Some(*n),
            Carried::Answer(_) => None,
        }
    }

    /// Every pending request's purpose.
    pub(crate) fn purposes(&self) -> impl Iterator<Item = &Purpose> {
        self.pending.values().map(|p| &p.purpose)
    }

    /// The pending request ids, in allocation order.
    pub(crate) fn ids(&self) -> Vec<ReqId> {
        let mut ids = Vec::with_capacity(self.pending.len());
        ids.extend(self.pending.keys());
        ids
    }

    /// Takes request `n` out (answered, failed or given up), with its transmission key.
    pub(super) fn remove(&mut self, n: ReqId) -> Option<Box<Pending>> {
        let p = self.pending.remove(&n)?;
        self.keys.remove(&p.key);
        Some(p)
    }

    /// Transmission `key` is over (its stream ended or was refused): it carries nothing any
    /// more. Returns the request it carried, which stays pending.
    pub(crate) fn end_key(&mut self, key: SendKey) -> Option<ReqId> {
        let n = self.id_of(key)?;
        self.keys.remove(&key);
        Some(n)
    }

    /// Request `n` goes on in a new transmission, a `GET` resuming its stream from the last
    /// event id (with the session's `headers`): its output. `None` when the request is over or
    /// its stream had no event id.
    pub(crate) fn resume(&mut self, n: ReqId, headers: Vec<(String, String)>) -> Option<Output> {
        let key = self.key();
        let p = self.pending.get_mut(&n)?;
        let last_event_id = p.stream.last_event_id.clone()?;
        p.key = key;
        p.stream.resumed = true;
        self.keys.insert(key, Carried::Request(n));
        Some(Output::Resume {
            key,
            headers,
            last_event_id,
        })
    }

    /// A one-way input answer about `task_id` went out on `key`; its delivery is unconfirmed.
    pub(crate) fn answer_sent(&mut self, key: SendKey, task_id: Option<String>) {
        self.keys.insert(key, Carried::Answer(task_id));
    }

    /// The input answer on `key` is delivered, or failed: returns the task it was about.
    pub(super) fn answer_over(&mut self, key: SendKey) -> Option<Option<String>> {
        let Carried::Answer(task) = self.keys.get_mut(&key)? else {
            return None;
        };
        let task = task.take();
        self.keys.remove(&key);
        Some(task)
    }

    /// Registers request `id` for `purpose`, sent on `key` in `session` (its generation, and
    /// whether it carried a session id), as pending, timing out at `timeout_at` (`None`: never);
    /// marked as a resend after an HTTP 401 when one is under way.
    pub(super) fn open(
        &mut self,
        id: ReqId,
        purpose: Purpose,
        key: SendKey,
        session: (u64, bool),
        timeout_at: Option<Millis>,
    ) {
        let mut p = Pending::new(purpose, key, session.0, session.1);
        p.timeout_at = timeout_at;
        if let Some(at) = timeout_at {
            self.timeouts.push_back((at, id));
        }
        p.resent = std::mem::take(&mut self.resending);
        self.keys.insert(p.key, Carried::Request(id));
        self.pending.insert(id, Box::new(p));
    }

    /// Tracks what `send` does meanwhile as a resend after an HTTP 401 for `resending`'s reasons.
    pub(crate) fn set_resending(&mut self, resending: Resent) {
        self.resending = resending;
    }

    /// The request times out at `at` (unless answered or re-armed before; once it has a
    /// connection, if it waits for one). `at` must be `now` plus the request timeout, which keeps
    /// the queue in time order.
    pub(crate) fn arm_timeout(&mut self, n: ReqId, at: Millis) {
        if let Some(p) = self.pending.get_mut(&n) {
            if p.waits {
                return;
            }
            p.timeout_at = Some(at);
            self.timeouts.push_back((at, n));
        }
    }

    /// Whether the request has a timeout armed (or one waiting for its connection).
    pub(crate) fn has_timeout(&self, n: ReqId) -> bool {
        self.pending
            .get(&n)
            .is_some_and(|p| p.timeout_at.is_some() || p.waits)
    }

    /// The request no longer times out (it became long-running).
    pub(crate) fn no_timeout(&mut self, n: ReqId) {
        if let Some(p) = self.pending.get_mut(&n) {
            p.timeout_at = None;
            p.waits = false;
        }
    }

    /// The request waits for a connection: a timeout it has starts once it gets one.
    pub(super) fn wait_for_connection(&mut self, n: ReqId) {
        if let Some(p) = self.pending.get_mut(&n) {
            p.waits = p.timeout_at.take().is_some();
        }
    }

    /// The request got a connection: a timeout that waited for it runs from `now`, `after` long.
    pub(super) fn connected(&mut self, n: ReqId, now: Millis, after: Millis) {
        let waited = self
            .pending
            .get_mut(&n)
            .is_some_and(|p| std::mem::take(&mut p.waits));
        if waited {
            self.arm_timeout(n, now.saturating_add(after));
        }
    }

    fn live_timeout(&self, (at, n): (Millis, ReqId)) -> bool {
        self.pending
            .get(&n)
            .is_some_and(|p| p.timeout_at == Some(at))
    }

    /// The earliest timeout still armed (dropping stale entries on the way).
    pub(crate) fn next_timeout(&mut self) -> Option<Millis> {
        while let Some(front) = self.timeouts.front() {
            if self.live_timeout(front) {
                return Some(front.0);
            }
            self.timeouts.pop_front();
        }
        None
    }

    /// A request whose timeout is due.
    pub(crate) fn pop_timeout(&mut self, now: Millis) -> Option<ReqId> {
        while let Some(front) = self.timeouts.front() {
            if front.0 > now {
                return None;
            }
            self.timeouts.pop_front();
            if self.live_timeout(front) {
                return Some(front.1);
            }
        }
        None
    }

    /// The last JSON-RPC id handed out (0 before any).
    pub(crate) fn last_id(&self) -> ReqId {
        ReqId(self.next_id.0 - 1)
    }

    /// A fresh JSON-RPC id.
    pub(super) fn alloc_id(&mut self) -> ReqId {
        self.next_id.take_next()
    }

    pub(super) fn key(&mut self) -> SendKey {
        let k = SendKey(self.next_key);
        self.next_key += 1;
        k
    }
}

impl Requests {
    /// The stream of transmission `key` moved on: where, for resuming its request.
    pub(super) fn moved_on(
        &mut self,
        key: SendKey,
        last_event_id: Option<String>,
        retry_ms: Option<Millis>,
    ) {
        let Some(p) = self.id_of(key).and_then(|n| self.get_mut(n)) else {
            return;
        };
        if last_event_id.is_some() && last_event_id != p.stream.last_event_id {
            p.stream.last_event_id = last_event_id;
            p.stream.attempts = 0;
        }
        if retry_ms.is_some() {
            p.stream.retry_ms = retry_ms;
        }
    }

    /// Request `n`'s stream ended unanswered (`status`: its HTTP status, `None` when the
    /// transport failed before one): schedules its resumption when that is possible and allowed.
    /// Returns whether it did.
    pub(super) fn try_resume(
        &mut self,
        now: Millis,
        n: ReqId,
        status: Option<u16>,
        (rng, timers): (&mut Rng, &mut Timers),
    ) -> bool {
        let Some(p) = self.get_mut(n) else {
            return false;
        };
        let resumable = p.stream.last_event_id.is_some()
            && p.purpose.resumable()
            && status.is_none_or(|s| (200..300).contains(&s))
            && p.stream.attempts < MAX_RESUMES;
        if !resumable {
            return false;
        }
        let delay = resume_delay(p.stream.retry_ms, p.stream.attempts, rng);
        p.stream.attempts += 1;
        p.http_status = None;
        timers.set(Timer::Resume(n), now.saturating_add(delay));
        true
    }
}
