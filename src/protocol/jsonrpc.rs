//! JSON-RPC 2.0 envelope. Ids (number or string) are echoed verbatim; batches are rejected cleanly.

use std::fmt;

use crate::json::{Map, Value};
use serde::{Deserialize, Serialize};

use crate::json::digits;

/// A JSON-RPC id, kept exactly as received (number or string).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Number(i64),
    String(String),
}

impl Id {
    /// The id as text: a number in decimal, a string as it is.
    pub fn text(&self) -> String {
        match self {
            Id::Number(n) => digits::signed(*n),
            Id::String(s) => s.clone(),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl From<&Id> for Value {
    fn from(id: &Id) -> Value {
        id_value(id)
    }
}

/// A JSON-RPC error object; the raw `code` is always kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Reads an error object tolerantly: an integral float code is accepted, a missing or
    /// non-string message becomes empty, `data: null` counts as absent. `None` without a code.
    pub fn from_value(value: &Value) -> Option<RpcError> {
        let obj = value.as_object()?;
        let code = obj.get("code").and_then(integer)?;
        let message = obj
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let data = obj.get("data").filter(|d| !d.is_null()).cloned();
        Some(RpcError {
            code,
            message: message.to_owned(),
            data,
        })
    }

    /// The error object as JSON (what the derived `Serialize` writes).
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("code".into(), Value::from(self.code));
        obj.insert("message".into(), Value::from(self.message.as_str()));
        if let Some(data) = &self.data {
            obj.insert("data".into(), data.clone());
        }
        Value::Object(obj)
    }
}

/// An integer, also when sent as an integral float (`3.0`, `1e3`).
fn integer(value: &Value) -> Option<i64> {
    if let Some(i) = value.as_i64() {
        return Some(i);
    }
    let f = value.as_f64()?;
    // `i64::MAX as f64` rounds up to 2^63, so `<` keeps the cast in range.
    (f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64).then_some(f as i64)
}

/// Well-known codes.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// One decoded JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Id,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: Id,
        result: Value,
    },
    Error {
        id: Option<Id>,
        error: RpcError,
    },
}

/// Why bytes could not be decoded as one JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not valid JSON.
    Json(String),
    /// A JSON array: batches are not part of current MCP.
    Batch,
    /// Valid JSON, but not a JSON-RPC 2.0 message.
    NotJsonRpc(&'static str),
    /// Larger than the configured limit.
    TooLarge { len: usize, limit: usize },
}

impl DecodeError {
    /// What went wrong, in words (the `Display` text).
    pub fn message(&self) -> String {
        match self {
            DecodeError::Json(e) => ["invalid JSON: ", e].concat(),
            DecodeError::Batch => "JSON-RPC batches are not supported".to_owned(),
            DecodeError::NotJsonRpc(why) => ["not a JSON-RPC 2.0 message: ", why].concat(),
            DecodeError::TooLarge { len, limit } => [
                "message of ",
                &digits::decimal(*len as u64),
                " bytes exceeds the ",
                &digits::decimal(*limit as u64),
                "-byte limit",
            ]
            .concat(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for DecodeError {}

impl Message {
    /// Decodes one message from bytes, refusing anything longer than `limit`.
    pub fn decode(bytes: &[u8], limit: usize) -> Result<Message, DecodeError> {
        within(bytes.len(), limit)?;
        let text = std::str::from_utf8(bytes)
            .map_err(|_| DecodeError::Json("invalid UTF-8".to_owned()))?;
        Self::decode_str(text, limit)
    }

    /// [`Message::decode`] for text.
    pub fn decode_str(text: &str, limit: usize) -> Result<Message, DecodeError> {
        within(text.len(), limit)?;
        Self::from_value(crate::json::parse(text).map_err(DecodeError::Json)?)
    }

    /// Classifies an already-parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, DecodeError> {
        let mut obj = match value {
            Value::Object(o) => o,
            Value::Array(_) => return Err(DecodeError::Batch),
            _ => return Err(DecodeError::NotJsonRpc("not an object")),
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(DecodeError::NotJsonRpc("missing jsonrpc: \"2.0\""));
        }
        let id = match super::take(&mut obj, "id") {
            None | Some(Value::Null) => None,
            Some(v) => Some(parse_id(&v)?),
        };
        let params = super::take(&mut obj, "params");
        if let Some(method) = super::take(&mut obj, "method") {
            let method = match method {
                Value::String(m) => m,
                _ => return Err(DecodeError::NotJsonRpc("method is not a string")),
            };
            return Ok(match id {
                Some(id) => Message::Request { id, method, params },
                None => Message::Notification { method, params },
            });
        }
        if let Some(err) = super::take(&mut obj, "error") {
            let error = RpcError::from_value(&err)
                .ok_or(DecodeError::NotJsonRpc("malformed error object"))?;
            return Ok(Message::Error { id, error });
        }
        match (id, super::take(&mut obj, "result")) {
            (Some(id), Some(result)) => Ok(Message::Response { id, result }),
            (None, Some(_)) => Err(DecodeError::NotJsonRpc("response without id")),
            _ => Err(DecodeError::NotJsonRpc(
                "neither request, response nor error",
            )),
        }
    }

    /// Encodes the message as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request { id, method, params } => {
                obj.insert("id".into(), id_value(id));
                obj.insert("method".into(), Value::from(method.as_str()));
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Notification { method, params } => {
                obj.insert("method".into(), Value::from(method.as_str()));
                if let Some(p) = params {
                    obj.insert("params".into(), p.clone());
                }
            }
            Message::Response { id, result } => {
                obj.insert("id".into(), id_value(id));
                obj.insert("result".into(), result.clone());
            }
            Message::Error { id, error } => {
                let id = match id {
                    Some(id) => id_value(id),
                    None => Value::Null,
                };
                obj.insert("id".into(), id);
                obj.insert("error".into(), error.to_value());
            }
        }
        Value::Object(obj)
    }

    /// Encodes the message as a JSON string.
    pub fn encode(&self) -> String {
        super::text(&self.to_value())
    }
}

/// Refuses a message longer than `limit`.
fn within(len: usize, limit: usize) -> Result<(), DecodeError> {
    if len > limit {
        return Err(DecodeError::TooLarge { len, limit });
    }
    Ok(())
}

impl Id {
    /// An id read from a JSON value (`requestId` of `notifications/cancelled`), if it is one.
    pub fn from_json(v: &Value) -> Option<Id> {
        match v {
            Value::String(s) => Some(Id::String(s.clone())),
            _ => integer(v).map(Id::Number),
        }
    }
}

fn parse_id(v: &Value) -> Result<Id, DecodeError> {
    Id::from_json(v).ok_or(DecodeError::NotJsonRpc(match v {
        Value::Number(_) => "id is not an integer",
        _ => "id is neither number nor string",
    }))
}

fn id_value(id: &Id) -> Value {
    match id {
        Id::Number(n) => Value::from(*n),
        Id::String(s) => Value::from(s.as_str()),
    }
}
