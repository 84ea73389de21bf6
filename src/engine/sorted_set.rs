//! A small ordered set kept as a sorted `Vec`, for sets of a few ids (a task's subscribers).
//! It iterates in the same order as a `BTreeSet`, for a fraction of the code another `BTreeSet`
//! instantiation costs in the wasm binary.

/// A set of `T` in ascending order, without duplicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortedSet<T>(Vec<T>);

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet(Vec::new())
    }
}

impl<T: Ord> SortedSet<T> {
    /// Adds `v`; `false` if it was there already.
    pub(crate) fn insert(&mut self, v: T) -> bool {
        // `binary_search` gives an index in `0..=len`, where `Vec::insert` cannot fail.
        match self.0.binary_search(&v) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, v);
                true
            }
        }
    }

    /// Removes `v`; `false` if it was not there.
    pub(crate) fn remove(&mut self, v: &T) -> bool {
        // A found index is in `0..len`, where `Vec::remove` cannot fail.
        match self.0.binary_search(v) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members in ascending order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::SortedSet;

    proptest! {
        #[test]
        fn behaves_like_a_btree_set(ops in prop::collection::vec((any::<bool>(), 0u8..16), 0..64)) {
            let mut ours = SortedSet::default();
            let mut model = BTreeSet::new();
            for (add, v) in ops {
                if add {
                    prop_assert_eq!(ours.insert(v), model.insert(v));
                } else {
                    prop_assert_eq!(ours.remove(&v), model.remove(&v));
                }
                prop_assert_eq!(ours.is_empty(), model.is_empty());
                prop_assert!(ours.iter().eq(model.iter()));
            }
            prop_assert!(ours.into_iter().eq(model));
        }
    }
}
