//! Tab coordination and persistence for one (server URL, identity) scope.
//!
//! With `persist: true` a client becomes a [`Link::Shared`]: every tab of the scope races for one
//! Web Lock; the holder is the *leader* and alone does network I/O (one engine, one session,
//! one `tasks/get` per task however many tabs watch). Every other tab is a *follower*: it sends
//! its operations to the leader over a `BroadcastChannel` and gets statuses, results and input
//! requests back. The lock frees itself when the leader tab dies; a frozen leader releases it on
//! the `freeze` event; a silent one has it stolen. The next holder adopts the persisted session,
//! imports every persisted task and receives every follower's live operations again.
//!
//! Without Web Locks or `BroadcastChannel` (or with `tabs: false`) every tab is its own leader
//! and only persistence remains. Without `persist` the client is a plain [`Link::Solo`] driver.
//!
//! Tracked tasks live in [`persist`](crate::driver::persist); `onTaskDoneOnce` callbacks go
//! through the [`Ledger`] so they fire exactly once across tabs and reloads.

#[cfg(feature = "tabs")]
mod ledger;
#[cfg(feature = "tabs")]
mod shell;
#[cfg(feature = "tabs")]
pub(crate) mod web;

use wasm_bindgen::prelude::*;

use std::rc::Rc;

use crate::engine::api::ClientError;
use crate::engine::known::Known;

use super::{Driver, DriverOptions, Host};

pub use crate::coord::Requestor;
#[cfg(feature = "tabs")]
pub use ledger::{fire, Ledger};
#[cfg(feature = "tabs")]
use shell::Tab;

pub use crate::bridge::settings::Sharing;

/// The `ConnectOptions` of this layer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SharedOptions {
    pub sharing: Sharing,
    /// A coordination host in place of Web Locks, `BroadcastChannel` and IndexedDB: an object
    /// with `locks`, `channel(name)` and `store` (`persist: { redis }` in Node).
    #[cfg(feature = "tabs")]
    pub host: Option<JsValue>,
}

/// Declarations merged into `ConnectOptions` (TypeScript interface merging).
#[wasm_bindgen(typescript_custom_section)]
const TABS_TS: &'static str = r#"
export interface ConnectOptions {
  /** Track tasks in IndexedDB (or localStorage) and share one connection per server and identity
   *  across tabs: one leader tab polls, the others follow; `onTaskDoneOnce` fires once across tabs and
   *  reloads; `resume()` re-attaches after a reload. `close()` then leaves the server session open
   *  (other tabs and later loads continue it). Default false. In Node, `{ redis }` (an ioredis
   *  client) does the same across processes: one process polls, leases expire when it dies. */
  persist?: boolean | { redis: unknown };
  /** With `persist`: scope stored tasks and tab sharing to this user too (e.g. a user id hash,
   *  never a credential). */
  identity?: string;
  /** With `persist`: store task results too (default: statuses only, never results). */
  persistResults?: boolean;
  /** With `persist`: coordinate tabs (default true); false makes every tab its own leader. */
  tabs?: boolean;
}
"#;

/// What a JS client talks to: a plain driver, or a tab of a shared scope.
#[derive(Clone)]
pub enum Link {
    Solo(Driver),
    #[cfg(feature = "tabs")]
    Shared(Tab),
}

impl Link {
    /// Connects directly (`shared: None`) or joins the scope's tabs; `started` hears the link
    /// once usable, or why it could not start.
    pub fn connect(
        opts: DriverOptions,
        shared: Option<SharedOptions>,
        host: Host,
        started: Box<dyn FnOnce(Result<Link, ClientError>)>,
    ) {
        match shared {
            #[cfg(feature = "tabs")]
            Some(s) => crate::driver::spawn(async move {
                started(Ok(Link::Shared(Tab::start(opts, s, host).await)))
            }),
            // Without the feature the options never ask for sharing (`SharedOptions::from_js`).
            _ => Driver::connect(opts, host, Box::new(move |d| started(d.map(Link::Solo)))),
        }
    }

    /// Runs one operation, then performs whatever it caused.
    pub fn op<R>(&self, f: impl FnOnce(&mut dyn Requestor, u64) -> R) -> R {
        self.op_then(f, |_| {})
    }

    /// Like [`op`](Self::op), running `then` on the result before any consequence is delivered.
    pub fn op_then<R>(
        &self,
        f: impl FnOnce(&mut dyn Requestor, u64) -> R,
        then: impl FnOnce(&R),
    ) -> R {
        match self {
            Link::Solo(d) => d.op_then(|e, now| f(e, now), then),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => t.op_then(f, then),
        }
    }

    /// Reads state without side effects.
    pub fn read<R>(&self, f: impl FnOnce(&dyn Requestor) -> R) -> R {
        match self {
            Link::Solo(d) => d.read(|e| f(e)),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => t.read(f),
        }
    }

    /// The engine's id and snapshot of a task, shared, where this tab's own engine runs it (a tab of a
    /// shared scope keeps copies of its own).
    pub(crate) fn known(&self, task_id: &str) -> Option<(Rc<str>, Rc<Known>)> {
        match self {
            Link::Solo(d) => d.known(task_id),
            #[cfg(feature = "tabs")]
            Link::Shared(_) => None,
        }
    }

    pub fn is_closed(&self) -> bool {
        match self {
            Link::Solo(d) => d.is_closed(),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => t.is_closed(),
        }
    }

    /// Solo: closes the engine and the session. Shared: leaves the scope (the session stays open
    /// for the other tabs and later loads); this tab's subscriptions end `closed`. `closed` runs
    /// once that is done.
    pub fn close(&self, closed: Box<dyn FnOnce()>) {
        match self {
            Link::Solo(d) => d.close(closed),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => {
                t.close();
                closed();
            }
        }
    }

    pub fn release_host(&self) {
        match self {
            Link::Solo(d) => d.release_host(),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => t.release_host(),
        }
    }

    /// The completion ledger (shared links only).
    #[cfg(feature = "tabs")]
    pub fn ledger(&self) -> Option<Ledger> {
        match self {
            Link::Solo(_) => None,
            #[cfg(feature = "tabs")]
            Link::Shared(t) => Some(t.ledger()),
        }
    }

    /// `"solo"`, `"leader"`, `"follower"` or `"electing"`.
    pub fn role(&self) -> &'static str {
        match self {
            Link::Solo(_) => "solo",
            #[cfg(feature = "tabs")]
            Link::Shared(t) => t.role_name(),
        }
    }

    /// Calls `then` with the persisted tasks whose terminal callbacks have not fired yet (oldest
    /// first; none for solo links).
    pub fn pending_tasks(&self, then: Box<dyn FnOnce(Vec<String>)>) {
        match self {
            Link::Solo(_) => then(Vec::new()),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => {
                let t = t.clone();
                crate::driver::spawn(async move { then(t.pending_tasks().await) });
            }
        }
    }

    /// Stops tracking a task and deletes its record (its ledger entry too); then calls `then`.
    pub fn forget(&self, task_id: &str, then: Box<dyn FnOnce()>) {
        #[cfg(not(feature = "tabs"))]
        let _ = task_id;
        match self {
            Link::Solo(_) => then(),
            #[cfg(feature = "tabs")]
            Link::Shared(t) => {
                let (t, id) = (t.clone(), task_id.to_owned());
                crate::driver::spawn(async move {
                    t.forget(&id).await;
                    then();
                });
            }
        }
    }

    /// Which storage backs the records (`None` for solo links).
    pub fn storage(&self) -> Option<&'static str> {
        match self {
            Link::Solo(_) => None,
            #[cfg(feature = "tabs")]
            Link::Shared(t) => Some(t.storage()),
        }
    }
}
