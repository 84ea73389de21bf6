//! Handing a harness's tasks to a fresh engine, as a new leader tab or a reloaded page does.

use crate::json::json;

use super::{Harness, World};
use crate::engine::api::SendKey;
use crate::engine::api::{Config, DialectChoice};
use crate::engine::snapshot::TaskSnapshot;
use crate::engine::Engine;

impl<S: World> Harness<S> {
    /// Replaces the engine with a fresh one (seed `seed`) that resumed the old session and
    /// imported every listed task; `false` when the session could not be resumed (the fresh
    /// engine then connects anew).
    pub(crate) fn hand_over_with(
        &mut self,
        choice: DialectChoice,
        ids: &[String],
        seed: u64,
    ) -> bool {
        let cfg = Config {
            dialect: choice,
            ..Config::default()
        };
        self.hand_over_to(cfg, ids, seed)
    }

    /// As [`Self::hand_over_with`], the fresh engine made with `cfg`.
    pub(crate) fn hand_over_to(&mut self, cfg: Config, ids: &[String], seed: u64) -> bool {
        let info = json!({ "name": "fake" });
        let Some(s) = self.engine.session_snapshot(info) else {
            return false;
        };
        let snaps: Vec<TaskSnapshot> = ids
            .iter()
            .filter_map(|id| self.engine.export_task(id))
            .collect();
        self.engine.detach(self.now);
        self.pump();
        // The driver closes the detached engine's streams.
        self.drop_open_requests();
        // The fresh engine numbers its subscriptions from 1 again.
        self.events.clear();
        let resumed = Engine::resume(cfg.clone(), seed, self.now, &s);
        let adopted = resumed.is_some();
        let mut fresh = resumed.unwrap_or_else(|| Engine::new(cfg, seed, self.now));
        for snap in snaps {
            fresh.import_task(self.now, snap);
        }
        self.engine = fresh;
        self.pump();
        adopted
    }

    /// [`Harness::hand_over_with`] a fixed seed.
    pub(crate) fn hand_over(&mut self, choice: DialectChoice, ids: &[String]) -> bool {
        self.hand_over_with(choice, ids, 99)
    }
}

impl<S: World> Harness<S> {
    /// The engine's page went away: every request it had open is dropped at the server, as a
    /// closed tab's connections are.
    pub(crate) fn drop_open_requests(&mut self) {
        let mut keys: Vec<SendKey> = self.results_open.keys().copied().collect();
        keys.extend(self.get_keys.keys().copied());
        keys.extend(self.arriving.iter().map(|(_, t)| t.key));
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            self.server.abort(key);
            self.clear_get(key, None);
            self.release(key);
        }
    }
}
