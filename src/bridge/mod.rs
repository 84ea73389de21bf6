//! What the host's values mean: everything the wasm driver and JS face would otherwise decide,
//! parse, convert or keep as bookkeeping, in plain Rust on every target, so it is tested
//! natively. The driver calls the host (fetch, sockets, storage, the clock) and hands what it
//! reports here as plain values; what comes back is the engine's inputs, what to send, or what
//! to store.
//!
//! What the driver or the face calls from one place is `#[inline]`: across the module boundary
//! the size-optimised wasm build would otherwise keep each as a call of its own (about 0.4 KB
//! gzipped over the whole room).

pub mod body;
pub mod connecting;
pub mod era;
pub mod exchange;
pub mod inputs;
pub mod json;
pub mod link;
pub mod retry_after;
pub mod scope;
pub mod settings;
pub mod socket;
pub mod subs;

#[cfg(feature = "tabs")]
pub mod channel;
#[cfg(feature = "tabs")]
pub mod records;

#[cfg(test)]
mod tests;
