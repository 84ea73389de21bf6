//! One sample of every shape the readers read: what the package writes of each type.

use crate::coord::wire::{Msg, Op, SessionWire};
use crate::engine::api::{
    Augment, CallOptions, ClientError, End, ErrorKind, Event, InputId, OpId, SubId,
};
use crate::json::{json, Value};
use crate::protocol::auth::AuthChallenge;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, InputRequest, Outcome, Task, TaskStatus};

pub fn full_task(status: TaskStatus) -> Task {
    Task {
        task_id: "t-1".into(),
        status,
        status_message: Some("working \"hard\" \u{e9}\n".into()),
        created_at: Some("2026-01-01T00:00:00Z".into()),
        last_updated_at: Some("2026-01-01T00:00:01Z".into()),
        ttl_ms: Some(60_000),
        keep_alive_ms: Some(30_000),
        // Beyond 2^53, yet exact as a double: reads back equal through `JSON.parse` in JS.
        poll_interval_ms: Some(1 << 60),
        outcome: Some(Outcome::Result {
            result: json!({ "content": [{ "type": "text", "text": "hi" }], "n": 50000800000000000000000000000.0, "x": -1.5e-300 }),
        }),
        input_requests: vec![InputRequest {
            key: "k1".into(),
            method: "elicitation/create".into(),
            params: json!({ "message": "ok?", "requestedSchema": { "type": "object" } }),
        }],
    }
}

pub fn error(kind: ErrorKind) -> ClientError {
    ClientError {
        kind,
        message: "boom".into(),
        code: Some(-32_000),
        data: Some(json!({ "why": [1, 2.5, null] })),
        http_status: Some(401),
        auth: Some(Box::new(AuthChallenge {
            www_authenticate: Some("Bearer scope=\"a, b\"".into()),
            resource_metadata: Some("https://a/.well-known/oauth-protected-resource".into()),
            scope: Some("a, b".into()),
            error: Some("invalid_token".into()),
            error_description: None,
        })),
    }
}

pub fn rpc_error() -> RpcError {
    RpcError {
        code: -32602,
        message: "bad".into(),
        data: Some(json!("details")),
    }
}

pub fn events() -> Vec<Event> {
    let mut out = vec![
        Event::Connected {
            dialect: Dialect::Legacy,
            protocol_version: "2025-11-25".into(),
            server_info: json!({ "name": "s", "version": "1" }),
            capabilities: json!({ "tasks": {} }),
        },
        Event::Done {
            sub: SubId(7),
            task_id: None,
            end: End::Aborted,
        },
        Event::Done {
            sub: SubId(8),
            task_id: Some("t-1".into()),
            end: End::Finished {
                task: Some(full_task(TaskStatus::Completed)),
                outcome: Some(Outcome::Error { error: rpc_error() }),
            },
        },
        Event::Done {
            sub: SubId(9),
            task_id: None,
            end: End::Finished {
                task: None,
                outcome: None,
            },
        },
        Event::Input {
            id: InputId((1 << 53) - 1),
            task_id: Some("t-1".into()),
            request: InputRequest {
                key: "7".into(),
                method: "roots/list".into(),
                params: Value::Null,
            },
        },
        Event::Reply {
            op: OpId(3),
            result: Ok(json!({ "tasks": [] })),
        },
        Event::Reply {
            op: OpId(4),
            result: Err(ClientError::new(ErrorKind::Closed, "closed")),
        },
        Event::Warning {
            task_id: None,
            error: error(ErrorKind::Transport),
        },
        Event::Transition {
            task_id: "t-1".into(),
            from: None,
            to: TaskStatus::Submitted,
            at: 1_700_000_000_000,
        },
        Event::Transition {
            task_id: "t-1".into(),
            from: Some(TaskStatus::Working),
            to: TaskStatus::Expired,
            at: 0,
        },
    ];
    for s in TaskStatus::ALL {
        out.push(Event::Status {
            sub: SubId(1),
            task: full_task(s),
        });
        out.push(Event::Status {
            sub: SubId(2),
            task: Task::new("bare", s),
        });
    }
    for k in ErrorKind::ALL {
        out.push(Event::Done {
            sub: SubId(10),
            task_id: Some("t-2".into()),
            end: End::Failed { error: error(k) },
        });
    }
    out
}

pub fn ops() -> Vec<Op> {
    vec![
        Op::CallTool {
            name: "slow".into(),
            arguments: json!({ "ms": 10, "nested": { "a": [true, false] } }),
            opts: CallOptions {
                ttl_ms: Some(5_000),
                keep_alive_ms: Some(60_000),
                augment: Augment::Always,
                delete_on_done: true,
            },
        },
        Op::Request {
            method: "tools/list".into(),
            params: json!({}),
            opts: CallOptions::default(),
        },
        Op::Request {
            method: "x".into(),
            params: Value::Null,
            opts: CallOptions {
                augment: Augment::Never,
                ..CallOptions::default()
            },
        },
        Op::Watch {
            task_id: "t-1".into(),
        },
        Op::Unsubscribe { sub: SubId(4) },
        Op::Cancel {
            task_id: "t-1".into(),
        },
        Op::DeleteTask {
            task_id: "t-1".into(),
        },
        Op::AnswerInput {
            id: InputId(5),
            answer: Ok(json!({ "action": "accept" })),
        },
        Op::AnswerInput {
            id: InputId(6),
            answer: Err(rpc_error()),
        },
        Op::AnswerInput {
            id: InputId(7),
            answer: Err(RpcError::new(-32601, "no data")),
        },
        Op::ListTasks { cursor: None },
        Op::ListTasks {
            cursor: Some("c2".into()),
        },
        Op::ListTools,
        Op::Forget {
            task_id: "t-1".into(),
        },
    ]
}

pub fn session() -> SessionWire {
    SessionWire {
        dialect: Dialect::Modern,
        protocol_version: "2026-07-28".into(),
        server_info: json!({ "name": "s" }),
        capabilities: json!({}),
    }
}

pub fn msgs() -> Vec<Msg> {
    let mut out = vec![
        Msg::Hello {
            from: 1,
            visible: true,
        },
        Msg::Leader {
            from: 2,
            epoch: (1 << 53) - 1,
            hidden_ms: 0,
            session: None,
            session_id: None,
        },
        Msg::Leader {
            from: 2,
            epoch: 3,
            hidden_ms: 61_000,
            session: Some(session()),
            session_id: Some("sid-1".into()),
        },
        Msg::Ack {
            to: 1,
            epoch: 3,
            id: 9,
        },
        Msg::Vis {
            from: 1,
            visible: false,
        },
        Msg::Online { from: 1 },
        Msg::Got {
            from: 2,
            epoch: 3,
            id: (1 << 53) - 1,
        },
        // Tab ids have 53 bits: every one is exact in a JS number.
        Msg::Bye {
            from: (1 << 53) - 1,
        },
    ];
    for (i, op) in ops().into_iter().enumerate() {
        out.push(Msg::Op {
            from: 1,
            epoch: 3,
            id: i as u64,
            op,
        });
    }
    for (i, event) in events().into_iter().enumerate() {
        out.push(Msg::Ev {
            to: (i % 2 == 0).then_some(1),
            epoch: 3,
            event,
        });
    }
    out
}

/// Exhaustive: a new variant fails to compile here until the samples (and the readers) know it.
pub fn msg_name(m: &Msg) -> String {
    match m {
        Msg::Hello { .. } => "hello".into(),
        Msg::Leader { .. } => "leader".into(),
        Msg::Op { op, .. } => match op {
            Op::CallTool { .. } => "op callTool",
            Op::Request { .. } => "op request",
            Op::Watch { .. } => "op watch",
            Op::Unsubscribe { .. } => "op unsubscribe",
            Op::Cancel { .. } => "op cancel",
            Op::DeleteTask { .. } => "op deleteTask",
            Op::AnswerInput { .. } => "op answerInput",
            Op::ListTasks { .. } => "op listTasks",
            Op::ListTools => "op listTools",
            Op::Forget { .. } => "op forget",
        }
        .into(),
        Msg::Ack { .. } => "ack".into(),
        Msg::Ev { event, .. } => match event {
            Event::Connected { .. } => "ev connected".into(),
            Event::Status { .. } => "ev status".into(),
            Event::Done { end, .. } => match end {
                End::Finished { .. } => "ev done finished",
                End::Aborted => "ev done aborted",
                End::Failed { .. } => "ev done failed",
            }
            .into(),
            Event::Input { .. } => "ev input".into(),
            Event::Reply { .. } => "ev reply".into(),
            Event::Warning { .. } => "ev warning".into(),
            Event::Transition { .. } => "ev transition".into(),
        },
        Msg::Vis { .. } => "vis".into(),
        Msg::Online { .. } => "online".into(),
        Msg::Got { .. } => "got".into(),
        Msg::Bye { .. } => "bye".into(),
    }
}
