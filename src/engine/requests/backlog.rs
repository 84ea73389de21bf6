//! Transmissions kept in the engine while the browser already holds as many as it should (and
//! status polls yielding to pushed ends' results, see `pool.rs`): they wait here as encoded
//! outputs (cheap) rather than as pending fetches in the page (costly).
//! Requests a caller waits on (calls, results, input answers, cancels) go before background status
//! polls, but polls still get at least one of every [`URGENT_RUN`] + 1 turns: neither starves.
//! Each kind goes first come, first served. A status poll that falls due while others wait is
//! kept as its task's slot alone: it becomes a request (id, pending entry, body) once it gets its
//! turn, so thousands of due polls cost a few bytes each.

use std::collections::VecDeque;

use crate::collections::fifo::Fifo;
use crate::engine::api::{SendKey, Transmit};
use crate::engine::ids::Slot;

/// Room kept once a burst is out (a burst's room is given back).
const ROOM: usize = 16;

/// Caller's transmissions let out in a row while polls wait.
const URGENT_RUN: u8 = 3;

/// A kept transmission let out.
#[derive(Debug)]
pub(super) enum Kept {
    Transmit(Transmit),
    /// The status poll of the task in this slot.
    Poll(Slot),
}

#[derive(Debug, Default)]
pub(crate) struct Backlog {
    /// The caller's transmissions, oldest first.
    urgent: VecDeque<Transmit>,
    /// Status polls already made requests, oldest first.
    polls: VecDeque<Transmit>,
    /// The slots of tasks whose status poll is due, oldest first (after `polls`).
    due: Fifo<Slot>,
    /// Caller's transmissions let out since the last poll.
    run: u8,
}

impl Backlog {
    pub(super) fn is_empty(&self) -> bool {
        self.urgent.is_empty() && self.polls.is_empty() && self.due.is_empty()
    }

    /// Transmissions kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.urgent.len() + self.polls.len() + self.due.len()
    }

    pub(super) fn push(&mut self, t: Transmit, poll: bool) {
        let queue = if poll {
            &mut self.polls
        } else {
            &mut self.urgent
        };
        queue.push_back(t);
    }

    /// The status poll of the task in `slot` is due.
    pub(super) fn push_due(&mut self, slot: Slot) {
        self.due.push_back(slot);
    }

    /// Forgets a kept transmission (`false`: it was not kept). Rare (an abort before it went out):
    /// each queue turns once round, front to back, without it.
    pub(super) fn cancel(&mut self, key: SendKey) -> bool {
        let mut found = false;
        for queue in [&mut self.urgent, &mut self.polls] {
            for _ in 0..queue.len() {
                match queue.pop_front() {
                    Some(t) if t.key == key => found = true,
                    Some(t) => queue.push_back(t),
                    None => break,
                }
            }
        }
        found
    }

    /// The caller's next kept transmission (the polls wait).
    pub(super) fn pop_urgent(&mut self) -> Option<Kept> {
        self.urgent.pop_front().map(Kept::Transmit)
    }

    /// The next transmission to let out.
    pub(super) fn pop(&mut self) -> Option<Kept> {
        let polls_waiting = !self.polls.is_empty() || !self.due.is_empty();
        let polls_turn = self.urgent.is_empty() || (self.run >= URGENT_RUN && polls_waiting);
        let next = if polls_turn {
            self.run = 0;
            (self.polls.pop_front().map(Kept::Transmit))
                .or_else(|| self.due.pop_front().map(Kept::Poll))
        } else {
            self.run = self.run.saturating_add(1);
            self.urgent.pop_front().map(Kept::Transmit)
        };
        let room = self.urgent.capacity() + self.polls.capacity() + self.due.capacity();
        if self.is_empty() && room > ROOM {
            // All out: give back the room a burst took.
            self.clear();
        }
        next
    }

    /// Forgets every kept transmission.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(n: u64) -> Transmit {
        Transmit {
            key: SendKey(n),
            body: String::new(),
            headers: Vec::new(),
            one_way: false,
            background: false,
        }
    }

    #[test]
    fn the_callers_go_first_but_polls_get_every_fourth_turn() {
        let mut b = Backlog::default();
        (1..=4).for_each(|n| b.push(tx(n), true));
        (11..=17).for_each(|n| b.push(tx(n), false));
        assert!(b.cancel(SendKey(12)));
        assert!(!b.cancel(SendKey(99)));
        assert_eq!(b.len(), 10);
        let order: Vec<u64> = std::iter::from_fn(|| b.pop())
            .map(|k| match k {
                Kept::Transmit(t) => t.key.0,
                Kept::Poll(_) => 0,
            })
            .collect();
        assert_eq!(order, [11, 13, 14, 1, 15, 16, 17, 2, 3, 4]);
        assert!(b.is_empty());
    }
}
