//! The one task model every dialect maps into. It is also what JS receives: on `wasm32`, `tsify`
//! declares each shape's TypeScript from the same type (a JSON object as `JsonObject`).

use crate::json::Value;
use serde::{Deserialize, Serialize};

use super::jsonrpc::RpcError;
use crate::json::{Object, ToJson};

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

crate::json::wire_names!(TaskStatus {
    Submitted => "submitted",
    Working => "working",
    InputRequired => "input_required",
    Completed => "completed",
    Failed => "failed",
    Cancelled => "cancelled",
    Unknown => "unknown",
    Expired => "expired",
});

impl TaskStatus {
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

crate::json::wire_names!(Dialect {
    Modern => "modern",
    Legacy => "legacy",
    Draft => "draft",
});

impl ToJson for Outcome {
    fn push_json(&self, out: &mut String) {
        match self {
            Self::Result { result } => {
                (Object::new(out).with("kind", &"result"))
                    .with("result", result)
                    .end();
            }
            Self::Error { error } => {
                (Object::new(out).with("kind", &"error"))
                    .with("error", &error.to_value())
                    .end();
            }
        }
    }
}

impl ToJson for InputRequest {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("key", &self.key))
            .with("method", &self.method)
            .with("params", &self.params)
            .end();
    }
}

impl ToJson for Task {
    fn push_json(&self, out: &mut String) {
        let task = (Object::new(out).with("taskId", &self.task_id))
            .with("status", &self.status)
            .with_some("statusMessage", &self.status_message)
            .with_some("createdAt", &self.created_at)
            .with_some("lastUpdatedAt", &self.last_updated_at)
            .with_some("ttlMs", &self.ttl_ms)
            .with_some("keepAliveMs", &self.keep_alive_ms)
            .with_some("pollIntervalMs", &self.poll_interval_ms)
            .with_some("outcome", &self.outcome);
        match self.input_requests.is_empty() {
            true => task,
            false => task.with("inputRequests", &self.input_requests),
        }
        .end();
    }
}

impl ToJson for TaskList {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("tasks", &self.tasks))
            .with_some("nextCursor", &self.next_cursor)
            .end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    /// Each hand-written JSON form is what the type's derived `Serialize` writes.
    #[test]
    fn to_json_is_the_serde_form() {
        let full = Task {
            status_message: Some("m".into()),
            created_at: Some("c".into()),
            last_updated_at: Some("l".into()),
            ttl_ms: Some(1),
            keep_alive_ms: Some(2),
            poll_interval_ms: Some(3),
            outcome: Some(Outcome::Result {
                result: json!({ "a": [1] }),
            }),
            input_requests: vec![InputRequest {
                key: "k".into(),
                method: "m".into(),
                params: json!({}),
            }],
            ..Task::new("t", TaskStatus::InputRequired)
        };
        let mut error = RpcError::new(-1, "no");
        let bare = Task {
            outcome: Some(Outcome::Error {
                error: error.clone(),
            }),
            ..Task::new("u", TaskStatus::Failed)
        };
        error.data = Some(json!([null]));
        let with_data = Task {
            outcome: Some(Outcome::Error { error }),
            ..Task::new("v", TaskStatus::Completed)
        };
        for task in [&full, &bare, &with_data] {
            assert_eq!(task.to_json(), crate::json::to_value(task).unwrap());
        }
        for next_cursor in [None, Some("n".to_owned())] {
            let list = TaskList {
                tasks: vec![full.clone(), bare.clone()],
                next_cursor,
            };
            assert_eq!(list.to_json(), crate::json::to_value(&list).unwrap());
        }
        for d in Dialect::ALL {
            assert_eq!(d.to_json(), crate::json::to_value(&d).unwrap());
        }
    }

    #[test]
    fn status_names_are_the_serde_spelling() {
        for s in TaskStatus::ALL {
            assert_eq!(crate::json::to_value(&s).unwrap(), s.name());
            assert_eq!(
                crate::json::from_value::<TaskStatus>(s.name().into()).unwrap(),
                s
            );
        }
    }
}
