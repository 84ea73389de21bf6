//! The map and set keyed by the client's own counted ids (subscriptions, operations, requests,
//! transmissions, calls, task slots, the timers by slot): one `Vec` of entries in ascending id order, found by binary
//! search. Ids are handed out counting up, so a new entry goes at the end. A removed entry stays
//! behind, vacant, until the vacant entries are as many as the occupied ones; then they are swept
//! out together, so neither insertion nor removal moves the whole map each time. Each instance is
//! a fraction of the code a hash map's costs in the wasm binary; it iterates in ascending id order.

/// A map from an id `K` to `V`, in ascending id order.
#[derive(Debug, Clone)]
pub struct IdMap<K, V> {
    /// Strictly ascending keys; `None`: removed, not swept out yet.
    entries: Vec<(K, Option<V>)>,
    /// How many entries hold a value.
    len: usize,
}

impl<K, V> Default for IdMap<K, V> {
    fn default() -> Self {
        IdMap {
            entries: Vec::new(),
            len: 0,
        }
    }
}

impl<K: Ord, V> IdMap<K, V> {
    /// Where `k` is, vacant or not, or where it would go.
    fn find(&self, k: &K) -> Result<usize, usize> {
        // A new id is past the last one: no search.
        match self.entries.last() {
            Some((last, _)) if last < k => Err(self.entries.len()),
            _ => self.entries.binary_search_by(|(x, _)| x.cmp(k)),
        }
    }

    /// Sets `k` to `v`, returning the value it replaces.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(at) => {
                let old = self.entries.get_mut(at)?.1.replace(v);
                self.len += usize::from(old.is_none());
                old
            }
            Err(at) => {
                if self.entries.len() == self.entries.capacity() {
                    // Grown by a quarter, not doubled: a map of every task's timers or slots
                    // then keeps little room it does not use.
                    self.entries.reserve_exact(self.entries.len() / 4 + 1);
                }
                // `find` gives an index in `0..=len`, where `Vec::insert` cannot fail.
                self.entries.insert(at, (k, Some(v)));
                self.len += 1;
                None
            }
        }
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        let at = self.find(k).ok()?;
        self.entries.get(at)?.1.as_ref()
    }

    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        let at = self.find(k).ok()?;
        self.entries.get_mut(at)?.1.as_mut()
    }

    pub fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// Removes `k`, returning its value.
    pub fn remove(&mut self, k: &K) -> Option<V> {
        let at = self.find(k).ok()?;
        let v = self.entries.get_mut(at)?.1.take()?;
        self.len -= 1;
        if self.len * 2 < self.entries.len() {
            self.sweep();
        }
        Some(v)
    }

    /// Drops the vacant entries, and gives back the room once three quarters of it are free (after
    /// a burst of thousands it would keep room for all of them).
    fn sweep(&mut self) {
        self.entries.retain(|e| e.1.is_some());
        if self.entries.len() * 4 < self.entries.capacity() {
            self.entries.shrink_to_fit();
        }
    }

    /// Keeps only the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries
            .retain_mut(|(k, v)| v.as_mut().is_some_and(|v| keep(k, v)));
        self.len = self.entries.len();
    }

    pub fn clear(&mut self) {
        *self = IdMap::default();
    }
}

impl<K, V> IdMap<K, V> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        (self.entries.iter()).filter_map(|(k, v)| Some((k, v.as_ref()?)))
    }

    /// The entries in ascending id order, values mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        (self.entries.iter_mut()).filter_map(|(k, v)| Some((&*k, v.as_mut()?)))
    }

    /// The ids in ascending order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// The values in ascending id order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// The values in ascending id order, mutable.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.iter_mut().map(|(_, v)| v)
    }
}

/// An entry's id and value, if it is not vacant.
type Occupied<K, V> = fn((K, Option<V>)) -> Option<(K, V)>;

impl<K, V> IntoIterator for IdMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::iter::FilterMap<std::vec::IntoIter<(K, Option<V>)>, Occupied<K, V>>;

    /// The entries in ascending id order.
    fn into_iter(self) -> Self::IntoIter {
        fn occupied<K, V>((k, v): (K, Option<V>)) -> Option<(K, V)> {
            Some((k, v?))
        }
        self.entries
            .into_iter()
            .filter_map(occupied as Occupied<K, V>)
    }
}

/// A set of ids, in ascending order.
#[derive(Debug, Clone)]
pub struct IdSet<K>(IdMap<K, ()>);

impl<K> Default for IdSet<K> {
    fn default() -> Self {
        IdSet(IdMap::default())
    }
}

impl<K: Ord> IdSet<K> {
    /// Adds `k`; `false` if it was there already.
    pub fn insert(&mut self, k: K) -> bool {
        self.0.insert(k, ()).is_none()
    }

    /// Removes `k`; `false` if it was not there.
    pub fn remove(&mut self, k: &K) -> bool {
        self.0.remove(k).is_some()
    }

    pub fn contains(&self, k: &K) -> bool {
        self.0.contains_key(k)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<K> IdSet<K> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The ids in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.0.keys()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use proptest::prelude::*;

    use super::{IdMap, IdSet};

    /// The map's own invariants: keys strictly ascending, `len` counts the occupied entries, and
    /// vacant entries never outnumber occupied ones.
    fn check<V>(m: &IdMap<u16, V>) -> Result<(), TestCaseError> {
        prop_assert!(m.entries.windows(2).all(|w| w[0].0 < w[1].0));
        let occupied = m.entries.iter().filter(|e| e.1.is_some()).count();
        prop_assert_eq!(m.len, occupied);
        prop_assert!(m.entries.len() - occupied <= occupied);
        Ok(())
    }

    /// Ids mostly counting up, as the client hands them out, sometimes an old one again.
    fn ids() -> impl Strategy<Value = Vec<(u8, bool, u16, u8)>> {
        prop::collection::vec((0u8..6, any::<bool>(), 0u16..64, any::<u8>()), 0..200)
    }

    proptest! {
        #[test]
        fn an_id_map_behaves_like_a_hash_map(ops in ids()) {
            let mut ours = IdMap::default();
            let mut model: HashMap<u16, u8> = HashMap::new();
            let mut next = 0u16;
            for (op, fresh, old, v) in ops {
                let k = if fresh { next += 1; next } else { old };
                match op {
                    0 | 1 => prop_assert_eq!(ours.insert(k, v), model.insert(k, v)),
                    2 | 3 => prop_assert_eq!(ours.remove(&k), model.remove(&k)),
                    4 => {
                        if let (Some(a), Some(b)) = (ours.get_mut(&k), model.get_mut(&k)) {
                            *a = a.wrapping_add(v);
                            *b = b.wrapping_add(v);
                        }
                    }
                    _ => {
                        ours.retain(|k, x| (*k as u8 ^ *x) & 3 != 0);
                        model.retain(|k, x| (*k as u8 ^ *x) & 3 != 0);
                    }
                }
                check(&ours)?;
                prop_assert_eq!(ours.get(&k), model.get(&k));
                prop_assert_eq!(ours.contains_key(&k), model.contains_key(&k));
                prop_assert_eq!(ours.len(), model.len());
                prop_assert_eq!(ours.is_empty(), model.is_empty());
            }
            let sorted: BTreeMap<u16, u8> = model.into_iter().collect();
            prop_assert!(ours.iter().eq(sorted.iter()));
            prop_assert!(ours.keys().eq(sorted.keys()));
            prop_assert!(ours.values().eq(sorted.values()));
            for v in ours.values_mut() {
                *v = v.wrapping_add(1);
            }
            prop_assert!(ours.iter_mut().map(|(k, v)| (*k, *v)).eq(sorted.iter().map(|(k, v)| (*k, v.wrapping_add(1)))));
            prop_assert!(ours.clone().into_iter().map(|(k, _)| k).eq(sorted.into_keys()));
            ours.clear();
            check(&ours)?;
            prop_assert!(ours.is_empty());
        }

        #[test]
        fn an_id_set_behaves_like_a_btree_set(ops in ids()) {
            let mut ours = IdSet::default();
            let mut model = BTreeSet::new();
            let mut next = 0u16;
            for (op, fresh, old, _) in ops {
                let k = if fresh { next += 1; next } else { old };
                if op < 3 {
                    prop_assert_eq!(ours.insert(k), model.insert(k));
                } else {
                    prop_assert_eq!(ours.remove(&k), model.remove(&k));
                }
                check(&ours.0)?;
                prop_assert_eq!(ours.contains(&k), model.contains(&k));
                prop_assert_eq!(ours.len(), model.len());
                prop_assert!(ours.iter().eq(model.iter()));
            }
        }
    }

    #[test]
    fn removing_the_oldest_of_many_ids_sweeps_the_vacant_ones_out() {
        let mut m = IdMap::default();
        for k in 0..10_000u32 {
            m.insert(k, k);
        }
        for k in 0..9_990u32 {
            assert_eq!(m.remove(&k), Some(k));
        }
        assert_eq!(m.len(), 10);
        assert!(m.entries.len() <= 20, "{} entries for 10", m.entries.len());
        assert!(
            m.entries.capacity() < 100,
            "room for {} kept",
            m.entries.capacity()
        );
        assert!(m.keys().copied().eq(9_990..10_000));
    }
}
