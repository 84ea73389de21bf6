//! Serving the server's requests from the hosted tasks: task-augmented input requests become
//! hosted tasks, `tasks/*` requests are answered from them, and their ends are pushed. What must
//! happen outside (send, ask the host, withdraw an input) goes through [`Effects`], in order.

use crate::json::Value;

use crate::protocol::dialect::hosted;
use crate::protocol::dialect::legacy::STATUS_NOTIFICATION;
use crate::protocol::jsonrpc::{codes, Id, Message, RpcError};
use crate::protocol::model::InputRequest;
use crate::protocol::object;

use super::{wire, Hosted, Status};
use crate::engine::api::{InputId, Millis};

/// What the receiver needs done outside itself (the engine does it).
pub(crate) trait Effects {
    /// Sends a response or notification to the server.
    fn send(&mut self, msg: Message);
    /// Asks the host for hosted task `task_id`'s input: the id of the host's input.
    fn ask(&mut self, now: Millis, task_id: &str, request: InputRequest) -> InputId;
    /// Withdraws the host's open input, giving the reason.
    fn withdraw(&mut self, input: InputId, reason: &str);
    /// 128 fresh random bits, hex: a new task's id.
    fn fresh_id(&mut self) -> String;
}

/// The `{taskId}` a `tasks/get|result|cancel` names.
fn task_id(params: Option<&Value>) -> Result<&str, RpcError> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(codes::INVALID_PARAMS, "taskId (a string) is required"))
}

/// Sends the response to request `id`.
fn reply(fx: &mut impl Effects, id: Id, reply: Result<Value, RpcError>) {
    fx.send(match reply {
        Ok(result) => Message::Response { id, result },
        Err(error) => Message::Error {
            id: Some(id),
            error,
        },
    });
}

impl Hosted {
    /// Serves a server request that is the receiver's matter, given the receiver capabilities the
    /// client declared (`caps`, see [`hosted::declare`]); `false` leaves it to the usual handling.
    /// Tasks whose ttl ran out end first, whatever the request.
    pub(crate) fn serve(
        &mut self,
        now: Millis,
        caps: &Value,
        (id, method, params): (&Id, &str, Option<&Value>),
        fx: &mut impl Effects,
    ) -> bool {
        // A ttl that ran out since the last timer counts now.
        self.expire_due(now, fx);
        let any = ["elicitation/create", "sampling/createMessage"]
            .iter()
            .any(|m| hosted::hosts(caps, m));
        let asks_task = params
            .and_then(|p| p.get("task"))
            .is_some_and(Value::is_object);
        let answer = match method {
            "tasks/get" if any => task_id(params)
                .and_then(|tid| self.get_mut(tid))
                .map(|t| t.wire()),
            "tasks/result" if any => match self.held_result(id, params) {
                Some(r) => r,
                None => return true,
            },
            "tasks/list" if hosted::offers(caps, "list") => {
                match params.and_then(|p| p.get("cursor")) {
                    None | Some(Value::Null) => self.page(None),
                    Some(Value::String(c)) => self.page(Some(c)),
                    Some(_) => Err(RpcError::new(codes::INVALID_PARAMS, "Invalid cursor")),
                }
            }
            "tasks/cancel" if hosted::offers(caps, "cancel") => self.cancel(now, params, fx),
            m if asks_task && hosted::hosts(caps, m) => {
                self.start(now, (id, m, params), fx);
                return true;
            }
            _ => return false,
        };
        reply(fx, id.clone(), answer);
        true
    }

    /// `CreateTaskResult` at once, then the host's input handler is asked for the task.
    fn start(
        &mut self,
        now: Millis,
        (id, method, params): (&Id, &str, Option<&Value>),
        fx: &mut impl Effects,
    ) {
        if let Some(t) = self.by_request(id) {
            // The same request again (a replayed stream): the same task, no second input.
            let result = object([("task", t.wire())]);
            return reply(fx, id.clone(), Ok(result));
        }
        let requested = params
            .and_then(|p| p.get("task"))
            .and_then(|t| t.get("ttl"));
        let ttl = Hosted::grant_ttl(requested);
        let task_id = fx.fresh_id();
        let Some(task) = self.create(task_id.clone(), id.clone(), now, ttl) else {
            let error = RpcError::new(codes::INTERNAL_ERROR, "Too many tasks on the client");
            return reply(fx, id.clone(), Err(error));
        };
        let result = object([("task", task.wire())]);
        reply(fx, id.clone(), Ok(result));
        let request = InputRequest {
            key: id.text(),
            method: method.to_owned(),
            params: params.cloned().unwrap_or(Value::Null),
        };
        let input = fx.ask(now, &task_id, request);
        if let Ok(t) = self.get_mut(&task_id) {
            t.input = Some(input);
        }
    }

    /// The outcome of an ended task; `None` when the request is held until the task ends.
    fn held_result(&mut self, id: &Id, params: Option<&Value>) -> Option<Result<Value, RpcError>> {
        let t = match task_id(params).and_then(|tid| self.get_mut(tid)) {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        match &t.outcome {
            Some(outcome) => Some(outcome.clone().map(|v| wire::with_related(v, &t.id))),
            None => {
                if !t.waiters.contains(id) {
                    t.waiters.push(id.clone());
                }
                None
            }
        }
    }

    fn cancel(
        &mut self,
        now: Millis,
        params: Option<&Value>,
        fx: &mut impl Effects,
    ) -> Result<Value, RpcError> {
        let t = self.get_mut(task_id(params)?)?;
        if t.status.is_terminal() {
            return Err(wire::already_terminal(t.status.as_str()));
        }
        let tid = t.id.clone();
        self.settle(now, &tid, Status::Cancelled, Err(wire::cancelled()), fx);
        Ok(self.get(&tid).map(|t| t.wire()).unwrap_or(Value::Null))
    }

    /// The host answered a hosted task's input: the task completes (or fails with its error).
    pub(crate) fn answer(
        &mut self,
        now: Millis,
        task_id: &str,
        answer: Result<Value, RpcError>,
        fx: &mut impl Effects,
    ) {
        let status = if answer.is_ok() {
            Status::Completed
        } else {
            Status::Failed
        };
        self.settle(now, task_id, status, answer, fx);
    }

    /// Ends a hosted task once: the held `tasks/result` requests get the outcome, the host's
    /// input (if still open) is withdrawn, and the new status is pushed.
    fn settle(
        &mut self,
        now: Millis,
        task_id: &str,
        status: Status,
        outcome: Result<Value, RpcError>,
        fx: &mut impl Effects,
    ) {
        let input = self.get(task_id).and_then(|t| t.input);
        let Some(waiters) = self.finish(task_id, now, status, outcome.clone()) else {
            return;
        };
        if let Some(i) = input {
            fx.withdraw(i, status.as_str());
        }
        let result = outcome.map(|v| wire::with_related(v, task_id));
        for w in waiters {
            reply(fx, w, result.clone());
        }
        if let Some(mut v) = self.get(task_id).map(|t| t.wire()) {
            if let Value::Object(o) = &mut v {
                o.insert("_meta".into(), wire::related(task_id));
            }
            fx.send(Message::Notification {
                method: STATUS_NOTIFICATION.into(),
                params: Some(v),
            });
        }
    }

    /// Forgets the hosted tasks whose ttl ran out: their held `tasks/result` requests and their
    /// host inputs end with the expired error.
    pub(crate) fn expire_due(&mut self, now: Millis, fx: &mut impl Effects) {
        for t in self.expire(now) {
            if let Some(i) = t.input {
                fx.withdraw(i, "expired");
            }
            for w in t.waiters {
                reply(fx, w, Err(wire::expired()));
            }
        }
    }
}
