//! The client's own bookkeeping of what it started: its live subscriptions by id, and the
//! one-shot operations awaiting their reply, each with the caller's key.

use crate::engine::api::{OpId, SubId};

/// The live subscriptions in ascending id order, found by binary search: a sorted `Vec` of its
/// own (each entry added once, never replaced), less wasm than an `IdMap` or `SortedMap` instance.
pub struct Subs<T>(Vec<(SubId, T)>);

impl<T> Default for Subs<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Subs<T> {
    fn find(&self, sub: SubId) -> Result<usize, usize> {
        self.0.binary_search_by_key(&sub, |(id, _)| *id)
    }

    #[inline]
    pub fn get(&self, sub: SubId) -> Option<&T> {
        self.0.get(self.find(sub).ok()?).map(|(_, s)| s)
    }

    #[inline]
    pub fn get_mut(&mut self, sub: SubId) -> Option<&mut T> {
        let at = self.find(sub).ok()?;
        self.0.get_mut(at).map(|(_, s)| s)
    }

    /// Adds subscription `sub` (an id the engine handed out: never one already here; if it were,
    /// the first entry stays).
    #[inline]
    pub fn insert(&mut self, sub: SubId, s: T) {
        if let Err(at) = self.find(sub) {
            self.0.insert(at, (sub, s));
        }
    }

    #[inline]
    pub fn remove(&mut self, sub: SubId) -> Option<T> {
        let at = self.find(sub).ok()?;
        Some(self.0.remove(at).1)
    }
}

/// The one-shot operations awaiting their reply, with the caller's key for each (a few at a
/// time: a `Vec` costs less wasm than another map instantiation).
#[derive(Default)]
pub struct Replies(Vec<(OpId, f64)>);

impl Replies {
    /// Operation `op` awaits its reply, reported under `key`.
    #[inline]
    pub fn wait(&mut self, op: OpId, key: f64) {
        self.0.push((op, key));
    }

    /// Operation `op` was answered: the key it is reported under, once.
    #[inline]
    pub fn take(&mut self, op: OpId) -> Option<f64> {
        let at = self.0.iter().position(|(id, _)| *id == op)?;
        Some(self.0.swap_remove(at).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_are_found_by_id_whatever_the_order_they_came_in() {
        let mut subs = Subs::default();
        for id in [5, 1, 9, 3] {
            subs.insert(SubId(id), id * 10);
        }
        assert_eq!(subs.get(SubId(3)), Some(&30));
        assert_eq!(subs.get(SubId(4)), None);
        if let Some(s) = subs.get_mut(SubId(9)) {
            *s += 1;
        }
        assert_eq!(subs.remove(SubId(9)), Some(91));
        assert_eq!(subs.remove(SubId(9)), None);
        assert_eq!(subs.get(SubId(5)), Some(&50));
        assert_eq!(subs.get(SubId(1)), Some(&10));
    }

    #[test]
    fn a_subscription_is_never_replaced() {
        let mut subs = Subs::default();
        subs.insert(SubId(2), "first");
        subs.insert(SubId(2), "second");
        assert_eq!(subs.remove(SubId(2)), Some("first"));
        assert_eq!(subs.get(SubId(2)), None);
    }

    #[test]
    fn each_reply_reaches_its_key_once() {
        let mut replies = Replies::default();
        replies.wait(OpId(1), 10.0);
        replies.wait(OpId(2), 20.0);
        replies.wait(OpId(3), 30.0);
        assert_eq!(replies.take(OpId(2)), Some(20.0));
        assert_eq!(replies.take(OpId(2)), None);
        assert_eq!(replies.take(OpId(7)), None);
        assert_eq!(replies.take(OpId(3)), Some(30.0));
        assert_eq!(replies.take(OpId(1)), Some(10.0));
    }
}
