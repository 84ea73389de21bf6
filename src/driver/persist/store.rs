//! Where the records of [`crate::bridge::records`] are kept. Backends, best first: a
//! coordination host's store (Redis, when the caller gave one), IndexedDB (atomic
//! read-modify-write in one transaction), `localStorage`, memory (nothing survives the page).
//! Values are JSON text.

use std::cell::RefCell;
use std::rc::Rc;

use super::host::HostStore;
use super::idb::{self, Edit};
use super::local;
use crate::bridge::records::{edit_text, listing, MemoryRecords, RecordEdit};
use crate::bridge::records::{SessionRecord, TaskRecord};
use crate::bridge::scope::Scope;

#[derive(Clone)]
enum Backend {
    Host(HostStore),
    Idb(Rc<idb::Idb>),
    Local(local::WebStorage),
    Memory(Rc<RefCell<MemoryRecords>>),
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
        // An open that fails or never settles falls back to `localStorage`.
        let backend = match idb::Idb::open().await {
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
            Backend::Memory(m) => m.borrow().scan(prefix),
        }
    }

    async fn get(&self, key: &str) -> Option<String> {
        match &self.backend {
            Backend::Host(s) => s.value(key).await,
            Backend::Idb(db) => db.get(key).await.ok().flatten(),
            Backend::Local(s) => s.read(key),
            Backend::Memory(m) => m.borrow().get(key),
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
            Backend::Memory(m) => m.borrow_mut().update(key, &mut f),
        }
    }

    /// Every task record of the scope (unreadable ones are skipped).
    pub async fn tasks(&self) -> Vec<TaskRecord> {
        let rows = self.scan(&self.scope.task_prefix()).await;
        listing(&rows, &self.scope)
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
        let edit: Edit = Box::new(move |old| edit_text(old, &mut f));
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
        let text = rec.text();
        self.update(
            &self.scope.session_key(),
            Box::new(move |_| Some(text.clone())),
        )
        .await;
    }
}
