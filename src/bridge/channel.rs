//! Reading the channel's messages (the types live in [`crate::coord::wire`]).

use crate::json::Value;

use super::json::{self, Fields};
use crate::engine::api::{InputId, SubId};

pub use crate::coord::wire::{Msg, Op, SessionWire, TabId};

fn read_op(v: Value) -> Option<Op> {
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

fn read_session(v: Value) -> Option<SessionWire> {
    let mut f = Fields::of(v)?;
    Some(SessionWire {
        dialect: f.get("dialect", json::dialect)?,
        protocol_version: f.get("protocolVersion", json::string)?,
        server_info: f.get("serverInfo", json::value)?,
        capabilities: f.get("capabilities", json::value)?,
    })
}

/// Reads what [`Msg::encode`] wrote (`None` for anything else).
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
            session: f.opt("session", read_session)?,
            session_id: f.opt("sessionId", json::string)?,
        },
        "op" => Msg::Op {
            from: from(&mut f)?,
            epoch: epoch(&mut f)?,
            id: f.get("id", json::u64)?,
            op: f.get("op", read_op)?,
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
        "got" => Msg::Got {
            from: from(&mut f)?,
            epoch: epoch(&mut f)?,
            id: f.get("id", json::u64)?,
        },
        "bye" => Msg::Bye {
            from: from(&mut f)?,
        },
        _ => return None,
    })
}
