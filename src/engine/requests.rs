//! Outgoing requests: id allocation, what each request is for, queueing until the session is
//! ready, timeouts, and routing of every answer (by JSON-RPC id; by stream for id-less errors).

use super::ids::CallId;
use super::ids::ReqId;
use crate::protocol::dialect::{Codec, Outgoing, SessionInfo};
use crate::protocol::headers::encode_value;
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use crate::protocol::{find, object};

use super::api::{ClientError, ErrorKind, InputId, Millis, OpId, Output, SendKey, Transmit};
use super::Engine;

/// Why a request was sent; decides where its answer goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Era detection: a modern `server/discover`.
    Probe,
    Initialize,
    /// The original request of a call (by call number).
    Call(CallId),
    /// A status poll.
    Get(String),
    /// `tasks/result` (may block until the task ends: no timeout while the task runs).
    Result(String),
    List {
        op: OpId,
        cursor: Option<String>,
    },
    Tools {
        cursor: Option<String>,
    },
    Cancel {
        op: OpId,
        task_id: String,
    },
    /// `tasks/delete`: for the caller's operation, or (`None`) after a result was delivered.
    Delete {
        op: Option<OpId>,
        task_id: String,
    },
    /// An input answer that is itself a request (modern `tasks/update`).
    Answer(InputId),
    /// The push subscription (its response stream stays open).
    Listen,
}

impl Purpose {
    /// The caller's operation waiting on this request, if any.
    pub(crate) fn op(&self) -> Option<OpId> {
        match self {
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => Some(*op),
            Purpose::Delete { op, .. } => *op,
            _ => None,
        }
    }

    fn times_out(&self) -> bool {
        !matches!(self, Purpose::Result(_) | Purpose::Listen)
    }

    /// Its response stream may be resumed after a break (a listening stream is re-opened instead).
    pub(crate) fn resumable(&self) -> bool {
        !matches!(self, Purpose::Listen)
    }

    /// Closing the response stream is harmless (the server may treat it as a cancellation).
    pub(crate) fn abortable(&self) -> bool {
        matches!(
            self,
            Purpose::Probe | Purpose::Get(_) | Purpose::List { .. } | Purpose::Tools { .. }
        )
    }
}

/// Why a request did not produce a result.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// A JSON-RPC error answering the request (its id).
    Rpc(RpcError),
    /// An id-less JSON-RPC error on the request's stream: the server refused the request without
    /// processing it (bad request, overload…). Says nothing about the request's subject.
    Rejected {
        error: RpcError,
        status: Option<u16>,
        retry_after: Option<Millis>,
    },
    Transport {
        error: ClientError,
        status: Option<u16>,
        retry_after: Option<Millis>,
    },
    Timeout,
}

impl Failure {
    pub(crate) fn client_error(&self) -> ClientError {
        match self {
            Failure::Rpc(e) | Failure::Rejected { error: e, .. } => e.clone().into(),
            Failure::Transport { error, .. } => error.clone(),
            Failure::Timeout => ClientError::new(ErrorKind::Timeout, "the request timed out"),
        }
    }

    pub(crate) fn retry_after(&self) -> Option<Millis> {
        match self {
            Failure::Transport { retry_after, .. } | Failure::Rejected { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }

    /// The JSON-RPC error, whether it answered the request or refused it.
    pub(crate) fn rpc(&self) -> Option<&RpcError> {
        match self {
            Failure::Rpc(e) | Failure::Rejected { error: e, .. } => Some(e),
            _ => None,
        }
    }

    /// The HTTP status the failure came with, if any.
    pub(crate) fn http_status(&self) -> Option<u16> {
        match self {
            Failure::Transport { status, .. } | Failure::Rejected { status, .. } => *status,
            _ => None,
        }
    }

    /// The server is there but cannot serve now (HTTP 429 or 5xx): worth trying again.
    pub(crate) fn overloaded(&self) -> bool {
        self.http_status()
            .is_some_and(|s| s == 429 || (500..600).contains(&s))
    }
}

/// A request with its params already serialized (the body then differs only in the JSON-RPC id).
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    /// The method as a JSON string (quoted, escaped).
    method: Box<str>,
    params: Box<str>,
    headers: Vec<(String, String)>,
    expects_response: bool,
}

impl Encoded {
    pub(crate) fn new(out: Outgoing) -> Self {
        // Serializing a `Value` cannot fail (its map keys are strings).
        let params = serde_json::to_string(&out.params).unwrap_or_else(|_| "null".into());
        let method = serde_json::to_string(&out.method).unwrap_or_else(|_| "\"\"".into());
        Self {
            method: method.into(),
            params: params.into(),
            headers: out.headers,
            expects_response: out.expects_response,
        }
    }

    /// The JSON-RPC message (a notification without `id`).
    fn body(&self, id: Option<ReqId>) -> String {
        self.body_with(id, &self.params)
    }

    /// The message with these params (their text).
    fn body_with(&self, id: Option<ReqId>, params: &str) -> String {
        let mut b = String::with_capacity(64 + self.method.len() + params.len());
        b.push_str(r#"{"jsonrpc":"2.0","#);
        if let Some(id) = id {
            b.push_str(r#""id":"#);
            push_int(&mut b, id.0);
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

/// Task ids no task has, that tell where a status request mentions its task.
const PROBE_A: &str = "\u{1}probe-a\u{1}";
const PROBE_B: &str = "\u{1}probe-b\u{1}";

/// A session's status request with the task id left out: each poll fills in its task's id
/// (quoted in the params, encoded in a header) and its request id, building no JSON. Made once
/// per session generation from the requests the dialect builds for two probe ids, and only when
/// they differ in nothing but the id's places (else each poll is built afresh).
#[derive(Debug)]
pub(crate) struct PollTemplate {
    epoch: u64,
    enc: Encoded,
    /// The params' text, split where the task id goes.
    pieces: Vec<Box<str>>,
    /// The headers whose value is the task id (header-encoded), by index.
    id_headers: Vec<usize>,
}

impl PollTemplate {
    fn new(epoch: u64, codec: &dyn Codec, s: &SessionInfo) -> Option<PollTemplate> {
        let a = Encoded::new(codec.build_get(s, PROBE_A));
        let b = Encoded::new(codec.build_get(s, PROBE_B));
        let pieces = split(&a.params, &quoted(PROBE_A));
        let (ea, eb) = (encode_value(PROBE_A), encode_value(PROBE_B));
        let mut id_headers = Vec::new();
        for (i, (ha, hb)) in a.headers.iter().zip(&b.headers).enumerate() {
            if ha.0 != hb.0 || (ha.1 != hb.1 && (ha.1 != ea || hb.1 != eb)) {
                return None;
            }
            if ha.1 != hb.1 {
                id_headers.push(i);
            }
        }
        let same = a.method == b.method
            && a.headers.len() == b.headers.len()
            && a.expects_response
            && join(&pieces, &quoted(PROBE_B)) == *b.params;
        same.then_some(PollTemplate {
            epoch,
            enc: a,
            pieces,
            id_headers,
        })
    }

    /// The status request `id` about `task_id`: its body and headers.
    fn fill(&self, id: ReqId, task_id: &str) -> (String, Vec<(String, String)>) {
        let params = join(&self.pieces, &quoted(task_id));
        let mut headers = self.enc.headers.clone();
        for &i in &self.id_headers {
            if let Some(h) = headers.get_mut(i) {
                h.1 = encode_value(task_id);
            }
        }
        (self.enc.body_with(Some(id), &params), headers)
    }
}

/// `text` cut at each `sep` (what `str::split` gives, through the plain [`find`]).
fn split(text: &str, sep: &str) -> Vec<Box<str>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(at) = find(rest, sep).filter(|_| !sep.is_empty()) {
        pieces.push(rest.get(..at).unwrap_or_default().into());
        rest = rest.get(at + sep.len()..).unwrap_or_default();
    }
    pieces.push(rest.into());
    pieces
}

/// The pieces with `id` between each two.
fn join(pieces: &[Box<str>], id: &str) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len() + id.len()).sum());
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push_str(id);
        }
        out.push_str(piece);
    }
    out
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
    // Serializing a `str` cannot fail.
    serde_json::to_string(text).unwrap_or_default()
}

/// Appends an integer's decimal digits (the hot path avoids the formatting machinery).
fn push_int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_digits(out, n.unsigned_abs());
}

fn push_digits(out: &mut String, v: u64) {
    if v >= 10 {
        push_digits(out, v / 10);
    }
    out.push(char::from(b'0' + (v % 10) as u8));
}

impl Engine {
    /// Sends now when the session is ready, else queues until it is.
    pub(crate) fn dispatch(&mut self, now: Millis, p: Purpose) {
        if self.closed || self.refuse_absent(now, &p) {
            return;
        }
        let Some(codec) = self.session.ready_codec().filter(|_| !self.held(&p)) else {
            self.session.wait(p);
            // After a refusal nothing will open the session: what is asked fails at once.
            if let Some(error) = self.session.refused.clone() {
                self.fail_queue(now, &error, true);
            }
            return;
        };
        let p = match p {
            Purpose::Get(t) => return self.send_get(now, t),
            Purpose::Result(t) if !self.result_slot(&t) => return,
            other => other,
        };
        let out = {
            let si = self.session.info();
            match &p {
                Purpose::Call(c) => return self.send_call(now, *c),
                Purpose::Answer(i) => return self.send_answer(now, *i),
                Purpose::Listen => return self.send_listen(now),
                Purpose::Probe | Purpose::Initialize => return,
                Purpose::Get(_) => None,
                Purpose::Result(t) => codec.build_result(&si, t),
                Purpose::List { cursor, .. } => codec.build_list(&si, cursor.as_deref()),
                Purpose::Tools { cursor } => {
                    let params = match cursor {
                        Some(c) => object([("cursor", serde_json::Value::from(c.as_str()))]),
                        None => serde_json::json!({}),
                    };
                    Some(codec.build_request(&si, "tools/list", params, None))
                }
                Purpose::Cancel { task_id, .. } => {
                    let origin = self
                        .tasks
                        .get(task_id)
                        .and_then(|e| e.origin)
                        .map(|n| Id::Number(n.0));
                    Some(codec.build_cancel(&si, task_id, origin.as_ref()))
                }
                Purpose::Delete { task_id, .. } => codec.build_delete(&si, task_id),
            }
        };
        match out {
            Some(o) => {
                self.send(now, p, o);
            }
            None => self.unsupported(now, p),
        }
    }

    /// A status poll. While others wait for the browser it waits as its task's slot (see
    /// `backlog.rs`); it is encoded only once handed to the driver ([`Engine::encode_poll`]).
    fn send_get(&mut self, now: Millis, t: String) {
        let Some(entry) = self.tasks.get_mut(&t) else {
            return;
        };
        entry.poll.last_sent = now.into();
        let slot = entry.slot;
        if self.keeps_poll() {
            return self.pool.backlog.push_due(slot);
        }
        let tx = self.open_get(now, t);
        self.out.push_back(Output::Transmit(tx));
    }

    /// Opens a status request for task `t`: its transmission, to be encoded when handed out.
    pub(crate) fn open_get(&mut self, now: Millis, t: String) -> Transmit {
        let id = self.reqs.alloc_id();
        self.open(now, id, Purpose::Get(t), String::new(), Vec::new())
    }

    /// A transmission about to be handed to the driver, its status request encoded now when it
    /// was left unencoded. `None` when there is nothing to send: the request is over, or its
    /// session is gone (it is then sent again in the new one).
    pub(crate) fn encode_poll(&mut self, now: Millis, mut t: Transmit) -> Option<Transmit> {
        if !t.body.is_empty() {
            return Some(t);
        }
        let n = self.reqs.id_of(t.key)?;
        let p = self.reqs.get(n)?;
        if p.epoch != self.session.epoch() {
            self.session_lost(now, n);
            return None;
        }
        let (Purpose::Get(task_id), Some(codec)) = (&p.purpose, self.session.codec_any()) else {
            return Some(t);
        };
        let epoch = self.session.epoch();
        if self
            .poll_template
            .as_ref()
            .is_none_or(|tpl| tpl.epoch != epoch)
        {
            self.poll_template = PollTemplate::new(epoch, codec, &self.session.info());
        }
        (t.body, t.headers) = match &self.poll_template {
            Some(tpl) => tpl.fill(n, task_id),
            None => {
                let enc = Encoded::new(codec.build_get(&self.session.info(), task_id));
                (enc.body(Some(n)), enc.headers)
            }
        };
        Some(t)
    }

    /// Transmits a request (or, when the dialect built a notification, a one-way message).
    /// Returns the JSON-RPC id of a request.
    pub(crate) fn send(&mut self, now: Millis, p: Purpose, out: Outgoing) -> Option<ReqId> {
        let mut enc = Encoded::new(out);
        let headers = std::mem::take(&mut enc.headers);
        if !enc.expects_response {
            let key = self.reqs.key();
            let body = enc.body(None);
            self.out.push_back(Output::Transmit(Transmit {
                key,
                body,
                headers,
                one_way: true,
            }));
            self.sent_one_way(now, p);
            return None;
        }
        let id = self.reqs.alloc_id();
        let body = enc.body(Some(id));
        let tx = self.open(now, id, p, body, headers);
        self.out.push_back(Output::Transmit(tx));
        Some(id)
    }

    /// Registers a request being transmitted (pending entry, timeout): its transmission.
    fn open(
        &mut self,
        now: Millis,
        id: ReqId,
        p: Purpose,
        body: String,
        headers: Vec<(String, String)>,
    ) -> Transmit {
        let key = self.reqs.key();
        // A finished task's result answers at once: it times out like any request.
        let times_out = match &p {
            Purpose::Result(t) => self.tasks.get(t).is_some_and(|e| e.is_terminal()),
            other => other.times_out(),
        };
        let timeout_at = times_out.then(|| now.saturating_add(self.cfg.request_timeout_ms));
        self.on_sent(&p, id, now);
        let (epoch, sessioned) = (self.session.epoch(), self.session.session_id().is_some());
        self.reqs.open(id, p, key, (epoch, sessioned), timeout_at);
        Transmit {
            key,
            body,
            headers,
            one_way: false,
        }
    }

    /// Transmits a ready-made one-way message (a response to the server).
    pub(crate) fn send_message(
        &mut self,
        message: &Message,
        headers: Vec<(String, String)>,
    ) -> SendKey {
        let key = self.reqs.key();
        let body = message.encode();
        self.out.push_back(Output::Transmit(Transmit {
            key,
            body,
            headers,
            one_way: true,
        }));
        key
    }

    /// Transmits a notification the dialect built (no purpose, no answer).
    pub(crate) fn push_one_way(&mut self, out: Outgoing) {
        let key = self.reqs.key();
        let enc = Encoded::new(out);
        let body = enc.body(None);
        self.out.push_back(Output::Transmit(Transmit {
            key,
            body,
            headers: enc.headers,
            one_way: true,
        }));
    }

    fn on_sent(&mut self, p: &Purpose, id: ReqId, now: Millis) {
        match p {
            Purpose::Call(c) => {
                if let Some(call) = self.calls.get_mut(c) {
                    call.req = Some(id);
                }
            }
            Purpose::Result(t) => {
                if let Some(e) = self.tasks.get_mut(t) {
                    e.result.sent(id, now);
                }
            }
            _ => {}
        }
    }

    fn sent_one_way(&mut self, now: Millis, p: Purpose) {
        match p {
            Purpose::Cancel { op, task_id } => {
                self.reply(op, Ok(serde_json::Value::Null));
                self.poll_soon(now, &task_id);
            }
            Purpose::Call(c) => self.call_failed(
                c,
                ClientError::new(
                    ErrorKind::Protocol,
                    "the request was built as a notification",
                ),
            ),
            _ => {}
        }
    }

    /// The dialect cannot build this request.
    fn unsupported(&mut self, now: Millis, p: Purpose) {
        let error = ClientError::new(
            ErrorKind::Unsupported,
            "the server's dialect has no such request",
        );
        match p {
            Purpose::Result(t) => self.result_unavailable(now, &t),
            Purpose::Delete { op: Some(op), .. } => self.reply(op, Err(self.no_delete())),
            Purpose::List { op, .. } | Purpose::Cancel { op, .. } => self.reply(op, Err(error)),
            Purpose::Tools { .. } => self.tools_failed(now, error, true),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            let Some(tpl) = tpl else {
                panic!("{d:?}: no template");
            };
            for task_id in ["t-1", "a\"b\\c", "ünï\u{1}\n", ""] {
                let direct = Encoded::new(c.build_get(&s, task_id));
                let want = (direct.body(Some(ReqId(7))), direct.headers);
                assert_eq!(tpl.fill(ReqId(7), task_id), want, "{d:?} {task_id:?}");
            }
        }
    }

    #[test]
    fn split_cuts_as_str_split() {
        for (text, sep) in [
            ("a\"x\"b\"x\"", "\"x\""),
            ("", "ab"),
            ("abab", "ab"),
            ("xaby", "ab"),
        ] {
            let pieces = split(text, sep);
            let ours: Vec<&str> = pieces.iter().map(|p| &**p).collect();
            let std: Vec<&str> = text.split(sep).collect();
            assert_eq!(ours, std, "{text:?} / {sep:?}");
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
        for id in [0i64, 7, -12, 1_234_567_890_123, i64::MAX, i64::MIN] {
            let m = Message::decode(enc.body(Some(ReqId(id))).as_bytes(), 1 << 20);
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
