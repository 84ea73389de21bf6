//! The hasher of the tests' hash maps (keyed by task ids and other strings): small and
//! deterministic. The shipped code keeps no hash map: by string key it keeps a sorted `Vec`
//! ([`SortedMap`](super::sorted::SortedMap)), which brings no hash table code into the wasm.

/// Multiplicative mixing, in the spirit of FxHash.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHash;

impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

#[derive(Debug)]
pub struct IdHasher(u64);

impl IdHasher {
    fn mix(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for IdHasher {
    /// Eight bytes per step (a task id is a handful of steps, not one per byte).
    fn write(&mut self, bytes: &[u8]) {
        for_words(bytes, |w| self.mix(w));
    }
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Calls `f` with `bytes` as little-endian 64-bit words, the last one zero-padded (callers that
/// need it tell lengths apart themselves: `str` keys end with a `0xff` byte).
pub(crate) fn for_words(bytes: &[u8], mut f: impl FnMut(u64)) {
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        if let Some(w) = w.first_chunk::<8>() {
            f(u64::from_le_bytes(*w));
        }
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        f(tail.iter().rev().fold(0, |acc, b| acc << 8 | u64::from(*b)));
    }
}
