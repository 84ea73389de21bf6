//! Fixtures shared by the dialect unit tests.

use crate::json::{json, Value};

use super::{Outgoing, SessionInfo};

/// Owned values a [`SessionInfo`] borrows.
pub(super) struct Fixture {
    pub version: &'static str,
    pub info: Value,
    pub caps: Value,
    pub session: Option<&'static str>,
}

impl Fixture {
    pub fn new(version: &'static str, session: Option<&'static str>) -> Self {
        Self {
            version,
            info: json!({"name": "mcp-task-client", "version": "0.1.0"}),
            caps: json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
            session,
        }
    }

    pub fn s(&self) -> SessionInfo<'_> {
        SessionInfo {
            protocol_version: self.version,
            client_info: &self.info,
            client_capabilities: &self.caps,
            session_id: self.session,
        }
    }
}

/// The headers of a built message, sorted, as `(&str, &str)` pairs.
pub(super) fn headers(o: &Outgoing) -> Vec<(&str, &str)> {
    let mut out: Vec<_> = o
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    out.sort();
    out
}
