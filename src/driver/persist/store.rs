//! Stored tasks and the shared session. Backends, best first: a coordination host's store
//! (Redis, when the caller gave one), IndexedDB (atomic read-modify-write in one transaction),
//! `localStorage`, memory (nothing survives the page). Values are JSON text.
//!
//! A task record holds what a later page or leader tab needs to continue tracking (status, ttl /
//! deadline, last and next poll time, answered input keys) and the completion ledger (`fired`).
//! The outcome is kept only when the caller opted in (`persistResults`); input request payloads
//! never are.

use std::cell::RefCell;
use std::rc::Rc;

use crate::json::Value;
use serde::Serialize;

use super::host::HostStore;
use super::idb::{self, Edit};
use super::{local, Scope};
use crate::collections::sorted::SortedSet;
use crate::driver::json::{self, Fields};
use crate::engine::api::Millis;
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::protocol::model::{Dialect, TaskStatus};

/// The keys of a scope's records.
impl Scope {
    fn task_prefix(&self) -> String {
        ["task|", &self.key, "|"].concat()
    }

    fn task_key(&self, task_id: &str) -> String {
        [&self.task_prefix(), task_id].concat()
    }

    fn session_key(&self) -> String {
        ["session|", &self.key].concat()
    }
}

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
            created_at: f.get("createdAt", json::u64)?,
            updated_at: f.get("updatedAt", json::u64)?,
        })
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
        let old_terminal = old.is_terminal();
        self.answered_inputs.extend(old.answered_inputs);
        if old_terminal && !self.is_terminal() {
            self.snapshot = old.snapshot;
            self.status = old.status;
        }
        self
    }
}

/// How long opening IndexedDB may take before `localStorage` is used instead.
const IDB_OPEN_TIMEOUT_MS: u32 = 3_000;

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
}

type RecordEdit = Box<dyn FnMut(Option<TaskRecord>) -> Option<TaskRecord>>;

#[derive(Clone)]
enum Backend {
    Host(HostStore),
    Idb(Rc<idb::Idb>),
    Local(local::WebStorage),
    /// Key-value pairs (a few records at most; a `Vec` keeps the wasm small).
    Memory(Rc<RefCell<Vec<(String, String)>>>),
}

/// The records of one scope.
#[derive(Clone)]
pub struct Store {
    scope: Scope,
    backend: Backend,
}

impl Store {
    /// Opens the host's store (`persist: { redis }`), else the best backend available.
    pub async fn open(scope: Scope, host: Option<&wasm_bindgen::JsValue>) -> Store {
        if let Some(s) = host.and_then(HostStore::of) {
            let backend = Backend::Host(s);
            return Store { scope, backend };
        }
        // An open that never settles (a browser bug, a blocked upgrade) must not hang `connect`.
        let opening = Box::pin(idb::Idb::open());
        let timeout = gloo_timers::future::TimeoutFuture::new(IDB_OPEN_TIMEOUT_MS);
        let db = match futures::future::select(opening, timeout).await {
            futures::future::Either::Left((db, _)) => db,
            futures::future::Either::Right(_) => None,
        };
        let backend = match db {
            Some(db) => Backend::Idb(Rc::new(db)),
            None => match local::open() {
                Some(s) => Backend::Local(s),
                None => Backend::Memory(Rc::default()),
            },
        };
        Store { scope, backend }
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// `"indexedDB"`, `"localStorage"` or `"memory"`.
    pub fn kind(&self) -> &'static str {
        match self.backend {
            Backend::Host(_) => "redis",
            Backend::Idb(_) => "indexedDB",
            Backend::Local(_) => "localStorage",
            Backend::Memory(_) => "memory",
        }
    }

    /// Whether a read-modify-write needs a Web Lock to be atomic across pages.
    pub fn needs_lock(&self) -> bool {
        matches!(self.backend, Backend::Local(_))
    }

    async fn scan(&self, prefix: &str) -> Vec<String> {
        match &self.backend {
            Backend::Host(s) => s.values(prefix).await,
            Backend::Idb(db) => db.scan(prefix).await.unwrap_or_default(),
            Backend::Local(s) => s.scan(prefix),
            Backend::Memory(m) => m
                .borrow()
                .iter()
                .filter(|(k, _)| k.starts_with(prefix))
                .map(|(_, v)| v.clone())
                .collect(),
        }
    }

    async fn get(&self, key: &str) -> Option<String> {
        match &self.backend {
            Backend::Host(s) => s.value(key).await,
            Backend::Idb(db) => db.get(key).await.ok().flatten(),
            Backend::Local(s) => s.read(key),
            Backend::Memory(m) => m
                .borrow()
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone()),
        }
    }

    /// Replaces the value under `key` with `f(old)` (`None`: delete); returns the new one.
    async fn update(&self, key: &str, mut f: Edit) -> Option<String> {
        match &self.backend {
            Backend::Host(s) => s.edit(key, f).await.ok().flatten(),
            Backend::Idb(db) => db.update(key, f).await.ok().flatten(),
            Backend::Local(s) => {
                let new = f(s.read(key));
                s.write(key, new.as_deref()).ok()?;
                new
            }
            Backend::Memory(m) => {
                let at = m.borrow().iter().position(|(k, _)| k == key);
                let old =
                    at.and_then(|i| m.borrow_mut().get_mut(i).map(|(_, v)| std::mem::take(v)));
                let new = f(old);
                let mut m = m.borrow_mut();
                match (at, &new) {
                    (Some(i), Some(v)) => {
                        if let Some(e) = m.get_mut(i) {
                            e.1 = v.clone();
                        }
                    }
                    (Some(i), None) => {
                        m.remove(i);
                    }
                    (None, Some(v)) => m.push((key.to_owned(), v.clone())),
                    (None, None) => {}
                }
                new
            }
        }
    }

    /// Every task record of the scope (unreadable ones are skipped).
    pub async fn tasks(&self) -> Vec<TaskRecord> {
        let rows = self.scan(&self.scope.task_prefix()).await;
        let mut out: Vec<TaskRecord> = rows
            .iter()
            .filter_map(|r| TaskRecord::read(r))
            .filter(|r| r.url == self.scope.url && r.identity == self.scope.identity)
            .collect();
        // Insertion sort: few records, and no sort routine instantiated for `TaskRecord`.
        let after = |a: &TaskRecord, b: &TaskRecord| {
            (a.created_at, &a.task_id) > (b.created_at, &b.task_id)
        };
        for i in 1..out.len() {
            let mut j = i;
            while j > 0 && matches!((out.get(j - 1), out.get(j)), (Some(a), Some(b)) if after(a, b))
            {
                out.swap(j - 1, j);
                j -= 1;
            }
        }
        out
    }

    /// Atomically replaces a task record with `f(old)` (`None`: delete); returns the new one.
    pub async fn update_task(
        &self,
        task_id: &str,
        f: impl FnMut(Option<TaskRecord>) -> Option<TaskRecord> + 'static,
    ) -> Option<TaskRecord> {
        self.update_record(task_id, Box::new(f)).await
    }

    /// [`update_task`](Self::update_task) without type parameters: compiled once.
    async fn update_record(&self, task_id: &str, mut f: RecordEdit) -> Option<TaskRecord> {
        let key = self.scope.task_key(task_id);
        let edit: Edit = Box::new(move |old| {
            let old = old.and_then(|t| TaskRecord::read(&t));
            f(old).and_then(|r| serde_json::to_string(&r).ok())
        });
        let text = self.update(&key, edit).await?;
        TaskRecord::read(&text)
    }

    pub async fn delete_task(&self, task_id: &str) {
        let key = self.scope.task_key(task_id);
        match &self.backend {
            Backend::Idb(db) => {
                let _ = db.delete(&key).await;
            }
            _ => {
                self.update(&key, Box::new(|_| None)).await;
            }
        }
    }

    pub async fn session(&self) -> Option<SessionRecord> {
        let text = self.get(&self.scope.session_key()).await?;
        SessionRecord::read(&text)
    }

    pub async fn put_session(&self, rec: &SessionRecord) {
        if let Ok(text) = serde_json::to_string(rec) {
            self.update(
                &self.scope.session_key(),
                Box::new(move |_| Some(text.clone())),
            )
            .await;
        }
    }
}
