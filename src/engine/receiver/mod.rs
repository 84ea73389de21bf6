//! The client as a task receiver (2025-11-25 core tasks): a server asks for `elicitation/create`
//! or `sampling/createMessage` with `params.task`, the client answers `CreateTaskResult` at once,
//! runs the host's input handler for it, and serves `tasks/get`, `tasks/result` (held until the
//! task ends), `tasks/list` and `tasks/cancel`. This module is the state; `serve.rs` wires it to
//! the engine.
//!
//! - Ids are 128 random bits from the engine's generator (seeded by the driver from `crypto`),
//!   and only the server of this connection can ask for them.
//! - The requested `ttl` is honoured up to [`MAX_TTL_MS`] ([`DEFAULT_TTL_MS`] without one) and
//!   reported; at `createdAt + ttl` the task and its outcome are forgotten, and its id answers
//!   "Task has expired" while it is among the last [`EXPIRED_KEPT`] expired ids.
//! - A status only moves from `working` to one terminal status, once.

mod serve;
mod wire;

#[cfg(test)]
mod tests;

pub(crate) use serve::Effects;

use std::collections::VecDeque;

use crate::json::Value;

use crate::json::digits::decimal;
use crate::protocol::object;

use crate::protocol::jsonrpc::{Id, RpcError};

use super::api::{InputId, Millis};
use super::registry::iso8601::format_millis;

/// The ttl of a task whose requestor asked for none.
const DEFAULT_TTL_MS: Millis = 60 * 60 * 1000;
/// The longest ttl granted.
const MAX_TTL_MS: Millis = 24 * 60 * 60 * 1000;
/// The poll interval suggested to the requestor.
const POLL_INTERVAL_MS: Millis = 1000;
/// Most tasks alive at once; further task-augmented requests are refused.
const MAX_TASKS: usize = 1000;
/// Tasks per `tasks/list` page.
const PAGE: usize = 50;
/// How many expired ids are remembered (to answer "expired" rather than "not found").
const EXPIRED_KEPT: usize = 1024;

/// Where a hosted task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    fn is_terminal(self) -> bool {
        self != Status::Working
    }
}

/// One task the client runs for the server.
#[derive(Debug)]
struct HostedTask {
    id: String,
    /// The server's request that created it (a re-sent request gets the same task).
    request: Id,
    seq: u64,
    status: Status,
    message: Option<String>,
    created_at: Millis,
    updated_at: Millis,
    ttl: Millis,
    /// What the original request returns: the host's answer, or an error.
    outcome: Option<Result<Value, RpcError>>,
    /// The host's input request, while it is open.
    input: Option<InputId>,
    /// `tasks/result` requests held until the task ends.
    waiters: Vec<Id>,
}

impl HostedTask {
    /// The task as the wire shows it (`tasks/get`, `tasks/cancel`, list entries, pushes).
    fn wire(&self) -> Value {
        let mut v = object([
            ("taskId", Value::from(self.id.as_str())),
            ("status", Value::from(self.status.as_str())),
            ("createdAt", Value::from(format_millis(self.created_at))),
            ("lastUpdatedAt", Value::from(format_millis(self.updated_at))),
            ("ttl", Value::from(self.ttl)),
            ("pollInterval", Value::from(POLL_INTERVAL_MS)),
        ]);
        if let (Some(m), Value::Object(o)) = (&self.message, &mut v) {
            o.insert("statusMessage".into(), Value::from(m.as_str()));
        }
        v
    }

    fn expires_at(&self) -> Millis {
        self.created_at.saturating_add(self.ttl)
    }
}

/// Every hosted task, by id, and the ids that expired lately.
#[derive(Debug, Default)]
pub(crate) struct Hosted {
    /// In creation order (the order `tasks/list` pages through).
    tasks: Vec<HostedTask>,
    next_seq: u64,
    expired: VecDeque<String>,
}

impl Hosted {
    /// The ttl granted for a requested one (`params.task.ttl`).
    fn grant_ttl(requested: Option<&Value>) -> Millis {
        requested
            .and_then(Value::as_u64)
            .map_or(DEFAULT_TTL_MS, |t| t.min(MAX_TTL_MS))
    }

    /// The live task the server's request `request` created.
    fn by_request(&self, request: &Id) -> Option<&HostedTask> {
        self.tasks.iter().find(|t| &t.request == request)
    }

    /// Starts a `working` task under `id` (fresh random bits from the caller) for the server's
    /// request `request`; `None` when full or when the id is taken.
    fn create(
        &mut self,
        id: String,
        request: Id,
        now: Millis,
        ttl: Millis,
    ) -> Option<&mut HostedTask> {
        if self.tasks.len() >= MAX_TASKS || self.get(&id).is_some() {
            return None;
        }
        self.next_seq += 1;
        let task = HostedTask {
            id: id.clone(),
            request,
            seq: self.next_seq,
            status: Status::Working,
            message: None,
            created_at: now,
            updated_at: now,
            ttl,
            outcome: None,
            input: None,
            waiters: Vec::new(),
        };
        self.tasks.push(task);
        self.tasks.last_mut()
    }

    /// The live task `id`, or the spec's error: expired or not found.
    fn get_mut(&mut self, id: &str) -> Result<&mut HostedTask, RpcError> {
        if self.expired.iter().any(|e| e == id) {
            return Err(wire::expired());
        }
        self.tasks
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or_else(wire::not_found)
    }

    /// Ends task `id` with `status` and `outcome` unless it already ended: the waiters to answer.
    fn finish(
        &mut self,
        id: &str,
        now: Millis,
        status: Status,
        outcome: Result<Value, RpcError>,
    ) -> Option<Vec<Id>> {
        let t = self.tasks.iter_mut().find(|t| t.id == id)?;
        if t.status.is_terminal() || !status.is_terminal() {
            return None;
        }
        t.message = outcome.as_ref().err().map(|e| e.message.clone());
        t.status = status;
        t.updated_at = now.max(t.updated_at);
        t.outcome = Some(outcome);
        t.input = None;
        Some(std::mem::take(&mut t.waiters))
    }

    /// One `tasks/list` page after `cursor` (an opaque position this list handed out).
    fn page(&self, cursor: Option<&str>) -> Result<Value, RpcError> {
        let after = match cursor {
            None => 0,
            Some(c) => c
                .parse::<u64>()
                .ok()
                .filter(|&s| s <= self.next_seq)
                .ok_or_else(|| {
                    RpcError::new(
                        crate::protocol::jsonrpc::codes::INVALID_PARAMS,
                        "Invalid cursor",
                    )
                })?,
        };
        let mut live: Vec<&HostedTask> = self.tasks.iter().filter(|t| t.seq > after).collect();
        let more = live.len() > PAGE;
        live.truncate(PAGE);
        let tasks: Vec<Value> = live.iter().map(|t| t.wire()).collect();
        let mut v = object([("tasks", Value::Array(tasks))]);
        if let (true, Some(last), Value::Object(o)) = (more, live.last(), &mut v) {
            o.insert("nextCursor".into(), Value::from(decimal(last.seq)));
        }
        Ok(v)
    }

    /// Forgets every task whose ttl ran out by `now` (remembering its id as expired).
    fn expire(&mut self, now: Millis) -> Vec<HostedTask> {
        if self.next_expiry().is_none_or(|at| at > now) {
            return Vec::new();
        }
        let (gone, live): (Vec<HostedTask>, Vec<HostedTask>) = std::mem::take(&mut self.tasks)
            .into_iter()
            .partition(|t| t.expires_at() <= now);
        self.tasks = live;
        for t in &gone {
            if self.expired.len() >= EXPIRED_KEPT {
                self.expired.pop_front();
            }
            self.expired.push_back(t.id.clone());
        }
        gone
    }

    /// When the next task expires.
    pub(crate) fn next_expiry(&self) -> Option<Millis> {
        self.tasks.iter().map(HostedTask::expires_at).min()
    }

    fn get(&self, id: &str) -> Option<&HostedTask> {
        self.tasks.iter().find(|t| t.id == id)
    }
}
