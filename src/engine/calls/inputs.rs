//! Input requests from the server (elicitation, sampling, roots): surfaced once as
//! [`Event::Input`](crate::engine::api::Event::Input), answered through the dialect (a JSON-RPC response,
//! modern `tasks/update`, or an MRTR retry).

use crate::json::{json, Value};

use crate::engine::ids::CallId;
use crate::protocol::dialect::Outgoing;
use crate::protocol::jsonrpc::{codes, Id, Message, RpcError};
use crate::protocol::model::{InputRequest, TaskStatus};

use super::elicit::{fill_defaults, ELICIT};
use crate::collections::sorted::SortedMap;
use crate::engine::api::{
    ClientError, ErrorKind, Event, InputId, Millis, SendKey, INPUT_WITHDRAWN,
};
use crate::engine::requests::{Answer, Purpose};
use crate::engine::Engine;

/// Server→client requests the host answers.
const HOST_METHODS: [&str; 3] = [ELICIT, "sampling/createMessage", "roots/list"];

/// Where an input request came from (decides how it is answered).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Origin {
    /// A JSON-RPC request from the server (legacy, draft), by its id.
    Server(Id),
    /// A modern task's `inputRequests` entry.
    Task,
    /// A modern MRTR round of a call.
    Mrtr(CallId),
    /// A server request the client runs as a task (see `receiver`): the answer is the task's outcome.
    #[cfg(feature = "receiver")]
    Hosted,
}

/// One input request the host has not answered yet (or whose answer is not delivered yet).
#[derive(Debug)]
pub(crate) struct Open {
    task_id: Option<String>,
    request: InputRequest,
    origin: Origin,
    answer: Option<Result<Value, RpcError>>,
}

#[derive(Debug, Default)]
pub(crate) struct Inputs {
    next: u64,
    open: SortedMap<InputId, Box<Open>>,
    /// When an input request last came or was answered.
    last: Millis,
}

impl Inputs {
    /// Forgets the open requests of a task that ended.
    pub(crate) fn drop_task(&mut self, task_id: &str) {
        self.drop_where(&|o| o.task_id.as_deref() == Some(task_id));
    }

    /// Forgets the open requests of an MRTR call that ended.
    pub(crate) fn drop_call(&mut self, call: CallId) {
        self.drop_where(&|o| o.origin == Origin::Mrtr(call));
    }

    /// Forgets the open requests `gone` names (one `retain` in the binary for both callers).
    fn drop_where(&mut self, gone: &dyn Fn(&Open) -> bool) {
        self.open.retain(|_, o| !gone(o));
    }

    /// Whether an input request is open, or one came or was answered within `ms` before `now`.
    pub(super) fn heard_within(&self, now: Millis, ms: Millis) -> bool {
        !self.open.is_empty() || self.last.saturating_add(ms) > now
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }
}

impl Engine {
    /// Whether the task waits for input its news did not carry, where a status request would
    /// (inline outcomes: a create result or a push may leave the requests out).
    pub(crate) fn inputs_untold(&self, task_id: &str) -> bool {
        let Some(e) = self.tasks.get(task_id) else {
            return false;
        };
        !self.session.fetches_results()
            && e.status() == Some(TaskStatus::InputRequired)
            && e.snapshot
                .as_ref()
                .is_some_and(|k| k.input_requests().is_empty())
    }

    pub(crate) fn surface_input(
        &mut self,
        now: Millis,
        task_id: Option<String>,
        request: InputRequest,
        origin: Origin,
    ) -> InputId {
        self.inputs.next += 1;
        self.inputs.last = now;
        let id = InputId(self.inputs.next);
        let open = Open {
            task_id: task_id.clone(),
            request: request.clone(),
            origin,
            answer: None,
        };
        self.inputs.open.insert(id, Box::new(open));
        self.emit(Event::Input {
            id,
            task_id,
            request,
        });
        id
    }

    /// Withdraws an open input request: the host is told to stop (see [`INPUT_WITHDRAWN`]).
    pub(crate) fn withdraw_input(&mut self, id: InputId, reason: &str) {
        let Some(open) = self.inputs.open.remove(&id) else {
            return;
        };
        let request = InputRequest {
            key: open.request.key,
            method: INPUT_WITHDRAWN.to_owned(),
            params: crate::protocol::object([("reason", Value::from(reason))]),
        };
        self.emit(Event::Input {
            id,
            task_id: open.task_id,
            request,
        });
    }

    /// The server gave up on one of its requests (`notifications/cancelled {requestId}`, e.g. on
    /// its own timeout): the host's open input for it is withdrawn.
    pub(super) fn on_request_cancelled(&mut self, params: Option<&Value>) {
        let Some(id) = params
            .and_then(|p| p.get("requestId"))
            .and_then(Id::from_json)
        else {
            return;
        };
        let origin = Origin::Server(id);
        let open = self
            .inputs
            .open
            .keys()
            .find(|k| self.inputs.open.get(k).is_some_and(|o| o.origin == origin))
            .copied();
        if let Some(k) = open {
            self.withdraw_input(k, "cancelled");
        }
    }

    /// A request from the server: `ping` is answered here, host methods are surfaced (once per
    /// id while open), anything else is refused.
    pub(crate) fn on_server_request(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        id: Id,
        method: &str,
        params: Option<Value>,
    ) {
        if method == "ping" {
            return self.respond(Message::Response {
                id,
                result: json!({}),
            });
        }
        // Without the receiver no task capability is declared: a task-augmented request is
        // processed as a plain one (its `task` ignored) and `tasks/*` are unknown methods.
        #[cfg(feature = "receiver")]
        if self.hosted_request(now, &id, method, params.as_ref()) {
            return;
        }
        #[cfg(not(feature = "receiver"))]
        let _ = now;
        if !HOST_METHODS.contains(&method) {
            let error = RpcError::new(
                codes::METHOD_NOT_FOUND,
                ["method not found: ", method].concat(),
            );
            return self.respond(Message::Error {
                id: Some(id),
                error,
            });
        }
        if self
            .inputs
            .open
            .values()
            .any(|o| o.origin == Origin::Server(id.clone()))
        {
            return;
        }
        let params = params.unwrap_or_default();
        let related = self
            .session
            .codec_any()
            .and_then(|c| c.related_task(&params));
        // Without related-task `_meta`, the stream it came on may tell (a `tasks/result` stream).
        let by_stream = via
            .and_then(|k| self.reqs.id_of(k))
            .and_then(|n| self.reqs.purpose(n))
            .and_then(|p| match p {
                Purpose::Result(t) => Some(t.clone()),
                _ => None,
            });
        let request = InputRequest {
            key: id.text(),
            method: method.to_owned(),
            params,
        };
        self.surface_input(now, related.or(by_stream), request, Origin::Server(id));
    }

    /// Serves a server request the receiver takes (a 2025-11-25 session declaring hosted
    /// tasks); `false` leaves it to the usual handling.
    #[cfg(feature = "receiver")]
    fn hosted_request(
        &mut self,
        now: Millis,
        id: &Id,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        if self.session.dialect() != Some(crate::protocol::model::Dialect::Legacy) {
            return false;
        }
        let mut fx = Vec::new();
        let declared = &self.cfg.client_capabilities;
        let ask = (id, method, params);
        let served = self
            .hosted
            .serve(now, declared, &mut self.rng, ask, &mut fx);
        self.apply_hosted(now, fx);
        served
    }

    /// Does what the receiver asks, in order.
    #[cfg(feature = "receiver")]
    pub(crate) fn apply_hosted(&mut self, now: Millis, fx: Vec<crate::engine::receiver::Effect>) {
        use crate::engine::receiver::Effect;
        for f in fx {
            match f {
                Effect::Send(msg) => self.respond(msg),
                Effect::Ask { task_id, request } => {
                    let origin = Origin::Hosted;
                    let input = self.surface_input(now, Some(task_id.clone()), request, origin);
                    self.hosted.input_opened(&task_id, input);
                }
                Effect::Withdraw(input, reason) => self.withdraw_input(input, reason),
            }
        }
    }

    pub(crate) fn respond(&mut self, msg: Message) {
        let headers = match self.session.codec_any() {
            Some(c) => c.message_headers(&self.session.info(), &msg),
            None => Vec::new(),
        };
        self.send_message(&msg, headers);
    }

    pub(crate) fn answer(&mut self, now: Millis, id: InputId, answer: Result<Value, RpcError>) {
        let Some(open) = self.inputs.open.get_mut(&id) else {
            return;
        };
        if open.answer.is_some() {
            return;
        }
        self.inputs.last = now;
        let was_ok = answer.is_ok();
        let answer = super::answers::check(&open.request.method, answer);
        if let (true, Err(e)) = (was_ok, &answer) {
            // The host's own mistake: say so to the host too, not only to the server.
            let warning = ClientError::new(ErrorKind::InvalidInput, e.message.clone());
            let task_id = open.task_id.clone();
            self.warn(task_id, warning);
        }
        let Some(open) = self.inputs.open.get_mut(&id) else {
            return;
        };
        let answer = answer.map(|mut v| {
            if open.request.method == ELICIT {
                fill_defaults(&open.request.params, &mut v);
            }
            v
        });
        #[cfg(feature = "receiver")]
        if open.origin == Origin::Hosted {
            let task_id = open.task_id.clone();
            self.inputs.open.remove(&id);
            if let Some(t) = task_id {
                let fx = self.hosted.answer(now, &t, answer);
                self.apply_hosted(now, fx);
            }
            return;
        }
        if let Origin::Mrtr(c) = open.origin {
            let key = open.request.key.clone();
            self.inputs.open.remove(&id);
            return self.mrtr_answer(now, c, &key, answer.ok());
        }
        open.answer = Some(answer);
        self.dispatch(now, Purpose::Answer(id));
    }

    /// Sends a stored answer (the session is ready).
    pub(crate) fn send_answer(&mut self, now: Millis, id: InputId) {
        let Some(codec) = self.session.ready_codec() else {
            return;
        };
        let Some(open) = self.inputs.open.get(&id) else {
            return;
        };
        let Some(answer) = open.answer.clone() else {
            return;
        };
        let server_id = match &open.origin {
            Origin::Server(x) => Some(x.clone()),
            _ => None,
        };
        let task_id = open.task_id.clone();
        let (msg, headers) = {
            let si = self.session.info();
            let msg = codec.build_input_answer(
                &si,
                task_id.as_deref(),
                &open.request,
                server_id.as_ref(),
                answer,
            );
            let headers = codec.message_headers(&si, &msg);
            (msg, headers)
        };
        match msg {
            Message::Request { method, params, .. } => {
                let params = params.unwrap_or_default();
                let out = Outgoing {
                    method,
                    params,
                    headers,
                    expects_response: true,
                };
                self.send(now, Purpose::Answer(id), out);
            }
            other => {
                let key = self.send_message(&other, headers);
                self.reqs.answer_sent(key, task_id.clone());
                self.inputs.open.remove(&id);
                // A status poll tells what the answer changed, unless the task's `tasks/result`
                // is open: it carries the rest (and regular polls go on).
                let streaming = task_id
                    .as_ref()
                    .and_then(|t| self.tasks.get(t))
                    .is_some_and(|e| e.result.req().is_some());
                if let Some(t) = task_id.filter(|_| !streaming) {
                    self.poll_soon(now, &t);
                }
            }
        }
    }

    /// The answer request (`tasks/update`) was acknowledged or failed.
    pub(crate) fn on_answer_ack(&mut self, now: Millis, id: InputId, res: Answer) {
        let Some(open) = self.inputs.open.remove(&id) else {
            return;
        };
        if let Err(f) = res {
            self.warn(open.task_id.clone(), f.client_error());
            // Ask the host again when the task still lists the request.
            if let Some(e) = open.task_id.as_ref().and_then(|t| self.tasks.get_mut(t)) {
                e.input_keys.remove(&open.request.key);
            }
        }
        if let Some(t) = open.task_id {
            self.poll_soon(now, &t);
        }
    }
}
