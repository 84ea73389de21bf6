//! The receiver wired to the engine: task-augmented input requests from the server become hosted
//! tasks, the server's `tasks/*` requests are answered from them, and their ends are pushed.

use crate::json::Value;

use crate::protocol::dialect::hosted;
use crate::protocol::dialect::legacy::STATUS_NOTIFICATION;
use crate::protocol::jsonrpc::{codes, Id, Message, RpcError};
use crate::protocol::model::{Dialect, InputRequest};
use crate::protocol::object;

use super::{wire, Hosted, Status};
use crate::engine::api::Millis;
use crate::engine::calls::inputs::Origin;
use crate::engine::Engine;

/// The `{taskId}` a `tasks/get|result|cancel` names.
fn task_id(params: Option<&Value>) -> Result<&str, RpcError> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(codes::INVALID_PARAMS, "taskId (a string) is required"))
}

impl Engine {
    /// Handles a server request that is the receiver's matter (a 2025-11-25 session declaring
    /// hosted tasks); `false` leaves it to the usual handling.
    pub(crate) fn hosted_request(
        &mut self,
        now: Millis,
        id: &Id,
        method: &str,
        params: Option<&Value>,
    ) -> bool {
        if self.session.dialect() != Some(Dialect::Legacy) {
            return false;
        }
        // A ttl that ran out since the last timer counts now.
        self.expire_hosted(now);
        let caps = hosted::declare(&self.cfg.client_capabilities);
        let any = ["elicitation/create", "sampling/createMessage"]
            .iter()
            .any(|m| hosted::hosts(&caps, m));
        let asks_task = params
            .and_then(|p| p.get("task"))
            .is_some_and(Value::is_object);
        let reply = match method {
            "tasks/get" if any => self.hosted_get(params),
            "tasks/result" if any => match self.hosted_result(id, params) {
                Some(r) => r,
                None => return true,
            },
            "tasks/list" if hosted::offers(&caps, "list") => {
                match params.and_then(|p| p.get("cursor")) {
                    None | Some(Value::Null) => self.hosted.page(None),
                    Some(Value::String(c)) => self.hosted.page(Some(c)),
                    Some(_) => Err(RpcError::new(codes::INVALID_PARAMS, "Invalid cursor")),
                }
            }
            "tasks/cancel" if hosted::offers(&caps, "cancel") => self.hosted_cancel(now, params),
            m if asks_task && hosted::hosts(&caps, m) => {
                self.hosted_create(now, id, m, params);
                return true;
            }
            _ => return false,
        };
        self.reply_to(id.clone(), reply);
        true
    }

    fn reply_to(&mut self, id: Id, reply: Result<Value, RpcError>) {
        self.respond(match reply {
            Ok(result) => Message::Response { id, result },
            Err(error) => Message::Error {
                id: Some(id),
                error,
            },
        });
    }

    /// `CreateTaskResult` at once, then the host's input handler runs for the task.
    fn hosted_create(&mut self, now: Millis, id: &Id, method: &str, params: Option<&Value>) {
        if let Some(t) = self.hosted.by_request(id) {
            // The same request again (a replayed stream): the same task, no second input.
            let result = object([("task", t.wire())]);
            return self.reply_to(id.clone(), Ok(result));
        }
        let requested = params
            .and_then(|p| p.get("task"))
            .and_then(|t| t.get("ttl"));
        let ttl = Hosted::grant_ttl(requested);
        let task_id = self.rng.hex128();
        let Some(task) = self.hosted.create(task_id.clone(), id.clone(), now, ttl) else {
            let error = RpcError::new(codes::INTERNAL_ERROR, "Too many tasks on the client");
            return self.reply_to(id.clone(), Err(error));
        };
        let result = object([("task", task.wire())]);
        self.reply_to(id.clone(), Ok(result));
        let request = InputRequest {
            key: id.text(),
            method: method.to_owned(),
            params: params.cloned().unwrap_or(Value::Null),
        };
        let input = self.surface_input(now, Some(task_id.clone()), request, Origin::Hosted);
        if let Ok(t) = self.hosted.get_mut(&task_id) {
            t.input = Some(input);
        }
    }

    fn hosted_get(&mut self, params: Option<&Value>) -> Result<Value, RpcError> {
        let t = self.hosted.get_mut(task_id(params)?)?;
        Ok(t.wire())
    }

    /// The outcome of an ended task; `None` when the request is held until the task ends.
    fn hosted_result(
        &mut self,
        id: &Id,
        params: Option<&Value>,
    ) -> Option<Result<Value, RpcError>> {
        let t = match task_id(params).and_then(|tid| self.hosted.get_mut(tid)) {
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

    fn hosted_cancel(&mut self, now: Millis, params: Option<&Value>) -> Result<Value, RpcError> {
        let t = self.hosted.get_mut(task_id(params)?)?;
        if t.status.is_terminal() {
            return Err(wire::already_terminal(t.status.as_str()));
        }
        let tid = t.id.clone();
        self.settle_hosted(now, &tid, Status::Cancelled, Err(wire::cancelled()));
        Ok(self
            .hosted
            .get(&tid)
            .map(|t| t.wire())
            .unwrap_or(Value::Null))
    }

    /// The host answered a hosted task's input: the task completes (or fails with its error).
    pub(crate) fn hosted_answer(
        &mut self,
        now: Millis,
        task_id: &str,
        answer: Result<Value, RpcError>,
    ) {
        let status = if answer.is_ok() {
            Status::Completed
        } else {
            Status::Failed
        };
        self.settle_hosted(now, task_id, status, answer);
    }

    /// Ends a hosted task once: the held `tasks/result` requests get the outcome, the host's
    /// input (if still open) is withdrawn, and the new status is pushed.
    fn settle_hosted(
        &mut self,
        now: Millis,
        task_id: &str,
        status: Status,
        outcome: Result<Value, RpcError>,
    ) {
        let input = self.hosted.get(task_id).and_then(|t| t.input);
        let Some(waiters) = self.hosted.finish(task_id, now, status, outcome.clone()) else {
            return;
        };
        if let Some(i) = input {
            self.withdraw_input(i, status.as_str());
        }
        let result = outcome.map(|v| wire::with_related(v, task_id));
        for w in waiters {
            self.reply_to(w, result.clone());
        }
        if let Some(mut v) = self.hosted.get(task_id).map(|t| t.wire()) {
            if let Value::Object(o) = &mut v {
                o.insert("_meta".into(), wire::related(task_id));
            }
            self.respond(Message::Notification {
                method: STATUS_NOTIFICATION.into(),
                params: Some(v),
            });
        }
    }

    /// Forgets the hosted tasks whose ttl ran out: their held `tasks/result` requests and their
    /// host inputs end with the expired error.
    pub(crate) fn expire_hosted(&mut self, now: Millis) {
        for t in self.hosted.expire(now) {
            if let Some(i) = t.input {
                self.withdraw_input(i, "expired");
            }
            for w in t.waiters {
                self.reply_to(w, Err(wire::expired()));
            }
        }
    }
}
