//! Replicas of one server behind a round-robin balancer without session affinity: each
//! transmission goes to the next replica, which knows only the sessions and tasks it made.

use std::collections::HashMap;

use crate::collections::hash::IdHash;
use crate::engine::api::{Millis, SendKey, Transmit};
use crate::protocol::model::Dialect;

use super::server::{FakeServer, Replies};
use super::World;

pub(crate) struct Balancer {
    pub(crate) replicas: Vec<FakeServer>,
    next: usize,
    /// Which replica each transmission went to.
    routed: HashMap<SendKey, usize, IdHash>,
}

impl Balancer {
    /// Two replicas speaking `dialect` (ids tagged `a` and `b`).
    pub(crate) fn new(dialect: Dialect, seed: u64) -> Self {
        let replica = |tag, seed| {
            let mut r = FakeServer::new(dialect, seed);
            r.tag = tag;
            r
        };
        Self {
            replicas: vec![replica("a", seed), replica("b", seed + 1)],
            next: 0,
            routed: HashMap::default(),
        }
    }
}

impl World for Balancer {
    fn handle(&mut self, now: Millis, tx: &Transmit) -> (String, Option<String>, Replies) {
        let i = self.next % self.replicas.len();
        self.next += 1;
        self.routed.insert(tx.key, i);
        self.replicas[i].handle(now, tx)
    }

    fn advance(&mut self, now: Millis) -> Replies {
        self.replicas
            .iter_mut()
            .flat_map(|r| r.advance(now))
            .collect()
    }

    fn next_event(&self, now: Millis) -> Option<Millis> {
        self.replicas.iter().filter_map(|r| r.next_event(now)).min()
    }

    fn abort(&mut self, key: SendKey) {
        if let Some(&i) = self.routed.get(&key) {
            self.replicas[i].abort(key);
        }
    }
}
