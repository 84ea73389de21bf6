//! Robustness checks shared by the fuzz targets (`fuzz/`), the property tests and the
//! `fuzz_smoke` example. Each runs arbitrary input through one decoder and reports a broken
//! invariant as `Err` (the callers turn that into a failure); a panic inside is a bug found.

use crate::json::Value;

use super::dialect::{codec, CallReply, Codec, SessionInfo};
use super::headers;
use super::jsonrpc::{Id, Message};
use super::model::{Dialect, InputRequest};
use super::sse::{SseDecoder, SseError, SseEvent, DEFAULT_LIMIT};

/// Largest message the JSON-RPC check decodes.
const MESSAGE_LIMIT: usize = 1 << 20;

/// Notification methods every dialect is asked to interpret.
const NOTIFICATIONS: &[&str] = &[
    "notifications/tasks",
    "notifications/tasks/status",
    "notifications/tasks/created",
    "notifications/message",
];

/// SSE: the first byte picks the limit (even: default, odd: small), the second the chunking;
/// the rest is the stream, which must decode the same in one piece and in chunks.
pub fn sse(input: &[u8]) -> Result<(), String> {
    let (config, stream) = input.split_at(input.len().min(2));
    let limit = match config.first() {
        Some(b) if b % 2 == 1 => usize::from(*b),
        _ => DEFAULT_LIMIT,
    };
    let seed = usize::from(config.get(1).copied().unwrap_or(0));
    let mut cuts = Vec::new();
    let mut at = 0;
    for i in 0.. {
        at += 1 + (seed + i * 7) % 13;
        if at >= stream.len() {
            break;
        }
        cuts.push(at);
    }
    sse_chunked(stream, &cuts, limit)
}

/// SSE: decoding `stream` split at `cuts` (ascending offsets) must equal decoding it whole.
pub fn sse_chunked(stream: &[u8], cuts: &[usize], limit: usize) -> Result<(), String> {
    let whole = decode_sse(&[stream], limit);
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for &cut in cuts {
        let cut = cut.clamp(from, stream.len());
        pieces.push(stream.get(from..cut).unwrap_or_default());
        from = cut;
    }
    pieces.push(stream.get(from..).unwrap_or_default());
    let chunked = decode_sse(&pieces, limit);
    if whole != chunked {
        return Err(format!(
            "chunking changed the decoding:\n{whole:?}\nvs\n{chunked:?}"
        ));
    }
    for event in &whole.0 {
        if event.data.is_empty() {
            return Err("an event with empty data was dispatched".into());
        }
    }
    Ok(())
}

type SseRun = (
    Vec<SseEvent>,
    Option<SseError>,
    Option<String>,
    Option<u64>,
    Result<(), SseError>,
);

fn decode_sse(pieces: &[&[u8]], limit: usize) -> SseRun {
    let mut decoder = SseDecoder::with_limit(limit);
    let mut events = Vec::new();
    let mut error = None;
    for piece in pieces {
        if let Err(e) = decoder.push_into(piece, &mut events) {
            error = Some(e);
            break;
        }
    }
    let id = decoder.last_event_id().map(str::to_owned);
    let retry = decoder.retry_ms();
    (events, error, id, retry, decoder.finish())
}

/// JSON-RPC: whatever decodes must encode and decode back to the same message.
pub fn jsonrpc(input: &[u8]) -> Result<(), String> {
    let Ok(message) = Message::decode(input, MESSAGE_LIMIT) else {
        return Ok(());
    };
    let again = Message::decode(message.encode().as_bytes(), usize::MAX)
        .map_err(|e| format!("re-decoding {message:?} failed: {e}"))?;
    if again != message {
        return Err(format!("round trip changed {message:?} into {again:?}"));
    }
    Ok(())
}

/// A dialect: bytes that are JSON go through [`dialect_value`].
pub fn dialect(d: Dialect, input: &[u8]) -> Result<(), String> {
    match serde_json::from_slice::<Value>(input) {
        Ok(value) => dialect_value(d, &value),
        Err(_) => Ok(()),
    }
}

/// A dialect: every `parse_*` must return (not panic) on any JSON; what parses as a task must
/// build requests addressing that same task id.
pub fn dialect_value(d: Dialect, value: &Value) -> Result<(), String> {
    let Some(c) = codec(d) else {
        return Ok(());
    };
    let info = Value::Null;
    let caps = value.clone();
    let s = SessionInfo {
        protocol_version: "2025-11-25",
        client_info: &info,
        client_capabilities: &caps,
        session_id: Some("session"),
    };
    let _ = c.related_task(value);
    let _ = c.parse_list(value.clone());
    for method in NOTIFICATIONS {
        let _ = c.parse_notification(method, Some(value));
    }
    let _ = c.build_request(&s, "tools/call", value.clone(), None);
    let mut tasks = Vec::new();
    match c.parse_call_reply(value.clone()) {
        Ok(CallReply::Task(task)) => tasks.push(task),
        Ok(CallReply::InputRequired {
            requests,
            request_state,
        }) => {
            let responses = Value::Object(Default::default());
            let _ = c.retry_with_input(&s, "tools/call", value.clone(), responses, request_state);
            answer_all(c, &s, None, &requests)?;
        }
        Ok(CallReply::Complete(_)) | Err(_) => {}
    }
    if let Ok(task) = c.parse_get(value.clone()) {
        tasks.push(task);
    }
    for task in tasks {
        let get = c.build_get(&s, &task.task_id);
        if get.params.get("taskId").and_then(Value::as_str) != Some(task.task_id.as_str()) {
            return Err(format!("tasks/get does not address {:?}", task.task_id));
        }
        let name = get
            .headers
            .iter()
            .find(|(k, _)| k == headers::NAME)
            .map(|(_, v)| v.clone());
        if d == Dialect::Modern && name != Some(headers::encode_value(&task.task_id)) {
            return Err(format!(
                "Mcp-Name {name:?} does not carry {:?}",
                task.task_id
            ));
        }
        let _ = c.build_cancel(&s, &task.task_id, Some(&Id::Number(1)));
        answer_all(c, &s, Some(&task.task_id), &task.input_requests)?;
    }
    Ok(())
}

/// Answers each input request; the built message must survive an encode/decode round trip.
fn answer_all(
    c: &dyn Codec,
    s: &SessionInfo,
    task_id: Option<&str>,
    requests: &[InputRequest],
) -> Result<(), String> {
    for request in requests {
        let answer = Ok(Value::Object(Default::default()));
        let message = c.build_input_answer(s, task_id, request, None, answer);
        let _ = c.message_headers(s, &message);
        jsonrpc(message.encode().as_bytes())?;
    }
    Ok(())
}
