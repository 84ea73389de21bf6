//! Wire layer: JSON-RPC envelope, incremental SSE decoder, the common task model and one module per
//! task dialect. Pure Rust; no clock, no I/O.

pub mod dialect;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod headers;
pub mod jsonrpc;
pub mod model;
pub mod sse;
pub mod tool_headers;

#[cfg(test)]
mod property_tests;
