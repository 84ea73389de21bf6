//! Request bodies: a request's params serialized once (each body then differs only in its
//! JSON-RPC id), and the session's status-request template each poll fills in.

use super::ids::ReqId;
use crate::json::digits::push_signed;
use crate::protocol::dialect::{Codec, Outgoing, SessionInfo};
use crate::protocol::find;
use crate::protocol::headers::encode_value;

/// A request with its params already serialized (the body then differs only in the JSON-RPC id).
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    /// The method as a JSON string (quoted, escaped).
    method: Box<str>,
    params: Box<str>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) expects_response: bool,
}

impl Encoded {
    pub(crate) fn new(out: Outgoing) -> Self {
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
    pub(crate) fn body(&self, id: Option<ReqId>) -> String {
        self.body_with(id, &self.params)
    }

    /// The message with these params (their text).
    fn body_with(&self, id: Option<ReqId>, params: &str) -> String {
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

/// A task id no task has, that tells where a status request mentions its task.
const PROBE: &str = "\u{1}probe\u{1}";

/// A session's status request with the task id left out: each poll fills in its task's id
/// (quoted in the params, encoded in a header) and its request id, building no JSON. Made once
/// per session generation from the request the dialect builds for a probe id (every dialect's
/// filled template is checked against the request it builds, in this module's tests).
#[derive(Debug)]
pub(crate) struct PollTemplate {
    pub(crate) epoch: u64,
    enc: Encoded,
    /// Where the params' text names the task (the quoted probe): start and end, in order.
    holes: Vec<(usize, usize)>,
    /// The headers whose value is the task id (header-encoded), by index.
    id_headers: Vec<usize>,
}

impl PollTemplate {
    pub(crate) fn new(epoch: u64, codec: &dyn Codec, s: &SessionInfo) -> PollTemplate {
        let enc = Encoded::new(codec.build_get(s, PROBE));
        let probe = quoted(PROBE);
        let mut holes = Vec::new();
        let mut from = 0;
        while let Some(at) = enc.params.get(from..).and_then(|rest| find(rest, &probe)) {
            let start = from + at;
            from = start + probe.len();
            holes.push((start, from));
        }
        let probe = encode_value(PROBE);
        let mut id_headers = Vec::new();
        for (i, h) in enc.headers.iter().enumerate() {
            if h.1 == probe {
                id_headers.push(i);
            }
        }
        PollTemplate {
            epoch,
            enc,
            holes,
            id_headers,
        }
    }

    /// The status request `id` about `task_id`: its body and headers.
    pub(crate) fn fill(&self, id: ReqId, task_id: &str) -> (String, Vec<(String, String)>) {
        let (text, quoted_id) = (&self.enc.params, quoted(task_id));
        let mut params = String::with_capacity(text.len() + quoted_id.len());
        let mut from = 0;
        for &(start, end) in &self.holes {
            params.push_str(text.get(from..start).unwrap_or_default());
            params.push_str(&quoted_id);
            from = end;
        }
        params.push_str(text.get(from..).unwrap_or_default());
        let mut headers = self.enc.headers.clone();
        for &i in &self.id_headers {
            if let Some(h) = headers.get_mut(i) {
                h.1 = encode_value(task_id);
            }
        }
        (self.enc.body_with(Some(id), &params), headers)
    }
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    // Plain text (no quote, backslash or control character) is quoted as it is.
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        let mut q = String::with_capacity(text.len() + 2);
        q.push('"');
        q.push_str(text);
        q.push('"');
        return q;
    }
    let mut q = String::new();
    crate::json::push_quoted(&mut q, text);
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;
    use crate::protocol::jsonrpc::{Id, Message};

    /// Every dialect's status request, filled in from the session's template, is the request the
    /// dialect builds for the task (ids with quotes, escapes and non-ASCII included).
    #[test]
    fn a_filled_template_is_the_request_built_for_the_task() {
        use crate::protocol::dialect::codec;
        use crate::protocol::model::Dialect;
        let (info, caps) = (
            json!({"name": "c", "version": "1"}),
            json!({"elicitation": {}}),
        );
        let s = SessionInfo {
            protocol_version: "2025-11-25",
            client_info: &info,
            client_capabilities: &caps,
            session_id: Some("s-1"),
        };
        for d in [Dialect::Legacy, Dialect::Modern, Dialect::Draft] {
            let Some(c) = codec(d) else {
                assert!(d == Dialect::Draft && cfg!(not(feature = "draft")));
                continue;
            };
            let tpl = PollTemplate::new(1, c, &s);
            for task_id in ["t-1", "a\"b\\c", "ünï\u{1}\n", ""] {
                let direct = Encoded::new(c.build_get(&s, task_id));
                let want = (direct.body(Some(ReqId(7))), direct.headers);
                assert_eq!(tpl.fill(ReqId(7), task_id), want, "{d:?} {task_id:?}");
            }
        }
    }

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
