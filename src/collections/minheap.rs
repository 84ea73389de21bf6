//! A binary min-heap of small `Copy` values in a `Vec` (the timers' queue): push and pop in
//! O(log n), the least value on top. An instance is a fraction of the code `BinaryHeap`'s costs
//! in the wasm binary.

/// Values of `T`, the least first.
#[derive(Debug, Clone)]
pub(crate) struct MinHeap<T> {
    /// Each value is no less than its parent's (the value at `(i - 1) / 2`).
    items: Vec<T>,
}

impl<T> Default for MinHeap<T> {
    fn default() -> Self {
        MinHeap { items: Vec::new() }
    }
}

impl<T: Ord + Copy> MinHeap<T> {
    /// A heap of `items` (in any order), in their buffer.
    pub(crate) fn from_vec(items: Vec<T>) -> Self {
        let mut heap = MinHeap { items };
        for i in (0..heap.items.len() / 2).rev() {
            heap.sift_down(i);
        }
        heap
    }

    /// The values in no particular order, in the heap's buffer.
    pub(crate) fn into_vec(self) -> Vec<T> {
        self.items
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The least value.
    pub(crate) fn peek(&self) -> Option<T> {
        self.items.first().copied()
    }

    pub(crate) fn push(&mut self, value: T) {
        let mut i = self.items.len();
        self.items.push(value);
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.items.get(parent) <= self.items.get(i) {
                break;
            }
            self.items.swap(parent, i);
            i = parent;
        }
    }

    /// Removes the least value.
    pub(crate) fn pop(&mut self) -> Option<T> {
        let last = self.items.pop()?;
        let Some(top) = self.items.first_mut() else {
            return Some(last);
        };
        let least = std::mem::replace(top, last);
        self.sift_down(0);
        Some(least)
    }

    /// Moves the value at `i` down below any lesser children.
    fn sift_down(&mut self, mut i: usize) {
        loop {
            let mut least = i;
            for child in [2 * i + 1, 2 * i + 2] {
                if self
                    .items
                    .get(child)
                    .is_some_and(|c| Some(c) < self.items.get(least))
                {
                    least = child;
                }
            }
            if least == i {
                return;
            }
            self.items.swap(least, i);
            i = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MinHeap;
    use proptest::prelude::*;

    proptest! {
        /// Pushes and pops in any mix hand out what a sorted list would.
        #[test]
        fn pops_the_least_value(ops in proptest::collection::vec(proptest::option::of(0u8..50), 0..200)) {
            let mut heap = MinHeap::default();
            let mut model: Vec<u8> = Vec::new();
            for op in ops {
                match op {
                    Some(v) => {
                        heap.push(v);
                        model.push(v);
                    }
                    None => {
                        let least = model.iter().copied().min();
                        if let Some(v) = least {
                            let at = model.iter().position(|m| *m == v).unwrap_or(0);
                            model.swap_remove(at);
                        }
                        prop_assert_eq!(heap.pop(), least);
                    }
                }
                prop_assert_eq!(heap.peek(), model.iter().copied().min());
                prop_assert_eq!(heap.len(), model.len());
            }
            let mut rebuilt = MinHeap::from_vec(heap.into_vec());
            model.sort_unstable();
            let drained: Vec<u8> = std::iter::from_fn(|| rebuilt.pop()).collect();
            prop_assert_eq!(drained, model);
        }
    }
}
