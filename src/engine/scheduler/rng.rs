//! Deterministic pseudo-random numbers from the seed the driver passes in (xoshiro256**,
//! seeded through SplitMix64). Used for poll jitter and draft task ids; the engine never reads
//! a randomness source of its own, so tests are reproducible.

use crate::json::digits::hex;

/// A small, fast, seedable generator; never used for anything secret.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator seeded with `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        let mut st = seed;
        Self {
            s: [
                splitmix(&mut st),
                splitmix(&mut st),
                splitmix(&mut st),
                splitmix(&mut st),
            ],
        }
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        let [s0, s1, s2, s3] = &mut self.s;
        let result = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = *s1 << 17;
        *s2 ^= *s0;
        *s3 ^= *s1;
        *s1 ^= *s2;
        *s0 ^= *s3;
        *s2 ^= t;
        *s3 = s3.rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform integer in `[lo, hi]` (returns `lo` when `hi <= lo`).
    pub(crate) fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        lo + self.next_u64() % (span + 1)
    }

    /// 128 random bits as 32 lowercase hex digits (draft task ids).
    pub(crate) fn hex128(&mut self) -> String {
        let (high, low) = (self.next_u64(), self.next_u64());
        [hex(high, 16), hex(low, 16)].concat()
    }

    /// [`Rng::hex128`] where `wanted`, else the same bits drawn and dropped (the sequence that
    /// follows is the same either way).
    pub(crate) fn hex128_if(&mut self, wanted: bool) -> String {
        if wanted {
            return self.hex128();
        }
        self.next_u64();
        self.next_u64();
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let x = a.between(10, 20);
            assert!((10..=20).contains(&x));
            b.between(10, 20);
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            b.unit();
        }
        assert_eq!(a.between(5, 5), 5);
        assert_eq!(a.between(9, 3), 9);
    }

    #[test]
    fn hex_ids_are_128_bits_and_distinct() {
        let mut r = Rng::new(1);
        let x = r.hex128();
        let y = r.hex128();
        assert_eq!(x.len(), 32);
        assert!(x.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(x, y);
    }
}
