//! What tabs of one scope say to each other over their channel (JSON text).
//!
//! Every id inside an [`Op`] or an event is the *follower's own* (tab-local) id; the leader maps
//! them to its engine's ids. A follower re-sends its live operations to every new leader (the
//! leader ignores what it already has), so a failover loses nothing that can be safely repeated.

use crate::json::Value;
use serde::Serialize;

use crate::engine::api::{CallOptions, Event, InputId, SubId};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::Dialect;

/// A tab's random id for its lifetime.
pub type TabId = u64;

/// One operation a tab asks of the leader.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Op {
    #[serde(rename_all = "camelCase")]
    CallTool {
        name: String,
        arguments: Value,
        opts: CallOptions,
    },
    #[serde(rename_all = "camelCase")]
    Request {
        method: String,
        params: Value,
        opts: CallOptions,
    },
    #[serde(rename_all = "camelCase")]
    Watch {
        task_id: String,
    },
    #[serde(rename_all = "camelCase")]
    Unsubscribe {
        sub: SubId,
    },
    #[serde(rename_all = "camelCase")]
    Cancel {
        task_id: String,
    },
    #[serde(rename_all = "camelCase")]
    DeleteTask {
        task_id: String,
    },
    #[serde(rename_all = "camelCase")]
    AnswerInput {
        id: InputId,
        answer: Result<Value, RpcError>,
    },
    #[serde(rename_all = "camelCase")]
    ListTasks {
        cursor: Option<String>,
    },
    ListTools,
    /// Stop tracking a task (the caller forgot it).
    #[serde(rename_all = "camelCase")]
    Forget {
        task_id: String,
    },
}

impl Op {
    /// Operations answered by a subscription (the rest by a reply, or by nothing).
    pub fn makes_sub(&self) -> bool {
        matches!(
            self,
            Op::CallTool { .. } | Op::Request { .. } | Op::Watch { .. }
        )
    }

    pub fn makes_reply(&self) -> bool {
        matches!(
            self,
            Op::Cancel { .. } | Op::DeleteTask { .. } | Op::ListTasks { .. } | Op::ListTools
        )
    }
}

/// What the session looks like (the payload of `Event::Connected`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionWire {
    pub dialect: Dialect,
    pub protocol_version: String,
    pub server_info: Value,
    pub capabilities: Value,
}

impl SessionWire {
    /// The session an [`Event::Connected`] describes.
    pub fn of(ev: Event) -> Option<SessionWire> {
        match ev {
            Event::Connected {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            } => Some(SessionWire {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            }),
            _ => None,
        }
    }

    pub fn event(&self) -> Event {
        Event::Connected {
            dialect: self.dialect,
            protocol_version: self.protocol_version.clone(),
            server_info: self.server_info.clone(),
            capabilities: self.capabilities.clone(),
        }
    }
}

/// One channel message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "t", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)]
pub enum Msg {
    /// A tab joined (or woke up) and wants to hear from the leader.
    #[serde(rename_all = "camelCase")]
    Hello { from: TabId, visible: bool },
    /// The leader's announcement and heartbeat; a new `epoch` means a new leader. `hidden_ms`:
    /// how long its page has been hidden (0: visible). `session_id`: the session's legacy
    /// `Mcp-Session-Id`, for a next leader that cannot read the stored session in time.
    #[serde(rename_all = "camelCase")]
    Leader {
        from: TabId,
        epoch: u64,
        hidden_ms: u64,
        session: Option<SessionWire>,
        session_id: Option<String>,
    },
    /// A follower's operation; `id` is its local sub/op id (0 when the op makes neither).
    #[serde(rename_all = "camelCase")]
    Op {
        from: TabId,
        epoch: u64,
        id: u64,
        op: Op,
    },
    /// The leader received a subscribing operation (a call is not re-sent after this).
    #[serde(rename_all = "camelCase")]
    Ack { to: TabId, epoch: u64, id: u64 },
    /// An event for one tab (`to`), or for all (`None`), in tab-local ids.
    #[serde(rename_all = "camelCase")]
    Ev {
        to: Option<TabId>,
        epoch: u64,
        event: Event,
    },
    /// A follower's page became visible or hidden.
    #[serde(rename_all = "camelCase")]
    Vis { from: TabId, visible: bool },
    /// A follower saw the `online` event.
    #[serde(rename_all = "camelCase")]
    Online { from: TabId },
    /// A follower received input request `id` (the leader asks another tab when none comes).
    #[serde(rename_all = "camelCase")]
    Got { from: TabId, epoch: u64, id: u64 },
    /// A tab is going away: drop its subscriptions.
    #[serde(rename_all = "camelCase")]
    Bye { from: TabId },
}

#[cfg(feature = "tabs")]
impl Msg {
    /// The message's JSON text (as its `Serialize` derive writes it).
    pub fn encode(&self) -> String {
        crate::json::json_text(self)
    }
}
