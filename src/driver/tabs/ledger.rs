//! The completion ledger: a task's terminal callbacks fire in exactly one page, once, across
//! reloads and tabs. Claiming is a check-and-set on the task's record under a Web Lock (and, with
//! IndexedDB, inside one `readwrite` transaction). Within the page that won, every handle's
//! `onDone` fires; every other page (and every later load) skips them.

use std::cell::RefCell;
use std::rc::Rc;

use crate::driver::oneshot;

use super::web;
use crate::bridge::records::TaskRecord;
use crate::collections::sorted::SortedMap;
use crate::driver::persist::Store;
use crate::driver::{global, spawn};

enum Claim {
    Won,
    Lost,
    Pending(Vec<oneshot::Sender<bool>>),
}

/// The ledger of one scope, shared by every handle of one client.
#[derive(Clone)]
pub struct Ledger(Rc<Inner>);

struct Inner {
    store: Store,
    /// Held around each claim where the store's read-modify-write is not atomic across pages.
    locks: Option<web::LockManager>,
    lock_name: String,
    claims: RefCell<SortedMap<String, Claim>>,
    /// This ledger's token in the records it marks fired.
    me: u64,
}

impl Ledger {
    pub fn new(store: Store, locks: Option<web::LockManager>, lock_name: String) -> Ledger {
        Ledger(Rc::new(Inner {
            store,
            locks,
            lock_name,
            claims: RefCell::new(SortedMap::default()),
            me: global::random_seed(),
        }))
    }

    /// Whether this page may fire `task_id`'s terminal callbacks (the first caller across all
    /// pages and loads wins; later calls in the winning page also get `true`).
    pub async fn claim(&self, task_id: &str) -> bool {
        let rx = {
            let mut claims = self.0.claims.borrow_mut();
            match claims.get_mut(task_id) {
                Some(Claim::Won) => return true,
                Some(Claim::Lost) => return false,
                Some(Claim::Pending(waiters)) => {
                    let (tx, rx) = oneshot::channel();
                    waiters.push(tx);
                    Some(rx)
                }
                None => {
                    claims.insert(task_id.to_owned(), Claim::Pending(Vec::new()));
                    None
                }
            }
        };
        if let Some(rx) = rx {
            return rx.await.unwrap_or(false);
        }
        let won = self.check_and_set(task_id).await;
        let prev = self.0.claims.borrow_mut().insert(
            task_id.to_owned(),
            if won { Claim::Won } else { Claim::Lost },
        );
        if let Some(Claim::Pending(waiters)) = prev {
            for w in waiters {
                w.send(won);
            }
        }
        won
    }

    async fn check_and_set(&self, task_id: &str) -> bool {
        let store = self.0.store.clone();
        let id = task_id.to_owned();
        let me = self.0.me;
        let work = async move {
            let won = Rc::new(RefCell::new(false));
            let w = won.clone();
            let scope = store.scope().clone();
            let key = id.clone();
            let stored = store
                .update_task(&key, move |old| {
                    // Run again when a concurrent write made the store retry: the last run counts.
                    let mut rec =
                        old.unwrap_or_else(|| TaskRecord::new(&scope, &id, global::now()));
                    *w.borrow_mut() = rec.claim(global::now(), me);
                    Some(rec)
                })
                .await;
            // Storage failed: fire rather than lose the callback (at least once beats never).
            let v = stored.is_none() || *won.borrow();
            v
        };
        match &self.0.locks {
            Some(locks) => web::with_lock(locks, &self.0.lock_name, work)
                .await
                .unwrap_or(false),
            None => work.await,
        }
    }
}

/// Runs `won` at once without a ledger, else only if this page wins the claim for `task_id`.
pub fn fire(ledger: Option<(Ledger, String)>, won: Box<dyn FnOnce()>) {
    match ledger {
        None => won(),
        Some((l, task_id)) => spawn(async move {
            if l.claim(&task_id).await {
                won();
            }
        }),
    }
}
