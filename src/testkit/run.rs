//! Running the simulated world: until a time, for a while, or until a condition holds.

use super::{Harness, World};
use crate::engine::api::Millis;

impl<S: World> Harness<S> {
    /// Runs the world until `until` (virtual ms).
    pub(crate) fn run_until(&mut self, until: Millis) {
        for _ in 0..50_000_000u64 {
            self.pump();
            let next_delivery = self.queue.peek().map(|d| d.at);
            let next_arrival = self.arriving.iter().map(|(at, _)| *at).min();
            let next = [
                Some(self.wake),
                next_delivery,
                next_arrival,
                self.draining.iter().map(|(at, _)| *at).min(),
                self.server.next_event(self.now),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(u64::MAX)
            .max(self.now);
            if next > until {
                self.now = until;
                let replies = self.server.advance(self.now);
                self.schedule(replies);
                self.pump();
                return;
            }
            self.now = next;
            while let Some(&(_, key)) = self.draining.iter().find(|(at, _)| *at <= self.now) {
                self.release(key);
            }
            while let Some(i) = (self.arriving.iter().enumerate())
                .filter(|(_, (at, _))| *at <= self.now)
                .min_by_key(|(_, (at, _))| *at)
                .map(|(i, _)| i)
            {
                let (_, t) = self.arriving.remove(i);
                self.arrive(t);
            }
            while self.queue.peek().is_some_and(|d| d.at <= self.now) {
                for input in self.queue.pop().map(|d| d.inputs).unwrap_or_default() {
                    self.deliver(input);
                }
            }
            let replies = self.server.advance(self.now);
            self.schedule(replies);
        }
        self.violations.push("the simulation did not settle".into());
    }

    pub(crate) fn run_for(&mut self, ms: Millis) {
        self.run_until(self.now + ms);
    }

    /// Runs a millisecond at a time until `done` holds, for at most `ms`: when it came to hold.
    pub(crate) fn run_until_done(&mut self, ms: Millis, done: impl Fn(&Self) -> bool) -> Millis {
        let until = self.now + ms;
        while !done(self) && self.now < until {
            self.run_until(self.now + 1);
        }
        self.now
    }
}
