//! Persistence per scope (server URL + identity): the scope's key and, in the full build,
//! `localStorage` access, the stored tasks and shared session of tab coordination.
//!
//! Every key starts with the scope's key, so one server's or one identity's records are never
//! read for another.

#[cfg(feature = "tabs")]
mod host;
#[cfg(feature = "tabs")]
mod idb;
#[cfg(feature = "tabs")]
pub(crate) mod local;
#[cfg(feature = "tabs")]
mod store;

/// What every name this package gives a `localStorage` item starts with, so other data in the
/// origin's storage is never touched.
pub const PREFIX: &str = "mcp-task-client/";

#[cfg(feature = "tabs")]
pub use store::*;

/// Which server and which user a record belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub url: String,
    pub identity: Option<String>,
    /// `["url", identity]` as JSON: prefix-free, so no scope's keys are a prefix of another's.
    pub key: String,
}

impl Scope {
    pub fn new(url: &str, identity: Option<&str>) -> Scope {
        let key = crate::json::text(&crate::json::Value::from(vec![Some(url), identity]));
        Scope {
            url: url.to_owned(),
            identity: identity.map(str::to_owned),
            key,
        }
    }
}
