//! The other tabs as the leader sees them: their messages, their visibility, and the periodic
//! housekeeping (checkpoints, pruning tabs that died silently).

use super::{Peer, Work};
use crate::collections::sorted::SortedSet;
use crate::coord::wire::{Msg, TabId};
use crate::coord::{Coord, Output};
use crate::engine::api::{Input, Millis};

/// Persist tracked tasks' poll times this often (in ticks).
const CHECKPOINT_TICKS: u64 = 5;
/// Look for tabs that died without saying goodbye this often (in ticks).
const PRUNE_TICKS: u64 = 5;

impl Coord {
    pub(in crate::coord) fn leader_tick(&mut self, now: Millis, n: u64) {
        self.announce(now);
        self.open_unless_loaded(now);
        self.reask_unreceived();
        if n % CHECKPOINT_TICKS == 0 {
            let ids: SortedSet<String> = self
                .leading_ref()
                .map(|l| l.router.sub_tasks.values().cloned().collect())
                .unwrap_or_default();
            for id in ids {
                self.emit(Output::Persist(id));
            }
        }
        if n % PRUNE_TICKS == 0 && self.coordinated {
            self.emit(Output::QueryAlive);
        }
    }

    /// Drops the subscriptions of tabs whose presence lock is gone (closed without a `Bye`).
    pub(in crate::coord) fn on_alive(&mut self, alive: Vec<TabId>) {
        let me = self.id;
        let Some(l) = self.leading() else { return };
        let alive: SortedSet<TabId> = alive.into_iter().collect();
        let mut tabs: SortedSet<TabId> = l.router.peers.keys().copied().collect();
        tabs.extend(l.router.sub_keys.keys().map(|(t, _)| *t));
        tabs.remove(&me);
        let mut gone = Vec::new();
        for t in tabs {
            let visible = l.router.peers.get(&t).is_some_and(|p| p.visible);
            let missing = match l.router.peers.get(&t) {
                _ if alive.contains(&t) => 0,
                Some(p) => p.missing + 1,
                None => 1,
            };
            l.router.peers.insert(t, Peer { visible, missing });
            // Twice in a row: a tab that just joined may not hold its lock yet.
            if missing >= 2 {
                gone.push(t);
            }
        }
        for t in gone {
            self.drop_tab(t);
        }
    }

    /// Forgets a tab: its subscriptions end (nobody hears), its operations are dropped.
    fn drop_tab(&mut self, tab: TabId) {
        let Some(l) = self.leading() else { return };
        let r = &mut l.router;
        r.peers.remove(&tab);
        let keys: Vec<(TabId, u64)> = r
            .sub_keys
            .keys()
            .filter(|(t, _)| *t == tab)
            .copied()
            .collect();
        for k in keys {
            if let Some(s) = r.sub_keys.remove(&k) {
                r.subs.remove(&s);
                l.work.push_back(Work::Unsubscribe(s));
            }
        }
        r.op_keys.retain(|(t, _), _| *t != tab);
        r.ops.retain(|_, (t, _)| *t != tab);
        l.inbox.retain(|(t, _, _)| *t != tab);
        // Its unanswered input requests go to whoever answers them now.
        let epoch = l.epoch;
        let asked: Vec<u64> = (r.inputs.iter())
            .filter(|(_, p)| p.to == tab)
            .map(|(w, _)| *w)
            .collect();
        for wire in asked {
            let Some(mut p) = self.leading().and_then(|l| l.router.inputs.remove(&wire)) else {
                continue;
            };
            p.to = self.answerer(p.task_id.as_deref(), &p.silent);
            self.ask(epoch, wire, p);
        }
        self.recompute_visibility(false);
    }

    /// Messages only a leader acts on.
    pub(in crate::coord) fn on_leader_message(&mut self, now: Millis, msg: Msg) {
        let Some(epoch) = self.leading_epoch() else {
            return;
        };
        match msg {
            Msg::Hello { from, visible } => {
                if let Some(l) = self.leading() {
                    l.router.peers.insert(
                        from,
                        Peer {
                            visible,
                            missing: 0,
                        },
                    );
                }
                self.announce(now);
                self.recompute_visibility(visible);
            }
            Msg::Op {
                from,
                epoch: e,
                id,
                op,
            } if e == epoch => {
                if let Some(l) = self
                    .leading()
                    .filter(|l| !l.router.peers.contains_key(&from))
                {
                    let heard = Peer {
                        visible: false,
                        missing: 0,
                    };
                    l.router.peers.insert(from, heard);
                }
                self.apply_or_queue(from, id, op);
            }
            Msg::Vis { from, visible } => self.leader_visibility(from, visible),
            Msg::Online { .. } => self.leader_online(),
            Msg::Got { from, epoch: e, id } if e == epoch => self.input_received(from, id),
            Msg::Bye { from } => self.drop_tab(from),
            _ => {}
        }
    }

    pub(in crate::coord) fn leader_visibility(&mut self, from: TabId, visible: bool) {
        if from != self.id {
            if let Some(l) = self.leading() {
                let missing = l.router.peers.get(&from).map_or(0, |p| p.missing);
                l.router.peers.insert(from, Peer { visible, missing });
            }
        }
        self.recompute_visibility(visible);
    }

    /// Feeds the engine whether any tab of the scope is visible; `became_visible`: one page just
    /// became visible (a catch-up poll, throttled by the engine).
    pub(in crate::coord) fn recompute_visibility(&mut self, became_visible: bool) {
        let own = self.visible();
        let Some(l) = self.leading() else { return };
        let any = own || l.router.peers.values().any(|p| p.visible);
        let changed = any != l.any_visible;
        l.any_visible = any;
        if changed || (became_visible && any) {
            l.work
                .push_back(Work::Feed(Input::Visibility { visible: any }));
        }
    }

    pub(in crate::coord) fn leader_online(&mut self) {
        self.queue(Work::Feed(Input::Online));
    }
}
