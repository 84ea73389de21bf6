//! Reconnect delays with jitter, from a small seeded generator (the seed comes from `crypto`).

/// xorshift64*: enough for jitter; never used for anything secret.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Base delay of the first retry.
pub const BASE_MS: u64 = 1_000;
/// Largest delay before jitter.
pub const CAP_MS: u64 = 30_000;

/// `min(1 s · 2ⁿ, 30 s) × U(0.5, 1.5)` for the `attempt`-th retry (0-based).
pub fn delay(attempt: u32, rng: &mut Rng) -> u64 {
    let base = BASE_MS.saturating_mul(1u64 << attempt.min(16)).min(CAP_MS);
    (base as f64 * (0.5 + rng.unit())) as u64
}

/// Floor of any reconnect delay, whatever the server's `retry:` says (a `retry: 0` must not storm).
pub const MIN_RECONNECT_MS: u64 = 250;

/// Delay before reopening a stream: the server's `retry:` (floored) for the first attempt after a
/// stream that delivered events; once attempts keep failing, the larger of it and our backoff.
pub fn reconnect_delay(server_ms: Option<u64>, attempt: u32, rng: &mut Rng) -> u64 {
    match server_ms {
        Some(ms) if attempt == 0 => ms.max(MIN_RECONNECT_MS),
        Some(ms) => ms.max(delay(attempt, rng)),
        None => delay(attempt, rng),
    }
}
