//! mcp-task-client: an MCP Tasks requestor for browsers, Node and Electron.
//!
//! The crate is nine rooms with dependencies pointing one way only:
//! `js` → `driver` → `bridge` → `coord` (tab coordination) → `engine` → `auth` (OAuth as a
//! client) → `protocol` → `collections` → `json`. Everything but `driver` and `js` is pure Rust
//! (sans-IO: time, randomness and bytes are inputs) and is tested natively; `driver` and `js`
//! exist only on `wasm32`, where they call the host and hand what it says to `bridge`, which
//! says what it means. `collections` holds
//! the maps, sets and queues the rooms above keep their state in; below them all, `json` is the
//! JSON value, its text and its reader. Tests add `testkit`: the engine run against scripted
//! in-process servers, for the engine's and `coord`'s tests.

// Size rules (clippy.toml's disallowed items) bind the shipped code; tests may use anything.
#![cfg_attr(test, allow(clippy::disallowed_types))]

pub mod auth;
pub mod bridge;
pub mod collections;
pub mod coord;
pub mod engine;
pub mod json;
pub mod protocol;

#[cfg(test)]
mod testkit;

/// Native tests count heap bytes (see `testkit::heap`).
#[cfg(test)]
#[global_allocator]
static COUNTING: testkit::heap::Counting = testkit::heap::Counting;

#[cfg(target_arch = "wasm32")]
pub mod driver;
#[cfg(target_arch = "wasm32")]
pub mod js;
