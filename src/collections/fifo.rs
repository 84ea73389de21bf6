//! A first-in first-out queue of small `Copy` values (transmission keys, slots, timeouts): a `Vec`
//! read from a moving front. Taking from the front moves nothing. A value added to a full buffer
//! whose taken part is at least a quarter of it moves the rest down over that part instead of
//! growing it: the buffer stays about as large as a `VecDeque`'s would, and each move of up to
//! three quarters of it frees a quarter (constant time per value overall). An instance is a
//! fraction of the code a `VecDeque`'s costs in the wasm binary.

/// A queue of `T`, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct Fifo<T> {
    /// Taken values (before `head`), then the queue.
    items: Vec<T>,
    head: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<T: Copy> Fifo<T> {
    pub(crate) fn len(&self) -> usize {
        self.items.len() - self.head
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }

    /// Room for values, taken ones included.
    pub(crate) fn capacity(&self) -> usize {
        self.items.capacity()
    }

    pub(crate) fn push_back(&mut self, value: T) {
        if self.items.len() == self.items.capacity() && self.head * 4 >= self.items.len() {
            self.compact();
        }
        self.items.push(value);
    }

    pub(crate) fn front(&self) -> Option<T> {
        self.items.get(self.head).copied()
    }

    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let value = self.front()?;
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        }
        Some(value)
    }

    /// Keeps only the values `keep` says yes to, in order.
    pub(crate) fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.compact();
        self.items.retain(keep);
    }

    /// Drops the taken values: the queue moves down to the start of the buffer.
    fn compact(&mut self) {
        // `head <= len`: both cannot fail.
        self.items.copy_within(self.head.., 0);
        self.items.truncate(self.items.len() - self.head);
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::Fifo;

    proptest! {
        #[test]
        fn a_fifo_behaves_like_a_vec_deque(ops in prop::collection::vec((0u8..8, any::<u8>()), 0..200)) {
            let mut ours = Fifo::default();
            let mut model = VecDeque::new();
            for (op, v) in ops {
                match op {
                    0..=3 => {
                        ours.push_back(v);
                        model.push_back(v);
                    }
                    4..=6 => prop_assert_eq!(ours.pop_front(), model.pop_front()),
                    _ => {
                        ours.retain(|x| (x ^ v) & 3 != 0);
                        model.retain(|x| (x ^ v) & 3 != 0);
                    }
                }
                prop_assert_eq!(ours.front(), model.front().copied());
                prop_assert_eq!(ours.len(), model.len());
                prop_assert_eq!(ours.is_empty(), model.is_empty());
                prop_assert!(ours.head < ours.items.len() || ours.head == 0);
            }
        }
    }
}
