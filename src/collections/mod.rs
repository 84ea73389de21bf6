//! Collections the engine, the tab coordination and the driver keep their state in, each small in
//! wasm and deterministic: sorted `Vec` maps and sets, maps keyed by dense numeric ids, a FIFO, a
//! min-heap of deadlines, and the one hasher of every hash map. Pure Rust, below every other room
//! but `json`.

pub(crate) mod fifo;
pub(crate) mod hash;
pub mod idmap;
pub(crate) mod minheap;
pub mod sorted;
