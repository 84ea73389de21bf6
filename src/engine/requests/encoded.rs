//! Request bodies: a request's params serialized once (each body then differs only in its
//! JSON-RPC id).

use crate::engine::ids::ReqId;
use crate::json::digits::push_signed;
use crate::protocol::dialect::Outgoing;

/// A request with its params already serialized (the body then differs only in the JSON-RPC id).
#[derive(Debug, Clone)]
pub(super) struct Encoded {
    /// The method as a JSON string (quoted, escaped).
    method: Box<str>,
    params: Box<str>,
    pub(super) headers: Vec<(String, String)>,
    pub(super) expects_response: bool,
}

impl Encoded {
    pub(super) fn new(out: Outgoing) -> Self {
        let params = crate::json::text(&out.params);
        let method = quoted(&out.method);
        Self {
            method: method.into(),
            params: params.into(),
            headers: out.headers,
            expects_response: out.expects_response,
        }
    }

    /// The JSON-RPC message (a notification without `id`).
    pub(super) fn body(&self, id: Option<ReqId>) -> String {
        let params = &self.params;
        let mut b = String::with_capacity(64 + self.method.len() + params.len());
        b.push_str(r#"{"jsonrpc":"2.0","#);
        if let Some(id) = id {
            b.push_str(r#""id":"#);
            push_signed(&mut b, id.wire());
            b.push(',');
        }
        b.push_str(r#""method":"#);
        b.push_str(&self.method);
        b.push_str(r#","params":"#);
        b.push_str(params);
        b.push('}');
        b
    }
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut q = String::new();
    crate::json::push_quoted(&mut q, text);
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;
    use crate::protocol::jsonrpc::{Id, Message};

    #[test]
    fn encoded_bodies_are_the_messages() {
        let out = Outgoing {
            method: "tasks/get".into(),
            params: json!({ "taskId": "a\"b" }),
            headers: vec![],
            expects_response: true,
        };
        let enc = Encoded::new(out);
        for id in [0i64, 7, 1_234_567_890_123, i64::MAX] {
            let m = Message::decode(enc.body(Some(ReqId(id as u64))).as_bytes(), 1 << 20);
            let expected = Message::Request {
                id: Id::Number(id),
                method: "tasks/get".into(),
                params: Some(json!({ "taskId": "a\"b" })),
            };
            assert_eq!(m, Ok(expected));
        }
        let note = Message::decode(enc.body(None).as_bytes(), 1 << 20);
        assert!(matches!(note, Ok(Message::Notification { .. })));
    }
}
