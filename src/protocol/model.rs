//! The one task model every dialect maps into. It is also what JS receives: on `wasm32`, `tsify`
//! declares each shape's TypeScript from the same type (a JSON object as `JsonObject`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonrpc::RpcError;

/// Which task dialect a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Protocol 2026-07-28 with the `io.modelcontextprotocol/tasks` extension.
    Modern,
    /// Protocol 2025-11-25 core tasks.
    Legacy,
    /// SEP-1686 as first drafted (requestor-generated ids).
    Draft,
}

/// Task status in the common model (union of all dialects plus the client-side `expired`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
    Unknown,
    /// Client-side: the deadline passed or the server forgot a task it once knew.
    Expired,
}

impl TaskStatus {
    /// Every status, in declaration order.
    pub const ALL: [TaskStatus; 8] = [
        Self::Submitted,
        Self::Working,
        Self::InputRequired,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
        Self::Unknown,
        Self::Expired,
    ];

    /// The status as the wire and the JS API spell it (`input_required`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Unknown => "unknown",
            Self::Expired => "expired",
        }
    }

    /// Terminal states never change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Cancelled | Self::Unknown | Self::Expired
        )
    }
}

/// A status is serialized as its [`TaskStatus::name`].
impl Serialize for TaskStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// How a task ended, or how a plain (non-task) request was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The original request's result (a `CallToolResult` for `tools/call`; may carry `isError`).
    Result {
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonObject"))]
        result: Value,
    },
    /// The original request's JSON-RPC error.
    Error { error: RpcError },
}

/// A request the server needs the host to answer before the task can go on
/// (elicitation, sampling, roots).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
#[serde(rename_all = "camelCase")]
pub struct InputRequest {
    /// Stable key: the modern `inputRequests` key, or the server's JSON-RPC request id as a string.
    pub key: String,
    /// `elicitation/create`, `sampling/createMessage`, `roots/list`, …
    pub method: String,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonObject"))]
    pub params: Value,
}

/// A snapshot of one task in the common model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub task_id: String,
    pub status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 as sent by the server (kept verbatim).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_updated_at: Option<String>,
    /// Lifetime in ms from creation (`ttl` / `ttlMs`); absent: unlimited or not said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Draft `keepAlive`: how long the server keeps the task and its result after it ended, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_alive_ms: Option<u64>,
    /// The server's requested minimum poll interval in ms (`pollInterval` / `pollIntervalMs` / `pollFrequency`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// Inline outcome (modern `tasks/get` carries it; others after `tasks/result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Outstanding input requests carried in the task itself (modern `inputRequests`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub input_requests: Vec<InputRequest>,
}

/// One page of `listTasks`: the tasks, and the cursor of the next page when there is one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify), tsify(missing_as_null))]
#[serde(rename_all = "camelCase")]
pub struct TaskList {
    pub tasks: Vec<Task>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

impl Task {
    /// A task known only by id, in the given status.
    pub fn new(task_id: impl Into<String>, status: TaskStatus) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: None,
            last_updated_at: None,
            ttl_ms: None,
            keep_alive_ms: None,
            poll_interval_ms: None,
            outcome: None,
            input_requests: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TaskStatus;

    #[test]
    fn status_names_are_the_serde_spelling() {
        for s in TaskStatus::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
            assert_eq!(
                serde_json::from_value::<TaskStatus>(s.name().into()).unwrap(),
                s
            );
        }
    }
}
