//! Collections the engine, the tab coordination and the driver keep their state in, each small in
//! wasm and deterministic: sorted `Vec` maps and sets, maps keyed by dense numeric ids, a FIFO, a
//! min-heap of deadlines, and (for the tests) a hasher. Pure Rust, below every other room
//! but `json`.

pub(crate) mod fifo;
#[cfg(test)]
pub(crate) mod hash;
pub mod idmap;
pub(crate) mod minheap;
pub mod sorted;
