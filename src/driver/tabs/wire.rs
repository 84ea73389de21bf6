//! What tabs of one scope say to each other over their `BroadcastChannel` (JSON text).
//!
//! Every id inside an [`Op`] or an event is the *follower's own* (tab-local) id; the leader maps
//! them to its engine's ids. A follower re-sends its live operations to every new leader (the
//! leader ignores what it already has), so a failover loses nothing that can be safely repeated.

use serde::Serialize;
use serde_json::Value;

use crate::driver::json::{self, Fields};
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

    fn read(v: Value) -> Option<Op> {
        let mut f = Fields::of(v)?;
        let task_id = |f: &mut Fields| f.get("taskId", json::string);
        Some(match f.tag("op")?.as_str() {
            "callTool" => Op::CallTool {
                name: f.get("name", json::string)?,
                arguments: f.get("arguments", json::value)?,
                opts: f.get("opts", json::call_options)?,
            },
            "request" => Op::Request {
                method: f.get("method", json::string)?,
                params: f.get("params", json::value)?,
                opts: f.get("opts", json::call_options)?,
            },
            "watch" => Op::Watch {
                task_id: task_id(&mut f)?,
            },
            "unsubscribe" => Op::Unsubscribe {
                sub: SubId(f.get("sub", json::u64)?),
            },
            "cancel" => Op::Cancel {
                task_id: task_id(&mut f)?,
            },
            "deleteTask" => Op::DeleteTask {
                task_id: task_id(&mut f)?,
            },
            "answerInput" => Op::AnswerInput {
                id: InputId(f.get("id", json::u64)?),
                answer: f.get("answer", json::answer)?,
            },
            "listTasks" => Op::ListTasks {
                cursor: f.opt("cursor", json::string)?,
            },
            "listTools" => Op::ListTools,
            "forget" => Op::Forget {
                task_id: task_id(&mut f)?,
            },
            _ => return None,
        })
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
    pub fn event(&self) -> Event {
        Event::Connected {
            dialect: self.dialect,
            protocol_version: self.protocol_version.clone(),
            server_info: self.server_info.clone(),
            capabilities: self.capabilities.clone(),
        }
    }

    fn read(v: Value) -> Option<SessionWire> {
        let mut f = Fields::of(v)?;
        Some(SessionWire {
            dialect: f.get("dialect", json::dialect)?,
            protocol_version: f.get("protocolVersion", json::string)?,
            server_info: f.get("serverInfo", json::value)?,
            capabilities: f.get("capabilities", json::value)?,
        })
    }
}

/// One channel message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "t", rename_all = "camelCase")]
pub enum Msg {
    /// A tab joined (or woke up) and wants to hear from the leader.
    #[serde(rename_all = "camelCase")]
    Hello { from: TabId, visible: bool },
    /// The leader's announcement and heartbeat; a new `epoch` means a new leader. `hidden_ms`:
    /// how long its page has been hidden (0: visible).
    #[serde(rename_all = "camelCase")]
    Leader {
        from: TabId,
        epoch: u64,
        hidden_ms: u64,
        session: Option<SessionWire>,
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
    /// A tab is going away: drop its subscriptions.
    #[serde(rename_all = "camelCase")]
    Bye { from: TabId },
}

impl Msg {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads what [`encode`](Self::encode) wrote (`None` for anything else).
    pub fn decode(text: &str) -> Option<Msg> {
        let mut f = Fields::of(json::parse(text)?)?;
        let from = |f: &mut Fields| f.get("from", json::u64);
        let epoch = |f: &mut Fields| f.get("epoch", json::u64);
        Some(match f.tag("t")?.as_str() {
            "hello" => Msg::Hello {
                from: from(&mut f)?,
                visible: f.get("visible", json::bool)?,
            },
            "leader" => Msg::Leader {
                from: from(&mut f)?,
                epoch: epoch(&mut f)?,
                hidden_ms: f.get("hiddenMs", json::u64)?,
                session: f.opt("session", SessionWire::read)?,
            },
            "op" => Msg::Op {
                from: from(&mut f)?,
                epoch: epoch(&mut f)?,
                id: f.get("id", json::u64)?,
                op: f.get("op", Op::read)?,
            },
            "ack" => Msg::Ack {
                to: f.get("to", json::u64)?,
                epoch: epoch(&mut f)?,
                id: f.get("id", json::u64)?,
            },
            "ev" => Msg::Ev {
                to: f.opt("to", json::u64)?,
                epoch: epoch(&mut f)?,
                event: f.get("event", json::event)?,
            },
            "vis" => Msg::Vis {
                from: from(&mut f)?,
                visible: f.get("visible", json::bool)?,
            },
            "online" => Msg::Online {
                from: from(&mut f)?,
            },
            "bye" => Msg::Bye {
                from: from(&mut f)?,
            },
            _ => return None,
        })
    }
}
