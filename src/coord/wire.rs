//! What tabs of one scope say to each other over their channel (JSON text).
//!
//! Every id inside an [`Op`] or an event is the *follower's own* (tab-local) id; the leader maps
//! them to its engine's ids. A follower re-sends its live operations to every new leader (the
//! leader ignores what it already has), so a failover loses nothing that can be safely repeated.

use crate::json::{json_text, Object, ToJson, Value};
use serde::Serialize;

use super::forms::Tagged;

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

impl Msg {
    /// The message's JSON text (as its `Serialize` derive writes it).
    pub fn encode(&self) -> String {
        json_text(self)
    }
}

impl ToJson for Msg {
    fn push_json(&self, out: &mut String) {
        let o = Object::new(out);
        match self {
            Msg::Hello { from, visible } => {
                (o.with("t", &"hello").with("from", from)).with("visible", visible)
            }
            Msg::Leader {
                from,
                epoch,
                hidden_ms,
                session,
                session_id,
            } => (o.with("t", &"leader").with("from", from))
                .with("epoch", epoch)
                .with("hiddenMs", hidden_ms)
                .with("session", session)
                .with("sessionId", session_id),
            Msg::Op {
                from,
                epoch,
                id,
                op,
            } => (o.with("t", &"op").with("from", from))
                .with("epoch", epoch)
                .with("id", id)
                .with("op", op),
            Msg::Ack { to, epoch, id } => (o.with("t", &"ack").with("to", to))
                .with("epoch", epoch)
                .with("id", id),
            Msg::Ev { to, epoch, event } => (o.with("t", &"ev").with("to", to))
                .with("epoch", epoch)
                .with("event", event),
            Msg::Vis { from, visible } => {
                (o.with("t", &"vis").with("from", from)).with("visible", visible)
            }
            Msg::Online { from } => o.with("t", &"online").with("from", from),
            Msg::Got { from, epoch, id } => (o.with("t", &"got").with("from", from))
                .with("epoch", epoch)
                .with("id", id),
            Msg::Bye { from } => o.with("t", &"bye").with("from", from),
        }
        .end();
    }
}

impl ToJson for Op {
    fn push_json(&self, out: &mut String) {
        let o = Object::new(out);
        match self {
            Op::CallTool {
                name,
                arguments,
                opts,
            } => (o.with("op", &"callTool").with("name", name))
                .with("arguments", arguments)
                .with("opts", opts),
            Op::Request {
                method,
                params,
                opts,
            } => (o.with("op", &"request").with("method", method))
                .with("params", params)
                .with("opts", opts),
            Op::Watch { task_id } => o.with("op", &"watch").with("taskId", task_id),
            Op::Unsubscribe { sub } => o.with("op", &"unsubscribe").with("sub", sub),
            Op::Cancel { task_id } => o.with("op", &"cancel").with("taskId", task_id),
            Op::DeleteTask { task_id } => o.with("op", &"deleteTask").with("taskId", task_id),
            Op::AnswerInput { id, answer } => {
                let answer = Tagged(answer.as_ref().map_err(|e| e as &dyn ToJson));
                (o.with("op", &"answerInput").with("id", id)).with("answer", &answer)
            }
            Op::ListTasks { cursor } => o.with("op", &"listTasks").with("cursor", cursor),
            Op::ListTools => o.with("op", &"listTools"),
            Op::Forget { task_id } => o.with("op", &"forget").with("taskId", task_id),
        }
        .end();
    }
}

impl ToJson for SessionWire {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("dialect", &self.dialect))
            .with("protocolVersion", &self.protocol_version)
            .with("serverInfo", &self.server_info)
            .with("capabilities", &self.capabilities)
            .end();
    }
}
