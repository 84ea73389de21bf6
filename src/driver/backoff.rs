//! Reconnect delays: the engine's backoff (`engine::backoff_delay`, with its seeded generator; the
//! seed comes from `crypto`).

pub use crate::engine::{
    backoff_delay as delay, Rng, BACKOFF_BASE_MS as BASE_MS, BACKOFF_CAP_MS as CAP_MS,
};
