//! Modern dialect: protocol `2026-07-28` with the `io.modelcontextprotocol/tasks` extension.
//! No handshake and no session: every request carries the protocol version, the client
//! capabilities (declaring the extension) and client info in `params._meta`, plus the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers. The server decides per call whether
//! to answer with a flat task (`resultType: "task"`); `tasks/get` carries the outcome and the
//! outstanding input requests inline; `tasks/update` answers them.

use crate::json::{Map, Value};

use super::common::{self, TaskShape, TASKS_EXTENSION};
use super::{
    CallReply, Codec, Dialect, Id, InputRequest, Message, Outgoing, ProtocolError, RpcError,
    SessionInfo, Task, TaskAugment, TaskNotice,
};
use crate::protocol::model::{Outcome, TaskStatus};
use crate::protocol::{headers, object, without};

/// The protocol version this dialect speaks when the session names none.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// `_meta` keys every request carries.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The status push, and the name one SDK uses for it.
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";
pub const TASKS_STATUS_NOTIFICATION: &str = "notifications/tasks/status";
/// The first message of a listen stream: what the server agreed to push on it.
pub const ACKNOWLEDGED_NOTIFICATION: &str = "notifications/subscriptions/acknowledged";
/// The `_meta` key naming the listen request a message belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Modern wire names first; the legacy spellings are read too.
const SHAPE: TaskShape = TaskShape {
    ttl: &["ttlMs", "ttl"],
    poll_interval: &["pollIntervalMs", "pollInterval"],
    rest: outcome_and_inputs,
};

/// The modern [`Codec`].
pub struct Modern;

/// Parses a detailed task (`tasks/get`, `notifications/tasks`, a `resultType: "task"` result).
/// Discriminates on `status`: `completed` takes `result`, `failed` takes `error`,
/// `input_required` takes `inputRequests`. A terminal task carrying the other kind of outcome
/// (a failed task with a `result`) keeps it.
pub fn parse_task(value: &Value) -> Result<Task, ProtocolError> {
    common::parse_task(value, &SHAPE)
}

/// The outcome and the outstanding input requests of a task (see [`parse_task`]).
fn outcome_and_inputs(task: &mut Task, obj: &Map) -> Result<(), ProtocolError> {
    let present = |key| obj.get(key).filter(|v| !v.is_null());
    match task.status {
        TaskStatus::InputRequired => {
            if let Some(requests) = present("inputRequests") {
                task.input_requests = common::parse_input_requests(requests)?;
            }
        }
        TaskStatus::Completed
        | TaskStatus::Failed
        | TaskStatus::Cancelled
        | TaskStatus::Unknown => {
            // `completed` takes `result` first, the other ends `error`.
            let (result, error) = (present("result"), present("error"));
            let error_first = task.status != TaskStatus::Completed;
            task.outcome = match error.filter(|_| error_first || result.is_none()) {
                Some(error) => Some(Outcome::Error {
                    error: common::parse_rpc_error(error)?,
                }),
                None => result.map(|result| Outcome::Result {
                    result: result.clone(),
                }),
            };
        }
        _ => {}
    }
    Ok(())
}

/// The protocol version to announce: the session's, else [`PROTOCOL_VERSION`].
fn version<'a>(s: &SessionInfo<'a>) -> &'a str {
    if s.protocol_version.is_empty() {
        PROTOCOL_VERSION
    } else {
        s.protocol_version
    }
}

/// The client capabilities with the tasks extension declared.
fn capabilities(s: &SessionInfo) -> Value {
    let mut caps = match s.client_capabilities {
        Value::Object(obj) => obj.clone(),
        _ => Map::new(),
    };
    let ext = caps
        .entry("extensions")
        .or_insert_with(|| Value::Object(Map::new()));
    if !ext.is_object() {
        *ext = Value::Object(Map::new());
    }
    if let Value::Object(ext) = ext {
        ext.entry(TASKS_EXTENSION)
            .or_insert_with(|| Value::Object(Map::new()));
    }
    Value::Object(caps)
}

/// `params` with the per-request `_meta` every modern request carries.
fn with_request_meta(s: &SessionInfo, params: Value) -> Value {
    common::with_meta(params, |meta| {
        meta.insert(META_PROTOCOL_VERSION.into(), Value::from(version(s)));
        meta.insert(META_CLIENT_CAPABILITIES.into(), capabilities(s));
        meta.insert(META_CLIENT_INFO.into(), s.client_info.clone());
    })
}

/// The params field `Mcp-Name` mirrors for `method`, if the method has one.
fn name_source(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// `MCP-Protocol-Version` on every message; `Mcp-Method` on a request or notification (`method`),
/// and `Mcp-Name` where the method defines one and `params` carry it.
fn modern_headers(s: &SessionInfo, method: Option<&str>, params: &Value) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(3);
    out.push((headers::PROTOCOL_VERSION.to_owned(), version(s).to_owned()));
    if let Some(method) = method {
        out.push((headers::METHOD.to_owned(), method.to_owned()));
        let name = name_source(method).and_then(|field| params.get(field)?.as_str());
        if let Some(name) = name {
            out.push((headers::NAME.to_owned(), headers::encode_value(name)));
        }
    }
    out
}

/// A complete modern request: `_meta` and headers applied.
fn modern_request(s: &SessionInfo, method: &str, params: Value) -> Outgoing {
    let params = with_request_meta(s, params);
    let headers = modern_headers(s, Some(method), &params);
    common::request(method, params, headers)
}

/// `tasks/update` params answering `responses` (`{key: result}`).
fn update_params(task_id: &str, responses: Value) -> Value {
    object([("taskId", task_id.into()), ("inputResponses", responses)])
}

/// What an input answer becomes in `inputResponses`. The wire has no error channel here: a
/// refused elicitation is `{"action": "cancel"}`; any other refusal sends the error object.
fn response_value(request: &InputRequest, answer: Result<Value, RpcError>) -> Value {
    match answer {
        Ok(result) => result,
        Err(_) if request.method == "elicitation/create" => object([("action", "cancel".into())]),
        Err(error) => error.to_value(),
    }
}

impl Codec for Modern {
    fn dialect(&self) -> Dialect {
        Dialect::Modern
    }

    fn build_initialize(&self, _s: &SessionInfo) -> Option<Outgoing> {
        None
    }

    fn asks_for_tasks(&self) -> bool {
        false
    }

    /// The server decides whether to make a task; `task` (ttl, id) cannot be asked for here.
    fn build_request(
        &self,
        s: &SessionInfo,
        method: &str,
        params: Value,
        _task: Option<&TaskAugment>,
    ) -> Outgoing {
        modern_request(s, method, params)
    }

    fn parse_call_reply(&self, result: Value) -> Result<CallReply, ProtocolError> {
        let obj = common::as_object(&result, "result")?;
        match obj.get("resultType") {
            None | Some(Value::Null) => Ok(CallReply::Complete(result)),
            Some(Value::String(kind)) => match kind.as_str() {
                "complete" => Ok(CallReply::Complete(result)),
                "task" => parse_task(&result).map(CallReply::Task),
                "input_required" => {
                    let requests = match obj.get("inputRequests") {
                        None | Some(Value::Null) => Vec::new(),
                        Some(map) => common::parse_input_requests(map)?,
                    };
                    let request_state = obj.get("requestState").filter(|v| !v.is_null()).cloned();
                    Ok(CallReply::InputRequired {
                        requests,
                        request_state,
                    })
                }
                other => Err(ProtocolError::new(
                    ["unknown resultType `", other, "`"].concat(),
                )),
            },
            Some(_) => Err(common::field_error("resultType", "is not a string")),
        }
    }

    fn retry_with_input(
        &self,
        s: &SessionInfo,
        method: &str,
        params: Value,
        responses: Value,
        request_state: Option<Value>,
    ) -> Option<Outgoing> {
        let params = match common::params_object(params) {
            Ok(obj) => {
                let mut obj = without(obj, "requestState");
                obj.insert("inputResponses".into(), responses);
                if let Some(state) = request_state {
                    obj.insert("requestState".into(), state);
                }
                Value::Object(obj)
            }
            Err(other) => other,
        };
        Some(modern_request(s, method, params))
    }

    fn build_get(&self, s: &SessionInfo, task_id: &str) -> Outgoing {
        modern_request(s, "tasks/get", common::task_id_params(task_id))
    }

    fn parse_get(&self, result: Value) -> Result<Task, ProtocolError> {
        parse_task(&result)
    }

    fn build_result(&self, _s: &SessionInfo, _task_id: &str) -> Option<Outgoing> {
        None
    }

    fn build_list(&self, _s: &SessionInfo, _cursor: Option<&str>) -> Option<Outgoing> {
        None
    }

    /// Modern has no `tasks/list`; a page in the common shape is still read (hybrid servers).
    fn parse_list(&self, result: Value) -> Result<(Vec<Task>, Option<String>), ProtocolError> {
        common::parse_task_page(&result, parse_task)
    }

    fn build_cancel(&self, s: &SessionInfo, task_id: &str, _original: Option<&Id>) -> Outgoing {
        modern_request(s, "tasks/cancel", common::task_id_params(task_id))
    }

    /// A `tasks/update` request answering the one input request. Its id is derived from the
    /// task and the request key (unique per task by spec); the engine may replace it.
    fn build_input_answer(
        &self,
        s: &SessionInfo,
        task_id: Option<&str>,
        request: &InputRequest,
        _server_id: Option<&Id>,
        answer: Result<Value, RpcError>,
    ) -> Message {
        let task_id = task_id.unwrap_or_default();
        let mut responses = Map::new();
        responses.insert(request.key.clone(), response_value(request, answer));
        let params = with_request_meta(s, update_params(task_id, Value::Object(responses)));
        Message::Request {
            id: Id::String(["tasks/update:", task_id, ":", &request.key].concat()),
            method: "tasks/update".to_owned(),
            params: Some(params),
        }
    }

    fn parse_notification(&self, method: &str, params: Option<&Value>) -> Option<TaskNotice> {
        match method {
            TASKS_NOTIFICATION | TASKS_STATUS_NOTIFICATION => {
                parse_task(params?).ok().map(TaskNotice::Status)
            }
            ACKNOWLEDGED_NOTIFICATION => Some(parse_acknowledged(params?)),
            _ => None,
        }
    }

    /// Modern dropped related-task `_meta`; the legacy key is still read (hybrid servers).
    fn related_task(&self, params_or_result: &Value) -> Option<String> {
        common::related_task_id(params_or_result, super::legacy::RELATED_TASK)
    }

    fn build_listen(&self, s: &SessionInfo, task_ids: &[String]) -> Option<Outgoing> {
        let mut ids = Vec::with_capacity(task_ids.len());
        for id in task_ids {
            ids.push(Value::from(id.as_str()));
        }
        let filter = object([("taskIds", Value::Array(ids))]);
        Some(modern_request(
            s,
            "subscriptions/listen",
            object([("notifications", filter)]),
        ))
    }

    /// A notification names nothing (`Mcp-Name` is for requests); a response has no method.
    fn message_headers(&self, s: &SessionInfo, message: &Message) -> Vec<(String, String)> {
        let (method, params) = match message {
            Message::Request { method, params, .. } => (Some(method), params.as_ref()),
            Message::Notification { method, .. } => (Some(method), None),
            Message::Response { .. } | Message::Error { .. } => (None, None),
        };
        modern_headers(
            s,
            method.map(String::as_str),
            params.unwrap_or(&Value::Null),
        )
    }
}

/// The acknowledgement of a listen stream: its subscription id and the task ids it will push
/// about (none when the server dropped them: it will not push task statuses).
fn parse_acknowledged(params: &Value) -> TaskNotice {
    let subscription = params
        .get("_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
        .and_then(Id::from_json);
    let ids = params
        .get("notifications")
        .and_then(|n| n.get("taskIds"))
        .and_then(Value::as_array);
    let mut task_ids = Vec::new();
    for id in ids.map(Vec::as_slice).unwrap_or_default() {
        if let Some(id) = id.as_str() {
            task_ids.push(id.to_owned());
        }
    }
    TaskNotice::Listening {
        subscription,
        task_ids,
    }
}

#[cfg(test)]
mod tests;
