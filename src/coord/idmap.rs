//! A map keyed by tab-local ids, as a `Vec` sorted by id (ids are allocated in increasing order,
//! so inserting appends). A tab holds a handful of entries; a `BTreeMap` per value type cost
//! about 6 KB of wasm each.

/// Entries in ascending id order (iteration order matches a `BTreeMap`'s).
#[derive(Debug, Clone)]
pub(crate) struct IdMap<V>(Vec<(u64, V)>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> IdMap<V> {
    fn pos(&self, id: u64) -> Result<usize, usize> {
        self.0.binary_search_by_key(&id, |(k, _)| *k)
    }

    pub fn insert(&mut self, id: u64, v: V) {
        match self.pos(id) {
            Ok(i) => {
                if let Some(e) = self.0.get_mut(i) {
                    e.1 = v;
                }
            }
            Err(i) => self.0.insert(i, (id, v)),
        }
    }

    pub fn get_mut(&mut self, id: &u64) -> Option<&mut V> {
        let i = self.pos(*id).ok()?;
        self.0.get_mut(i).map(|(_, v)| v)
    }

    pub fn remove(&mut self, id: &u64) -> Option<V> {
        let i = self.pos(*id).ok()?;
        Some(self.0.remove(i).1)
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.pos(*id).is_ok()
    }
}

impl<V> IntoIterator for IdMap<V> {
    type Item = (u64, V);
    type IntoIter = std::vec::IntoIter<(u64, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}
