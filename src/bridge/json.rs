//! Readers for the JSON this package writes itself (messages between tabs, stored records),
//! accepting exactly the shapes serde's derived `Serialize` writes. They are the library's only
//! readers of these shapes; a server's JSON is read by `protocol::dialect`, whose shapes differ
//! per dialect.
//!
//! Hand-written on purpose: the model's derived `Deserialize` impls, instantiated for
//! `serde_json::Value`, cost ~19 % of the gzipped package in place of all readers here and
//! ~9 % for the `Task` reader alone (internally tagged enums above all). Natively the derives
//! stay (the public Rust API); the wasm tests pin each reader to them. Every reader is total: a
//! wrong shape gives `None`, never a panic. Missing optional fields and `null` read as `None`,
//! unknown fields are ignored, as with the derives.

use crate::json::{Map, Value};

use crate::engine::api::{
    Augment, CallOptions, ClientError, End, ErrorKind, Event, InputId, OpId, SubId,
};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::protocol::auth::AuthChallenge;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, InputRequest, Outcome, Task, TaskStatus};

/// Parses JSON text (the reader protocol messages go through).
pub fn parse(text: &str) -> Option<Value> {
    crate::json::parse(text).ok()
}

/// The fields of one JSON object, taken out one by one.
pub struct Fields(Map<String, Value>);

impl Fields {
    pub fn of(v: Value) -> Option<Fields> {
        match v {
            Value::Object(m) => Some(Fields(m)),
            _ => None,
        }
    }

    /// A required field.
    pub fn get<T>(&mut self, key: &str, read: fn(Value) -> Option<T>) -> Option<T> {
        crate::protocol::take(&mut self.0, key).and_then(read)
    }

    /// An `Option` field: missing or `null` is `Some(None)`, a bad value `None`.
    pub fn opt<T>(&mut self, key: &str, read: fn(Value) -> Option<T>) -> Option<Option<T>> {
        match crate::protocol::take(&mut self.0, key) {
            None | Some(Value::Null) => Some(None),
            Some(v) => read(v).map(Some),
        }
    }

    /// A `#[serde(default)]` field: missing is the default, a present value must read.
    pub fn or_default<T: Default>(&mut self, key: &str, read: fn(Value) -> Option<T>) -> Option<T> {
        crate::protocol::take(&mut self.0, key).map_or(Some(T::default()), read)
    }

    /// The tag of an internally tagged enum.
    pub fn tag(&mut self, key: &str) -> Option<String> {
        self.get(key, string)
    }
}

pub fn value(v: Value) -> Option<Value> {
    Some(v)
}

pub fn string(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

pub fn u64(v: Value) -> Option<u64> {
    v.as_u64()
}

pub fn bool(v: Value) -> Option<bool> {
    v.as_bool()
}

fn i64(v: Value) -> Option<i64> {
    v.as_i64()
}

pub fn strings<C: FromIterator<String>>(v: Value) -> Option<C> {
    match v {
        Value::Array(a) => a.into_iter().map(string).collect(),
        _ => None,
    }
}

fn list<T>(v: Value, read: fn(Value) -> Option<T>) -> Option<Vec<T>> {
    match v {
        Value::Array(a) => a.into_iter().map(read).collect(),
        _ => None,
    }
}

/// A unit variant, written as its wire name: `all` lists every variant, `name` spells it.
fn unit<T: Copy>(v: Value, all: &[T], name: fn(T) -> &'static str) -> Option<T> {
    let s = v.as_str()?;
    all.iter().copied().find(|t| name(*t) == s)
}

/// `Result<T, E>` as serde writes it: `{"Ok": …}` or `{"Err": …}`.
fn result<T, E>(
    v: Value,
    ok: fn(Value) -> Option<T>,
    err: fn(Value) -> Option<E>,
) -> Option<Result<T, E>> {
    let Value::Object(m) = v else { return None };
    if m.len() != 1 {
        return None;
    }
    let (k, v) = m.into_iter().next()?;
    match k.as_str() {
        "Ok" => ok(v).map(Ok),
        "Err" => err(v).map(Err),
        _ => None,
    }
}

pub fn dialect(v: Value) -> Option<Dialect> {
    unit(v, &Dialect::ALL, Dialect::name)
}

pub fn task_status(v: Value) -> Option<TaskStatus> {
    unit(v, &TaskStatus::ALL, TaskStatus::name)
}

fn error_kind(v: Value) -> Option<ErrorKind> {
    unit(v, &ErrorKind::ALL, ErrorKind::name)
}

fn augment(v: Value) -> Option<Augment> {
    use Augment::*;
    unit(v, &[Auto, Always, Never], |a| match a {
        Auto => "auto",
        Always => "always",
        Never => "never",
    })
}

pub fn rpc_error(v: Value) -> Option<RpcError> {
    RpcError::from_value(&v)
}

pub fn client_error(v: Value) -> Option<ClientError> {
    let mut f = Fields::of(v)?;
    Some(ClientError {
        kind: f.get("kind", error_kind)?,
        message: f.get("message", string)?,
        code: f.opt("code", i64)?,
        data: f.opt("data", value)?,
        http_status: f.opt("httpStatus", u16)?,
        auth: f.opt("auth", auth_challenge)?.map(Box::new),
    })
}

fn u16(v: Value) -> Option<u16> {
    v.as_u64().and_then(|n| u16::try_from(n).ok())
}

fn auth_challenge(v: Value) -> Option<AuthChallenge> {
    let mut f = Fields::of(v)?;
    Some(AuthChallenge {
        www_authenticate: f.opt("wwwAuthenticate", string)?,
        resource_metadata: f.opt("resourceMetadata", string)?,
        scope: f.opt("scope", string)?,
        error: f.opt("error", string)?,
        error_description: f.opt("errorDescription", string)?,
    })
}

pub fn call_options(v: Value) -> Option<CallOptions> {
    let mut f = Fields::of(v)?;
    Some(CallOptions {
        ttl_ms: f.opt("ttlMs", u64)?,
        keep_alive_ms: f.opt("keepAliveMs", u64)?,
        augment: f.or_default("augment", augment)?,
        delete_on_done: f.or_default("deleteOnDone", bool)?,
    })
}

fn outcome(v: Value) -> Option<Outcome> {
    let mut f = Fields::of(v)?;
    match f.tag("kind")?.as_str() {
        "result" => Some(Outcome::Result {
            result: f.get("result", value)?,
        }),
        "error" => Some(Outcome::Error {
            error: f.get("error", rpc_error)?,
        }),
        _ => None,
    }
}

fn input_request(v: Value) -> Option<InputRequest> {
    let mut f = Fields::of(v)?;
    Some(InputRequest {
        key: f.get("key", string)?,
        method: f.get("method", string)?,
        params: f.get("params", value)?,
    })
}

pub fn task(v: Value) -> Option<Task> {
    let mut f = Fields::of(v)?;
    Some(Task {
        task_id: f.get("taskId", string)?,
        status: f.get("status", task_status)?,
        status_message: f.opt("statusMessage", string)?,
        created_at: f.opt("createdAt", string)?,
        last_updated_at: f.opt("lastUpdatedAt", string)?,
        ttl_ms: f.opt("ttlMs", u64)?,
        keep_alive_ms: f.opt("keepAliveMs", u64)?,
        poll_interval_ms: f.opt("pollIntervalMs", u64)?,
        outcome: f.opt("outcome", outcome)?,
        input_requests: f.or_default("inputRequests", |v| list(v, input_request))?,
    })
}

fn end(v: Value) -> Option<End> {
    let mut f = Fields::of(v)?;
    match f.tag("kind")?.as_str() {
        "finished" => Some(End::Finished {
            task: f.opt("task", task)?,
            outcome: f.opt("outcome", outcome)?,
        }),
        "aborted" => Some(End::Aborted),
        "failed" => Some(End::Failed {
            error: f.get("error", client_error)?,
        }),
        _ => None,
    }
}

pub fn event(v: Value) -> Option<Event> {
    let mut f = Fields::of(v)?;
    let sub = |f: &mut Fields| f.get("sub", u64).map(SubId);
    Some(match f.tag("type")?.as_str() {
        "connected" => Event::Connected {
            dialect: f.get("dialect", dialect)?,
            protocol_version: f.get("protocolVersion", string)?,
            server_info: f.get("serverInfo", value)?,
            capabilities: f.get("capabilities", value)?,
        },
        "status" => Event::Status {
            sub: sub(&mut f)?,
            task: f.get("task", task)?,
        },
        "done" => Event::Done {
            sub: sub(&mut f)?,
            task_id: f.opt("taskId", string)?,
            end: f.get("end", end)?,
        },
        "input" => Event::Input {
            id: InputId(f.get("id", u64)?),
            task_id: f.opt("taskId", string)?,
            request: f.get("request", input_request)?,
        },
        "reply" => Event::Reply {
            op: OpId(f.get("op", u64)?),
            result: f.get("result", |v| result(v, value, client_error))?,
        },
        "warning" => Event::Warning {
            task_id: f.opt("taskId", string)?,
            error: f.get("error", client_error)?,
        },
        "transition" => Event::Transition {
            task_id: f.get("taskId", string)?,
            from: f.opt("from", task_status)?,
            to: f.get("to", task_status)?,
            at: f.get("at", u64)?,
        },
        _ => return None,
    })
}

/// `Result<Value, RpcError>` (an input answer).
pub fn answer(v: Value) -> Option<Result<Value, RpcError>> {
    result(v, value, rpc_error)
}

pub fn session_snapshot(v: Value) -> Option<SessionSnapshot> {
    let mut f = Fields::of(v)?;
    Some(SessionSnapshot {
        dialect: f.get("dialect", dialect)?,
        protocol_version: f.get("protocolVersion", string)?,
        session_id: f.opt("sessionId", string)?,
        capabilities: f.get("capabilities", value)?,
        server_info: f.get("serverInfo", value)?,
    })
}

pub fn task_snapshot(v: Value) -> Option<TaskSnapshot> {
    let mut f = Fields::of(v)?;
    Some(TaskSnapshot {
        task: f.get("task", task)?,
        known: f.get("known", bool)?,
        last_polled_at: f.opt("lastPolledAt", u64)?,
        status_since: f.opt("statusSince", u64)?,
        next_poll_at: f.opt("nextPollAt", u64)?,
        deadline: f.opt("deadline", u64)?,
        input_keys: f.or_default("inputKeys", strings)?,
    })
}
