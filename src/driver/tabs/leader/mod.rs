//! The leader's side: one driver for the scope, the routing of every tab's operations onto it and
//! of its events back (tab-local ids ↔ engine ids), the tasks it keeps tracking on its own, and
//! the records it persists. This module holds the leader's state and the helpers its parts share.

mod epoch;
mod events;
mod ops;
mod peers;
mod records;

use std::cell::RefMut;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::tab::{Role, Tab};
use super::web::Held;
use super::wire::{Msg, Op, TabId};
use crate::driver::persist::TaskRecord;
use crate::driver::Driver;
use crate::engine::api::{Event, InputId, OpId, SubId};
use crate::engine::sorted::SortedSet;

/// Who an engine subscription belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    Tab(TabId, u64),
    /// The leader's own tracking of a persisted task.
    Internal(String),
}

/// A follower the leader heard from.
#[derive(Debug, Clone)]
struct Peer {
    visible: bool,
    /// Times its presence lock was missing in a row.
    missing: u32,
}

#[derive(Default)]
struct Router {
    subs: HashMap<SubId, Dest>,
    sub_keys: HashMap<(TabId, u64), SubId>,
    ops: HashMap<OpId, (TabId, u64)>,
    op_keys: HashMap<(TabId, u64), OpId>,
    /// Input ids handed to tabs → the engine's id, the task and the request key.
    inputs: HashMap<u64, (InputId, Option<String>, String)>,
    sub_tasks: HashMap<SubId, String>,
    internal: HashMap<String, SubId>,
    /// Subscriptions their tab stopped on purpose: the leader lets go of the task when they end.
    stopped: HashSet<SubId>,
    peers: HashMap<TabId, Peer>,
}

/// The leader's state (inside [`Role::Leader`]).
pub(super) struct Leading {
    pub epoch: u64,
    pub driver: Option<Driver>,
    /// Records loaded and imported: operations can be applied.
    pub ready: bool,
    held: Option<Held>,
    inbox: Vec<(TabId, u64, Op)>,
    router: Router,
    records: HashMap<String, TaskRecord>,
    answered: HashMap<String, SortedSet<String>>,
    /// Records to write (in task id order).
    dirty: HashSet<String>,
    flushing: bool,
    any_visible: bool,
    server_info: Value,
}

impl Tab {
    fn leading<R>(&self, f: impl FnOnce(&mut Leading) -> R) -> Option<R> {
        self.leader_state().map(|mut l| f(&mut l))
    }

    /// The leader's state, borrowed, while this tab leads ([`Tab::leading`]'s non-generic part).
    fn leader_state(&self) -> Option<RefMut<'_, Leading>> {
        RefMut::filter_map(self.0.st.borrow_mut(), |st| match &mut st.role {
            Role::Leader(l) => Some(&mut **l),
            _ => None,
        })
        .ok()
    }

    fn is_epoch(&self, epoch: u64) -> bool {
        matches!(&self.0.st.borrow().role, Role::Leader(l) if l.epoch == epoch)
    }

    fn ready_driver(&self) -> Option<Driver> {
        self.leading(|l| if l.ready { l.driver.clone() } else { None })
            .flatten()
    }

    /// Sends an event to a tab (this one directly, others over the channel).
    fn send_to(&self, tab: TabId, epoch: u64, event: Event) {
        if tab == self.0.id {
            self.push_local(event);
        } else {
            self.post(&Msg::Ev {
                to: Some(tab),
                epoch,
                event,
            });
        }
    }

    /// Broadcasts that this tab leads (also the heartbeat).
    pub(super) fn announce(&self) {
        let hidden_ms = self.hidden_ms();
        let msg = {
            let st = self.0.st.borrow();
            let Role::Leader(l) = &st.role else { return };
            Msg::Leader {
                from: self.0.id,
                epoch: l.epoch,
                hidden_ms,
                session: st.session.clone(),
            }
        };
        self.post(&msg);
    }
}
