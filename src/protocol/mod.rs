//! Wire layer: JSON-RPC envelope, incremental SSE decoder, the common task model and one module per
//! task dialect. Pure Rust; no clock, no I/O.

pub mod dialect;
pub mod jsonrpc;
pub mod model;
pub mod sse;
