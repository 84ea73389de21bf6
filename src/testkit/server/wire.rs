//! The fake server's wire shapes: timestamps, task objects per dialect, JSON-RPC envelopes and
//! the HTTP answers that carry them.

use crate::json::{json, Map, Value};

use super::super::head;
use super::{FakeServer, FakeTask, Replies};
use crate::engine::api::{Input, Millis, SendKey, Transmit};
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use crate::protocol::model::Dialect;

pub(super) fn iso(ms: Millis) -> String {
    crate::engine::format_millis(ms)
}

pub(super) fn related_key(d: Dialect) -> &'static str {
    match d {
        Dialect::Draft => "modelcontextprotocol.io/related-task",
        _ => "io.modelcontextprotocol/related-task",
    }
}

/// An HTTP answer without a body: the head, then the end of the stream.
pub(super) fn bare(key: SendKey, status: u16) -> Replies {
    vec![(0, head(key, status, None)), (0, Input::Ended { key })]
}

/// An HTTP answer with one message: the head (opening `session_id`, if any), `body`, the end.
pub(super) fn reply(key: SendKey, status: u16, session_id: Option<&str>, body: String) -> Replies {
    vec![
        (0, head(key, status, session_id)),
        (
            0,
            Input::Message {
                via: Some(key),
                body,
            },
        ),
        (0, Input::Ended { key }),
    ]
}

/// A method the server lacks: HTTP 404 with -32601 (as rmcp 3 answers).
pub(super) fn missing(key: SendKey, id: Id) -> Replies {
    reply(
        key,
        404,
        None,
        error_msg(Some(id), -32601, "Method not found"),
    )
}

pub(super) fn result_msg(id: Id, result: Value) -> String {
    Message::Response { id, result }.encode()
}

pub(super) fn error_msg(id: Option<Id>, code: i64, message: &str) -> String {
    Message::Error {
        id,
        error: RpcError::new(code, message),
    }
    .encode()
}

/// Id and task id of a `tasks/get` as the engine writes it (`{"jsonrpc":"2.0","id":N,...}`);
/// `None` sends the message down the general path.
pub(super) fn quick_get(body: &str) -> Option<(i64, String)> {
    let rest = body.strip_prefix(r#"{"jsonrpc":"2.0","id":"#)?;
    let comma = rest.bytes().position(|b| b == b',')?;
    let id = rest.get(..comma)?.parse().ok()?;
    let params = rest
        .get(comma..)?
        .strip_prefix(r#","method":"tasks/get","params":"#)?;
    // Params keys are sorted: `taskId` comes after `_meta`.
    let key = br#""taskId":""#;
    let p = params.as_bytes();
    let at = (0..p.len())
        .rev()
        .find(|&i| p.get(i..i + key.len()) == Some(key))?
        + key.len();
    let tail = params.get(at..)?;
    let task = tail.get(..tail.bytes().position(|b| b == b'"')?)?;
    (!task.contains('\\')).then(|| (id, task.to_owned()))
}

pub(super) fn header<'a>(t: &'a Transmit, name: &str) -> Option<&'a str> {
    t.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl FakeServer {
    pub(super) fn tools(&self) -> Vec<Value> {
        let support = |s: &str| json!({ "taskSupport": s });
        let schema = json!({ "type": "object" });
        let mut tools = vec![
            json!({ "name": "job", "inputSchema": schema, "execution": support("optional") }),
            json!({ "name": "must", "inputSchema": schema, "execution": support("required") }),
            json!({ "name": "quick", "inputSchema": schema, "execution": support("forbidden") }),
        ];
        if self.dialect != Dialect::Legacy {
            for t in &mut tools {
                if let Some(o) = t.as_object_mut() {
                    o.remove("execution");
                }
            }
        }
        tools
    }

    pub(super) fn task_json(&self, id: &str, t: &FakeTask, now: Millis) -> Value {
        let status = t.status(now);
        let mut o = Map::new();
        o.insert("taskId".into(), json!(id));
        o.insert("status".into(), json!(status));
        match self.dialect {
            Dialect::Modern => {
                o.insert("createdAt".into(), json!(t.created_iso));
                o.insert("lastUpdatedAt".into(), json!(iso(now)));
                o.insert("ttlMs".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollIntervalMs".into(), json!(i));
                }
                match status {
                    "completed" => {
                        o.insert(
                            "result".into(),
                            json!({ "content": [{ "type": "text", "text": "done" }] }),
                        );
                    }
                    "failed" => {
                        o.insert("error".into(), json!({ "code": -32603, "message": "boom" }));
                    }
                    "input_required" if !self.faults.mute_inputs => {
                        let ask = json!({ "method": "elicitation/create", "params": { "message": "name?" } });
                        o.insert("inputRequests".into(), json!({ "ask": ask }));
                    }
                    _ => {}
                }
            }
            Dialect::Legacy => {
                o.insert("createdAt".into(), json!(t.created_iso));
                o.insert("lastUpdatedAt".into(), json!(iso(now)));
                o.insert("ttl".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollInterval".into(), json!(i));
                }
            }
            Dialect::Draft => {
                o.insert("keepAlive".into(), json!(t.ttl));
                if let Some(i) = t.interval {
                    o.insert("pollFrequency".into(), json!(i));
                }
                if status == "failed" {
                    o.insert("error".into(), json!("boom"));
                }
            }
        }
        Value::Object(o)
    }

    /// The `tasks/get` response for a working task, written directly (the common case).
    pub(super) fn working_json(&self, rid: &Id, id: &str, t: &FakeTask) -> String {
        use std::fmt::Write;
        let mut b = String::with_capacity(256);
        b.push_str(r#"{"jsonrpc":"2.0","id":"#);
        match rid {
            Id::Number(n) => {
                let _ = write!(b, "{n}");
            }
            other => b.push_str(&serde_json::to_string(other).unwrap_or_default()),
        }
        b.push_str(r#","result":{"taskId":""#);
        b.push_str(id);
        b.push_str(r#"","status":"working","#);
        let (ttl, interval) = match self.dialect {
            Dialect::Modern => ("ttlMs", "pollIntervalMs"),
            Dialect::Legacy => ("ttl", "pollInterval"),
            Dialect::Draft => ("keepAlive", "pollFrequency"),
        };
        if self.dialect != Dialect::Draft {
            for field in ["createdAt", "lastUpdatedAt"] {
                b.push('"');
                b.push_str(field);
                b.push_str(r#"":""#);
                b.push_str(&t.created_iso);
                b.push_str(r#"","#);
            }
        }
        for (field, v) in [(ttl, t.ttl), (interval, t.interval)] {
            b.push('"');
            b.push_str(field);
            b.push_str(r#"":"#);
            match v {
                Some(n) => {
                    let _ = write!(b, "{n}");
                }
                None => b.push_str("null"),
            }
            b.push(',');
        }
        b.pop();
        b.push_str("}}");
        b
    }

    pub(super) fn final_result(&self, id: &str) -> Value {
        let mut r = json!({ "content": [{ "type": "text", "text": "done" }] });
        if let Some(o) = r.as_object_mut() {
            o.insert(
                "_meta".into(),
                json!({ related_key(self.dialect): { "taskId": id } }),
            );
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::iso;
    use crate::engine::parse_millis;

    #[test]
    fn iso_round_trips() {
        for ms in [0u64, 951_782_400_000, 1_735_689_599_999, 1_764_066_600_123] {
            assert_eq!(parse_millis(&iso(ms)), Some(ms));
        }
    }
}
