//! Wire layer: JSON-RPC envelope, incremental SSE decoder, the common task model and one module per
//! task dialect. Pure Rust; no clock, no I/O.

pub mod auth;
pub mod dialect;
/// Checks shared by the property tests, the fuzz targets and `examples/fuzz_smoke.rs`; built
/// only for tests and with the `fuzzing` feature, never into the library itself.
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzz_entry;
pub mod headers;
pub mod jsonrpc;
pub mod model;
pub mod sse;
pub mod tool_headers;

#[cfg(test)]
mod property_tests;

use serde_json::{Map, Value};

/// A JSON object of these members: `json!` without serializing each member into a `Value`
/// (which would pull serde_json's value serializer into the wasm binary).
pub fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut obj = Map::new();
    for (key, value) in members {
        obj.insert(key.to_owned(), value);
    }
    Value::Object(obj)
}
