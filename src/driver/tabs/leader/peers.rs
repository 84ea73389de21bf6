//! The other tabs as the leader sees them: their messages, their visibility, and the periodic
//! housekeeping (checkpoints, pruning tabs that died silently).

use std::collections::HashSet;

use wasm_bindgen_futures::spawn_local;

use super::Peer;
use crate::driver::tabs::tab::Tab;
use crate::driver::tabs::web;
use crate::driver::tabs::wire::{Msg, TabId};
use crate::engine::api::Input;

/// Persist tracked tasks' poll times this often (in ticks).
const CHECKPOINT_TICKS: u64 = 5;
/// Look for tabs that died without saying goodbye this often (in ticks).
const PRUNE_TICKS: u64 = 5;

impl Tab {
    pub(in crate::driver::tabs) fn leader_tick(&self, n: u64) {
        self.announce();
        if n % CHECKPOINT_TICKS == 0 {
            let mut ids: Vec<String> = self
                .leading(|l| l.router.sub_tasks.values().cloned().collect())
                .unwrap_or_default();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                self.persist(&id);
            }
        }
        if n % PRUNE_TICKS == 0 {
            let me = self.clone();
            spawn_local(async move { me.prune().await });
        }
    }

    /// Drops the subscriptions of tabs whose presence lock is gone (closed without a `Bye`).
    async fn prune(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let Ok(names) = web::held_names(&locks).await else {
            return;
        };
        let prefix = self.presence_prefix();
        let alive: HashSet<TabId> = names
            .iter()
            .filter_map(|n| n.strip_prefix(&prefix))
            .filter_map(|s| s.parse().ok())
            .collect();
        let gone: Vec<TabId> = self
            .leading(|l| {
                let mut tabs: HashSet<TabId> = l.router.peers.keys().copied().collect();
                tabs.extend(l.router.sub_keys.keys().map(|(t, _)| *t));
                tabs.remove(&self.0.id);
                let mut gone = Vec::new();
                for t in tabs {
                    if alive.contains(&t) {
                        if let Some(p) = l.router.peers.get_mut(&t) {
                            p.missing = 0;
                        }
                        continue;
                    }
                    let p = l.router.peers.entry(t).or_insert(Peer {
                        visible: false,
                        missing: 0,
                    });
                    p.missing += 1;
                    // Twice in a row: a tab that just joined may not hold its lock yet.
                    if p.missing >= 2 {
                        gone.push(t);
                    }
                }
                gone
            })
            .unwrap_or_default();
        for t in gone {
            self.drop_tab(t);
        }
    }

    /// Forgets a tab: its subscriptions end (nobody hears), its operations are dropped.
    fn drop_tab(&self, tab: TabId) {
        let subs = self.leading(|l| {
            l.router.peers.remove(&tab);
            let keys: Vec<(TabId, u64)> = l
                .router
                .sub_keys
                .keys()
                .filter(|(t, _)| *t == tab)
                .copied()
                .collect();
            let mut subs = Vec::new();
            for k in keys {
                if let Some(s) = l.router.sub_keys.remove(&k) {
                    l.router.subs.remove(&s);
                    subs.push(s);
                }
            }
            l.router.op_keys.retain(|(t, _), _| *t != tab);
            l.router.ops.retain(|_, (t, _)| *t != tab);
            subs
        });
        if let (Some(subs), Some(d)) = (subs, self.ready_driver()) {
            for s in subs {
                d.op(|e, now| e.unsubscribe(now, s));
            }
        }
        self.recompute_visibility(false);
    }

    /// Messages only a leader acts on.
    pub(in crate::driver::tabs) fn on_leader_message(&self, msg: Msg) {
        let epoch = match self.leading(|l| l.epoch) {
            Some(e) => e,
            None => return,
        };
        match msg {
            Msg::Hello { from, visible } => {
                self.leading(|l| {
                    l.router.peers.insert(
                        from,
                        Peer {
                            visible,
                            missing: 0,
                        },
                    )
                });
                self.announce();
                self.recompute_visibility(visible);
            }
            Msg::Op {
                from,
                epoch: e,
                id,
                op,
            } if e == epoch => {
                self.leading(|l| {
                    l.router.peers.entry(from).or_insert(Peer {
                        visible: false,
                        missing: 0,
                    });
                });
                self.apply(from, id, op);
            }
            Msg::Vis { from, visible } => self.leader_visibility(from, visible),
            Msg::Online { .. } => self.leader_online(),
            Msg::Bye { from } => self.drop_tab(from),
            _ => {}
        }
    }

    pub(in crate::driver::tabs) fn leader_visibility(&self, from: TabId, visible: bool) {
        if from != self.0.id {
            self.leading(|l| {
                l.router
                    .peers
                    .entry(from)
                    .or_insert(Peer {
                        visible,
                        missing: 0,
                    })
                    .visible = visible
            });
        }
        self.recompute_visibility(visible);
    }

    /// Feeds the engine whether any tab of the scope is visible; `became_visible`: one page just
    /// became visible (a catch-up poll, throttled by the engine).
    pub(super) fn recompute_visibility(&self, became_visible: bool) {
        let own = self.0.st.borrow().visible;
        let change = self.leading(|l| {
            let any = own || l.router.peers.values().any(|p| p.visible);
            let changed = any != l.any_visible;
            l.any_visible = any;
            (changed || (became_visible && any)).then_some(any)
        });
        if let (Some(Some(visible)), Some(d)) = (change, self.ready_driver()) {
            d.op(|e, now| e.handle_input(now, Input::Visibility { visible }));
        }
    }

    pub(in crate::driver::tabs) fn leader_online(&self) {
        if let Some(d) = self.ready_driver() {
            d.op(|e, now| e.handle_input(now, Input::Online));
        }
    }
}
