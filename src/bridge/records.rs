//! The records tab coordination stores per scope, as JSON text: one per tracked task and the
//! session the scope's tabs share; what a record keeps, how a fresh one merges over the stored
//! one, who wins the completion ledger, which records a listing reads and in what order, and the
//! in-memory backend used where no storage survives the page.
//!
//! A task record holds what a later page or leader tab needs to continue tracking (status, ttl /
//! deadline, last and next poll time, answered input keys) and the completion ledger (`fired`).
//! The outcome is kept only when the caller opted in (`persistResults`); input request payloads
//! never are.

use crate::json::{json_text, Object, ToJson, Value};
use serde::Serialize;

use super::json::{self, Fields};
use super::scope::Scope;
use crate::collections::sorted::SortedSet;
use crate::engine::api::Millis;
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::protocol::model::{Dialect, TaskStatus};

/// One tracked task.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    pub url: String,
    pub identity: Option<String>,
    pub task_id: String,
    pub dialect: Option<Dialect>,
    /// Tracking state; `task.outcome` only with `persistResults`.
    pub snapshot: Option<TaskSnapshot>,
    pub status: Option<TaskStatus>,
    /// Input request keys the host answered (never surfaced again).
    #[serde(default)]
    pub answered_inputs: SortedSet<String>,
    /// The completion ledger: a terminal callback fired for this task (in some tab).
    #[serde(default)]
    pub fired: bool,
    pub fired_at: Option<Millis>,
    /// Which ledger fired it (a random token per page or process): its own write, seen again
    /// when the store retried, is still its win.
    pub fired_by: Option<u64>,
    pub created_at: Millis,
    pub updated_at: Millis,
}

impl TaskRecord {
    pub fn new(scope: &Scope, task_id: &str, now: Millis) -> TaskRecord {
        TaskRecord {
            url: scope.url.clone(),
            identity: scope.identity.clone(),
            task_id: task_id.to_owned(),
            dialect: None,
            snapshot: None,
            status: None,
            answered_inputs: SortedSet::default(),
            fired: false,
            fired_at: None,
            fired_by: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// Reads a stored record (the JSON `Serialize` wrote).
    pub fn read(text: &str) -> Option<TaskRecord> {
        Self::from_value(json::parse(text)?)
    }

    fn from_value(v: Value) -> Option<TaskRecord> {
        let mut f = Fields::of(v)?;
        Some(TaskRecord {
            url: f.get("url", json::string)?,
            identity: f.opt("identity", json::string)?,
            task_id: f.get("taskId", json::string)?,
            dialect: f.opt("dialect", json::dialect)?,
            snapshot: f.opt("snapshot", json::task_snapshot)?,
            status: f.opt("status", json::task_status)?,
            answered_inputs: f.or_default("answeredInputs", json::strings)?,
            fired: f.or_default("fired", json::bool)?,
            fired_at: f.opt("firedAt", json::u64)?,
            fired_by: f.opt("firedBy", json::u64)?,
            created_at: f.get("createdAt", json::u64)?,
            updated_at: f.get("updatedAt", json::u64)?,
        })
    }

    /// The JSON text stored for it (as its `Serialize` derive writes it).
    pub fn text(&self) -> String {
        json_text(self)
    }

    /// The completion ledger's check-and-set for the ledger `me`: whether this claim is the first
    /// (then the record says `me` fired it, at `now`). A record `me` already marked is still its
    /// win: a store that retries after a lost answer reads back the write that did land.
    #[inline]
    pub fn claim(&mut self, now: Millis, me: u64) -> bool {
        if self.fired {
            return self.fired_by == Some(me);
        }
        self.fired = true;
        self.fired_at = Some(now);
        self.fired_by = Some(me);
        true
    }

    pub fn is_terminal(&self) -> bool {
        self.status.is_some_and(TaskStatus::is_terminal)
    }

    /// A leader's fresh view merged over what is stored: the ledger and answered keys are never
    /// lost, and a stored terminal state is never replaced by an older non-terminal one.
    pub fn merged_over(mut self, old: Option<TaskRecord>) -> TaskRecord {
        let Some(old) = old else { return self };
        self.created_at = old.created_at.min(self.created_at);
        self.fired |= old.fired;
        self.fired_at = old.fired_at.or(self.fired_at);
        self.fired_by = old.fired_by.or(self.fired_by);
        let old_terminal = old.is_terminal();
        self.answered_inputs.extend(old.answered_inputs);
        if old_terminal && !self.is_terminal() {
            self.snapshot = old.snapshot;
            self.status = old.status;
        }
        self
    }
}

/// Records older than this are dropped when a leader starts (ledger entries included).
pub const RETENTION_MS: Millis = 7 * 24 * 3_600_000;
/// Fired records (ledger tombstones) are kept this long after firing.
pub const FIRED_RETENTION_MS: Millis = 24 * 3_600_000;

/// The session a scope's tabs share.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    pub session: SessionSnapshot,
    pub saved_at: Millis,
}

impl SessionRecord {
    /// Reads a stored session (the JSON `Serialize` wrote).
    pub fn read(text: &str) -> Option<SessionRecord> {
        let mut f = Fields::of(json::parse(text)?)?;
        Some(SessionRecord {
            session: f.get("session", json::session_snapshot)?,
            saved_at: f.get("savedAt", json::u64)?,
        })
    }

    /// The JSON text stored for it (as its `Serialize` derive writes it).
    pub fn text(&self) -> String {
        json_text(self)
    }
}

impl ToJson for TaskRecord {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("url", &self.url))
            .with("identity", &self.identity)
            .with("taskId", &self.task_id)
            .with("dialect", &self.dialect)
            .with("snapshot", &self.snapshot)
            .with("status", &self.status)
            .with(
                "answeredInputs",
                &self.answered_inputs.iter().collect::<Vec<_>>(),
            )
            .with("fired", &self.fired)
            .with("firedAt", &self.fired_at)
            .with("firedBy", &self.fired_by)
            .with("createdAt", &self.created_at)
            .with("updatedAt", &self.updated_at)
            .end();
    }
}

impl ToJson for SessionRecord {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("session", &self.session))
            .with("savedAt", &self.saved_at)
            .end();
    }
}

/// An edit of one task record (`None`: none stored, or delete it).
pub type RecordEdit = Box<dyn FnMut(Option<TaskRecord>) -> Option<TaskRecord>>;

/// `edit` applied to a record's stored text: an unreadable record reads as none; the new text, or
/// `None` to delete it.
#[inline]
pub fn edit_text(old: Option<String>, edit: &mut RecordEdit) -> Option<String> {
    let old = old.and_then(|t| TaskRecord::read(&t));
    edit(old).map(|r| r.text())
}

/// The scope's task records among the stored texts `rows`, oldest first (ties by task id);
/// unreadable ones and other scopes' are skipped.
#[inline]
pub fn listing(rows: &[String], scope: &Scope) -> Vec<TaskRecord> {
    let mut out: Vec<TaskRecord> = rows
        .iter()
        .filter_map(|r| TaskRecord::read(r))
        .filter(|r| r.url == scope.url && r.identity == scope.identity)
        .collect();
    // Insertion sort: few records, and no sort routine instantiated for `TaskRecord`.
    let after =
        |a: &TaskRecord, b: &TaskRecord| (a.created_at, &a.task_id) > (b.created_at, &b.task_id);
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && matches!((out.get(j - 1), out.get(j)), (Some(a), Some(b)) if after(a, b)) {
            out.swap(j - 1, j);
            j -= 1;
        }
    }
    out
}

/// Records kept in the page's memory: key-value pairs (a few records at most; a `Vec` keeps the
/// wasm small).
#[derive(Debug, Default)]
pub struct MemoryRecords(Vec<(String, String)>);

impl MemoryRecords {
    /// The values whose keys start with `prefix`.
    #[inline]
    pub fn scan(&self, prefix: &str) -> Vec<String> {
        let under = self.0.iter().filter(|(k, _)| k.starts_with(prefix));
        under.map(|(_, v)| v.clone()).collect()
    }

    #[inline]
    pub fn get(&self, key: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// Replaces the value under `key` with `edit(old)` (`None`: delete); returns the new one.
    #[inline]
    pub fn update(
        &mut self,
        key: &str,
        edit: &mut dyn FnMut(Option<String>) -> Option<String>,
    ) -> Option<String> {
        let at = self.0.iter().position(|(k, _)| k == key);
        let old = at.and_then(|i| self.0.get_mut(i).map(|(_, v)| std::mem::take(v)));
        let new = edit(old);
        match (at, &new) {
            (Some(i), Some(v)) => {
                if let Some(e) = self.0.get_mut(i) {
                    e.1.clone_from(v);
                }
            }
            (Some(i), None) => {
                self.0.remove(i);
            }
            (None, Some(v)) => self.0.push((key.to_owned(), v.clone())),
            (None, None) => {}
        }
        new
    }
}
