//! Reconnect delays: the engine's backoff (`engine::backoff_delay`, with its seeded generator; the
//! seed comes from `crypto`) under the server's `retry:` field.

pub use crate::engine::{
    backoff_delay as delay, Rng, BACKOFF_BASE_MS as BASE_MS, BACKOFF_CAP_MS as CAP_MS,
};

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
