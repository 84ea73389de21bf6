//! The JSON forms of the engine's values that the tabs' channel carries and their records keep,
//! written by hand ([`ToJson`]) as their `Serialize` derives write them: the derives stay for the
//! TypeScript declarations and the native tests, and no serde serializer is compiled into the
//! wasm. `bridge::json` reads these forms back.

use super::wire::{Msg, Op, SessionWire};
use crate::engine::api::{Augment, CallOptions, ClientError, End, Event, InputId, OpId, SubId};
use crate::engine::snapshot::{SessionSnapshot, TaskSnapshot};
use crate::json::{Object, ToJson, Value};
use crate::protocol::auth::AuthChallenge;
use crate::protocol::jsonrpc::RpcError;

/// The ids are their number.
macro_rules! to_json_by_number {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn push_json(&self, out: &mut String) {
                self.0.push_json(out);
            }
        }
    )*};
}
to_json_by_number!(SubId, OpId, InputId);

impl ToJson for Augment {
    fn push_json(&self, out: &mut String) {
        let name = match self {
            Augment::Auto => "auto",
            Augment::Always => "always",
            Augment::Never => "never",
        };
        name.push_json(out);
    }
}

impl ToJson for CallOptions {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("ttlMs", &self.ttl_ms))
            .with("keepAliveMs", &self.keep_alive_ms)
            .with("augment", &self.augment)
            .with("deleteOnDone", &self.delete_on_done)
            .end();
    }
}

impl ToJson for RpcError {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("code", &self.code))
            .with("message", &self.message)
            .with_some("data", &self.data)
            .end();
    }
}

impl ToJson for AuthChallenge {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("wwwAuthenticate", &self.www_authenticate))
            .with("resourceMetadata", &self.resource_metadata)
            .with("scope", &self.scope)
            .with("error", &self.error)
            .with("errorDescription", &self.error_description)
            .end();
    }
}

impl ToJson for ClientError {
    fn push_json(&self, out: &mut String) {
        let auth = self.auth.as_deref();
        (Object::new(out).with("kind", &self.kind))
            .with("message", &self.message)
            .with("code", &self.code)
            .with("data", &self.data)
            .with_some("httpStatus", &self.http_status)
            .with_some("auth", &auth)
            .end();
    }
}

/// A `Result` as serde writes it: `{"Ok": …}` or `{"Err": …}`.
struct Tagged<'a>(pub Result<&'a Value, &'a dyn ToJson>);

impl ToJson for Tagged<'_> {
    fn push_json(&self, out: &mut String) {
        match self.0 {
            Ok(v) => Object::new(out).with("Ok", v),
            Err(e) => Object::new(out).with("Err", e),
        }
        .end();
    }
}

impl ToJson for End {
    fn push_json(&self, out: &mut String) {
        match self {
            End::Finished { task, outcome } => (Object::new(out).with("kind", &"finished"))
                .with("task", task)
                .with("outcome", outcome),
            End::Aborted => Object::new(out).with("kind", &"aborted"),
            End::Failed { error } => Object::new(out)
                .with("kind", &"failed")
                .with("error", error),
        }
        .end();
    }
}

impl ToJson for Event {
    fn push_json(&self, out: &mut String) {
        let o = Object::new(out);
        match self {
            Event::Connected {
                dialect,
                protocol_version,
                server_info,
                capabilities,
            } => (o.with("type", &"connected").with("dialect", dialect))
                .with("protocolVersion", protocol_version)
                .with("serverInfo", server_info)
                .with("capabilities", capabilities)
                .end(),
            Event::Status { sub, task } => (o.with("type", &"status").with("sub", sub))
                .with("task", task)
                .end(),
            Event::Done { sub, task_id, end } => (o.with("type", &"done").with("sub", sub))
                .with("taskId", task_id)
                .with("end", end)
                .end(),
            Event::Input {
                id,
                task_id,
                request,
            } => (o.with("type", &"input").with("id", id))
                .with("taskId", task_id)
                .with("request", request)
                .end(),
            Event::Reply { op, result } => {
                let result = Tagged(result.as_ref().map_err(|e| e as &dyn ToJson));
                (o.with("type", &"reply").with("op", op))
                    .with("result", &result)
                    .end()
            }
            Event::Warning { task_id, error } => (o.with("type", &"warning"))
                .with("taskId", task_id)
                .with("error", error)
                .end(),
            Event::Transition {
                task_id,
                from,
                to,
                at,
            } => (o.with("type", &"transition").with("taskId", task_id))
                .with("from", from)
                .with("to", to)
                .with("at", at)
                .end(),
        }
    }
}

impl ToJson for TaskSnapshot {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("task", &self.task))
            .with("known", &self.known)
            .with("lastPolledAt", &self.last_polled_at)
            .with("statusSince", &self.status_since)
            .with("nextPollAt", &self.next_poll_at)
            .with("deadline", &self.deadline)
            .with("inputKeys", &self.input_keys)
            .end();
    }
}

impl ToJson for SessionSnapshot {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("dialect", &self.dialect))
            .with("protocolVersion", &self.protocol_version)
            .with("sessionId", &self.session_id)
            .with("capabilities", &self.capabilities)
            .with("serverInfo", &self.server_info)
            .end();
    }
}

impl ToJson for Msg {
    fn push_json(&self, out: &mut String) {
        let o = Object::new(out);
        match self {
            Msg::Hello { from, visible } => {
                (o.with("t", &"hello").with("from", from)).with("visible", visible)
            }
            Msg::Leader {
                from,
                epoch,
                hidden_ms,
                session,
                session_id,
            } => (o.with("t", &"leader").with("from", from))
                .with("epoch", epoch)
                .with("hiddenMs", hidden_ms)
                .with("session", session)
                .with("sessionId", session_id),
            Msg::Op {
                from,
                epoch,
                id,
                op,
            } => (o.with("t", &"op").with("from", from))
                .with("epoch", epoch)
                .with("id", id)
                .with("op", op),
            Msg::Ack { to, epoch, id } => (o.with("t", &"ack").with("to", to))
                .with("epoch", epoch)
                .with("id", id),
            Msg::Ev { to, epoch, event } => (o.with("t", &"ev").with("to", to))
                .with("epoch", epoch)
                .with("event", event),
            Msg::Vis { from, visible } => {
                (o.with("t", &"vis").with("from", from)).with("visible", visible)
            }
            Msg::Online { from } => o.with("t", &"online").with("from", from),
            Msg::Got { from, epoch, id } => (o.with("t", &"got").with("from", from))
                .with("epoch", epoch)
                .with("id", id),
            Msg::Bye { from } => o.with("t", &"bye").with("from", from),
        }
        .end();
    }
}

impl ToJson for Op {
    fn push_json(&self, out: &mut String) {
        let o = Object::new(out);
        match self {
            Op::CallTool {
                name,
                arguments,
                opts,
            } => (o.with("op", &"callTool").with("name", name))
                .with("arguments", arguments)
                .with("opts", opts),
            Op::Request {
                method,
                params,
                opts,
            } => (o.with("op", &"request").with("method", method))
                .with("params", params)
                .with("opts", opts),
            Op::Watch { task_id } => o.with("op", &"watch").with("taskId", task_id),
            Op::Unsubscribe { sub } => o.with("op", &"unsubscribe").with("sub", sub),
            Op::Cancel { task_id } => o.with("op", &"cancel").with("taskId", task_id),
            Op::DeleteTask { task_id } => o.with("op", &"deleteTask").with("taskId", task_id),
            Op::AnswerInput { id, answer } => {
                let answer = Tagged(answer.as_ref().map_err(|e| e as &dyn ToJson));
                (o.with("op", &"answerInput").with("id", id)).with("answer", &answer)
            }
            Op::ListTasks { cursor } => o.with("op", &"listTasks").with("cursor", cursor),
            Op::ListTools => o.with("op", &"listTools"),
            Op::Forget { task_id } => o.with("op", &"forget").with("taskId", task_id),
        }
        .end();
    }
}

impl ToJson for SessionWire {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("dialect", &self.dialect))
            .with("protocolVersion", &self.protocol_version)
            .with("serverInfo", &self.server_info)
            .with("capabilities", &self.capabilities)
            .end();
    }
}
