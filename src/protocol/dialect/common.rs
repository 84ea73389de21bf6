//! Small helpers the three dialect modules share: tolerant field readers, the task-shape parser,
//! `_meta` merging and header assembly. Readers accept what real servers send (floats for integers,
//! `null` for absent, any timestamp text) and turn wrong types into [`ProtocolError`]s.

use crate::json::{Map, Value};

use super::{InputRequest, Outgoing, ProtocolError, SessionInfo, Task};
use crate::json::digits;
use crate::protocol::jsonrpc::{Id, Message, RpcError};
use crate::protocol::model::TaskStatus;
use crate::protocol::{headers, without};

/// The key under which the modern dialect declares the tasks extension.
pub(super) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

pub(super) type Object = Map<String, Value>;

/// The value as a JSON object, or an error naming `what` it should have been.
pub(super) fn as_object<'a>(value: &'a Value, what: &str) -> Result<&'a Object, ProtocolError> {
    value
        .as_object()
        .ok_or_else(|| ProtocolError::new([what, " is not an object"].concat()))
}

/// The error about the field `key`: `` `key` `` then `why`.
pub(super) fn field_error(key: &str, why: &str) -> ProtocolError {
    ProtocolError::new(["`", key, "` ", why].concat())
}

/// An optional string field (`null` counts as absent).
pub(super) fn opt_str(obj: &Object, key: &str) -> Result<Option<String>, ProtocolError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(field_error(key, "is not a string")),
    }
}

/// An opaque identifier or timestamp: kept verbatim; a number is kept as its JSON text.
pub(super) fn opt_text(obj: &Object, key: &str) -> Result<Option<String>, ProtocolError> {
    match obj.get(key) {
        Some(number @ Value::Number(_)) => Ok(Some(crate::protocol::text(number))),
        _ => opt_str(obj, key),
    }
}

/// A required opaque identifier (string, or a number kept as its JSON text).
pub(super) fn req_text(obj: &Object, key: &str) -> Result<String, ProtocolError> {
    opt_text(obj, key)?.ok_or_else(|| field_error(key, "is missing"))
}

/// A duration in milliseconds: integer or float (rounded), `null` or absent → `None`.
pub(super) fn opt_millis(obj: &Object, key: &str) -> Result<Option<u64>, ProtocolError> {
    let bad = || field_error(key, "is not a non-negative number");
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                return Ok(Some(u));
            }
            match n.as_f64() {
                // `u64::MAX as f64` rounds up to 2^64, so `<` keeps the cast in range.
                Some(f) if f >= 0.0 && f.round() < u64::MAX as f64 => Ok(Some(f.round() as u64)),
                _ => Err(bad()),
            }
        }
        Some(_) => Err(bad()),
    }
}

/// The first of `keys` that is present (and not `null`), read as milliseconds.
fn first_millis(obj: &Object, keys: &[&str]) -> Result<Option<u64>, ProtocolError> {
    for key in keys {
        if let Some(ms) = opt_millis(obj, key)? {
            return Ok(Some(ms));
        }
    }
    Ok(None)
}

/// Maps a wire status word to the common model (all dialects' words, plus the `canceled` spelling).
pub(super) fn parse_status(word: &str) -> Result<TaskStatus, ProtocolError> {
    Ok(match word {
        "submitted" => TaskStatus::Submitted,
        "working" => TaskStatus::Working,
        "input_required" => TaskStatus::InputRequired,
        "completed" => TaskStatus::Completed,
        "failed" => TaskStatus::Failed,
        "cancelled" | "canceled" => TaskStatus::Cancelled,
        "unknown" => TaskStatus::Unknown,
        other => {
            return Err(ProtocolError::new(
                ["unknown task status `", other, "`"].concat(),
            ))
        }
    })
}

/// A dialect's task object: the wire names of the two renamed task fields (first name wins), and
/// what it reads beyond the fields every dialect shares (outcome, input requests, …).
pub(super) struct TaskShape {
    pub ttl: &'static [&'static str],
    pub poll_interval: &'static [&'static str],
    pub rest: fn(&mut Task, &Object) -> Result<(), ProtocolError>,
}

/// Parses the task fields every dialect shares (id, status, message, timestamps, ttl, interval),
/// then the dialect's own ([`TaskShape::rest`]).
pub(super) fn parse_task(value: &Value, names: &TaskShape) -> Result<Task, ProtocolError> {
    let obj = as_object(value, "task")?;
    let status = match obj.get("status") {
        Some(Value::String(s)) => parse_status(s)?,
        Some(_) => return Err(field_error("status", "is not a string")),
        None => return Err(field_error("status", "is missing")),
    };
    let mut task = Task::new(req_text(obj, "taskId")?, status);
    task.status_message = opt_str(obj, "statusMessage")?;
    task.created_at = opt_text(obj, "createdAt")?;
    task.last_updated_at = opt_text(obj, "lastUpdatedAt")?;
    task.ttl_ms = first_millis(obj, names.ttl)?;
    task.poll_interval_ms = first_millis(obj, names.poll_interval)?;
    (names.rest)(&mut task, obj)?;
    Ok(task)
}

/// Parses a `{tasks: [...], nextCursor?}` page with the dialect's task parser (a `fn`, not a
/// generic: one copy in the binary for all dialects).
pub(super) fn parse_task_page(
    result: &Value,
    parse: fn(&Value) -> Result<Task, ProtocolError>,
) -> Result<(Vec<Task>, Option<String>), ProtocolError> {
    let obj = as_object(result, "tasks/list result")?;
    let tasks = match obj.get("tasks") {
        Some(Value::Array(items)) => {
            let mut tasks = Vec::with_capacity(items.len());
            for item in items {
                tasks.push(parse(item)?);
            }
            tasks
        }
        Some(_) => return Err(field_error("tasks", "is not an array")),
        None => return Err(field_error("tasks", "is missing")),
    };
    Ok((tasks, opt_str(obj, "nextCursor")?))
}

/// A JSON-RPC error object (tolerant of float codes and a missing message).
pub(super) fn parse_rpc_error(value: &Value) -> Result<RpcError, ProtocolError> {
    RpcError::from_value(value).ok_or_else(|| ProtocolError::new("malformed JSON-RPC error object"))
}

/// A modern-style `{key: {method, params}}` map of input requests, in key order.
pub(super) fn parse_input_requests(value: &Value) -> Result<Vec<InputRequest>, ProtocolError> {
    let map = as_object(value, "inputRequests")?;
    let mut requests = Vec::with_capacity(map.len());
    for (key, request) in map {
        let obj = as_object(request, "input request")?;
        let method = opt_str(obj, "method")?
            .ok_or_else(|| ProtocolError::new("input request without `method`"))?;
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        requests.push(InputRequest {
            key: key.clone(),
            method,
            params,
        });
    }
    Ok(requests)
}

/// `_meta[key].taskId` of a params or result object, if it is a string.
pub(super) fn related_task_id(params_or_result: &Value, key: &str) -> Option<String> {
    params_or_result
        .get("_meta")?
        .get(key)?
        .get("taskId")?
        .as_str()
        .map(str::to_owned)
}

/// `{"taskId": task_id}`.
pub(super) fn task_id_params(task_id: &str) -> Value {
    crate::protocol::object([("taskId", task_id.into())])
}

/// `{"taskId": task_id}` as the value of a related-task `_meta` entry.
pub(super) fn related_task_meta(task_id: &str) -> Value {
    task_id_params(task_id)
}

/// Params as an object: `null` becomes `{}`; anything else that is not an object is returned as
/// `Err` unchanged (it cannot carry `_meta`, so callers send it as given).
pub(super) fn params_object(params: Value) -> Result<Object, Value> {
    match params {
        Value::Object(obj) => Ok(obj),
        Value::Null => Ok(Object::new()),
        other => Err(other),
    }
}

/// `params` with `obj._meta` (made an object first when it is not one) handed to `add` for the
/// caller's entries, keeping the caller's own `_meta` keys; non-object params are returned
/// untouched.
pub(super) fn with_meta(params: Value, add: impl FnOnce(&mut Object)) -> Value {
    let mut obj = match params_object(params) {
        Ok(obj) => obj,
        Err(other) => return other,
    };
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Object::new()));
    if !meta.is_object() {
        *meta = Value::Object(Object::new());
    }
    if let Value::Object(meta) = meta {
        add(meta);
    }
    Value::Object(obj)
}

/// Client capabilities without the modern tasks extension (it MUST NOT be used before 2026-07-28).
pub(super) fn without_tasks_extension(capabilities: &Value) -> Value {
    let (Value::Object(caps), Some(Value::Object(ext))) =
        (capabilities, capabilities.get("extensions"))
    else {
        return capabilities.clone();
    };
    let ext = without(ext.clone(), TASKS_EXTENSION);
    let mut caps = without(caps.clone(), "extensions");
    if !ext.is_empty() {
        caps.insert("extensions".into(), Value::Object(ext));
    }
    Value::Object(caps)
}

/// Builds an [`Outgoing`] request.
pub(super) fn request(method: &str, params: Value, headers: Vec<(String, String)>) -> Outgoing {
    Outgoing {
        method: method.to_owned(),
        params,
        headers,
        expects_response: true,
    }
}

/// Builds an [`Outgoing`] notification.
pub(super) fn notification(
    method: &str,
    params: Value,
    headers: Vec<(String, String)>,
) -> Outgoing {
    Outgoing {
        method: method.to_owned(),
        params,
        headers,
        expects_response: false,
    }
}

/// Legacy-style session headers: `MCP-Protocol-Version` and `Mcp-Session-Id` once known.
pub(crate) fn session_headers(s: &SessionInfo) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(2);
    if !s.protocol_version.is_empty() {
        out.push((
            headers::PROTOCOL_VERSION.to_owned(),
            s.protocol_version.to_owned(),
        ));
    }
    if let Some(id) = s.session_id.filter(|id| !id.is_empty()) {
        out.push((headers::SESSION_ID.to_owned(), id.to_owned()));
    }
    out
}

/// The `initialize` request legacy and draft send (no headers: a new session starts).
pub(super) fn initialize(s: &SessionInfo, protocol_version: &str) -> Outgoing {
    let mut params = Object::new();
    params.insert("protocolVersion".into(), Value::from(protocol_version));
    params.insert(
        "capabilities".into(),
        without_tasks_extension(s.client_capabilities),
    );
    params.insert("clientInfo".into(), s.client_info.clone());
    request("initialize", Value::Object(params), Vec::new())
}

/// `notifications/initialized` with the session headers.
pub(super) fn initialized(s: &SessionInfo) -> Outgoing {
    notification(
        "notifications/initialized",
        Value::Object(Object::new()),
        session_headers(s),
    )
}

/// `{cursor?}` params of a list request.
pub(crate) fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(cursor) => crate::protocol::object([("cursor", cursor.into())]),
        None => Value::Object(Object::new()),
    }
}

/// A JSON-RPC response (legacy, draft) answering one server request, with related-task `_meta`
/// under `related_key` on success. The id is `server_id`, else recovered from the request key.
pub(super) fn answer_response(
    related_key: &str,
    task_id: Option<&str>,
    request: &InputRequest,
    server_id: Option<&Id>,
    answer: Result<Value, RpcError>,
) -> Message {
    let id = match server_id {
        Some(id) => id.clone(),
        None => id_from_key(&request.key),
    };
    match answer {
        Ok(result) => {
            let result = match task_id {
                Some(task) => with_meta(result, |meta| {
                    meta.insert(related_key.to_owned(), related_task_meta(task));
                }),
                None => result,
            };
            Message::Response { id, result }
        }
        Err(error) => Message::Error {
            id: Some(id),
            error,
        },
    }
}

/// Recovers a JSON-RPC id from an [`InputRequest::key`] that holds it as text: a canonical
/// integer becomes a number, anything else stays a string.
pub(super) fn id_from_key(key: &str) -> Id {
    match crate::json::parse_i64(key) {
        Some(n) if digits::signed(n) == key => Id::Number(n),
        _ => Id::String(key.to_owned()),
    }
}

/// `tasks/list {cursor?}` with the session headers (legacy and draft share it).
pub(super) fn list_request(s: &SessionInfo, cursor: Option<&str>) -> Outgoing {
    request("tasks/list", cursor_params(cursor), session_headers(s))
}
