//! Input requests from the server (elicitation, sampling, roots): surfaced once as
//! [`Event::Input`](crate::engine::api::Event::Input), answered through the dialect (a JSON-RPC response,
//! modern `tasks/update`, or an MRTR retry).

use crate::json::Value;

use crate::engine::ids::CallId;
use crate::protocol::jsonrpc::{Id, RpcError};
use crate::protocol::model::InputRequest;

use super::elicit::{fill_defaults, ELICIT};
use crate::collections::sorted::SortedMap;
use std::collections::VecDeque;

use crate::engine::api::{ClientError, ErrorKind, Event, InputId, Millis, Output, INPUT_WITHDRAWN};

/// Server→client requests the host answers.
pub(super) const HOST_METHODS: [&str; 3] = [ELICIT, "sampling/createMessage", "roots/list"];

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
pub(super) struct Open {
    pub(super) task_id: Option<String>,
    pub(super) request: InputRequest,
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

    /// Opens an input request at `now`: the id the host answers it by.
    pub(super) fn open(
        &mut self,
        now: Millis,
        task_id: Option<String>,
        request: InputRequest,
        origin: Origin,
    ) -> InputId {
        self.next += 1;
        self.last = now;
        let id = InputId(self.next);
        let open = Open {
            task_id,
            request,
            origin,
            answer: None,
        };
        self.open.insert(id, Box::new(open));
        id
    }

    /// Withdraws an open input request: the event telling the host to stop (see
    /// [`INPUT_WITHDRAWN`]).
    pub(super) fn withdraw(&mut self, id: InputId, reason: &str) -> Option<Event> {
        let open = self.open.remove(&id)?;
        let request = InputRequest {
            key: open.request.key,
            method: INPUT_WITHDRAWN.to_owned(),
            params: crate::protocol::object([("reason", Value::from(reason))]),
        };
        Some(Event::Input {
            id,
            task_id: open.task_id,
            request,
        })
    }

    /// The open input of the server's request `request`.
    pub(super) fn of_server_request(&self, request: Id) -> Option<InputId> {
        let origin = Origin::Server(request);
        (self.open.keys())
            .find(|k| self.open.get(k).is_some_and(|o| o.origin == origin))
            .copied()
    }

    /// Takes the host's answer to input `id` at `now` (checked against the method, an
    /// elicitation's defaults filled in): what to do with it; a warning for the host goes `out`
    /// when its answer was not valid. `None`: not open, or already answered.
    pub(super) fn take_answer(
        &mut self,
        now: Millis,
        id: InputId,
        answer: Result<Value, RpcError>,
        out: &mut VecDeque<Output>,
    ) -> Option<Answered> {
        let open = self.open.get_mut(&id).filter(|o| o.answer.is_none())?;
        self.last = now;
        let was_ok = answer.is_ok();
        let answer = super::answers::check(&open.request.method, answer);
        if let (true, Err(e)) = (was_ok, &answer) {
            // The host's own mistake: say so to the host too, not only to the server.
            let error = ClientError::new(ErrorKind::InvalidInput, e.message.clone());
            let task_id = open.task_id.clone();
            out.push_back(Output::Event(Event::Warning { task_id, error }));
        }
        let answer = answer.map(|mut v| {
            if open.request.method == ELICIT {
                fill_defaults(&open.request.params, &mut v);
            }
            v
        });
        let answered = match open.origin {
            #[cfg(feature = "receiver")]
            Origin::Hosted => {
                let task_id = open.task_id.clone();
                self.open.remove(&id);
                Answered::Hosted(task_id, answer)
            }
            Origin::Mrtr(c) => {
                let key = open.request.key.clone();
                self.open.remove(&id);
                Answered::Mrtr(c, key, answer.ok())
            }
            _ => {
                open.answer = Some(answer);
                Answered::Stored
            }
        };
        Some(answered)
    }

    /// A stored answer to send: the task, the request, the server's request id and the answer.
    pub(super) fn stored(&self, id: InputId) -> Option<Stored<'_>> {
        let open = self.open.get(&id)?;
        let answer = open.answer.clone()?;
        let server_id = match &open.origin {
            Origin::Server(x) => Some(x.clone()),
            _ => None,
        };
        Some((open.task_id.clone(), &open.request, server_id, answer))
    }

    /// Closes input `id` (its answer went out).
    pub(super) fn close(&mut self, id: InputId) -> Option<Box<Open>> {
        self.open.remove(&id)
    }

    /// Whether the server's request `request` is already open as an input.
    pub(super) fn asked(&self, request: &Id) -> bool {
        (self.open.values()).any(|o| matches!(&o.origin, Origin::Server(x) if x == request))
    }
}

/// A stored answer: the task, the request, the server's request id and the answer.
pub(super) type Stored<'a> = (
    Option<String>,
    &'a InputRequest,
    Option<Id>,
    Result<Value, RpcError>,
);

/// What an answer taken from the host leads to.
pub(super) enum Answered {
    /// A hosted task's input: the task's outcome.
    #[cfg(feature = "receiver")]
    Hosted(Option<String>, Result<Value, RpcError>),
    /// An MRTR round's answer (`None`: refused) to the call's request `key`.
    Mrtr(CallId, String, Option<Value>),
    /// Stored, to be sent through the dialect.
    Stored,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn elicitation() -> InputRequest {
        InputRequest {
            key: "7".into(),
            method: ELICIT.into(),
            params: json!({ "message": "?" }),
        }
    }

    #[test]
    fn an_answer_is_taken_once_and_a_malformed_one_warns_the_host() {
        let mut inputs = Inputs::default();
        let server = Id::Number(7);
        let id = inputs.open(
            100,
            Some("t".into()),
            elicitation(),
            Origin::Server(server.clone()),
        );
        assert!(inputs.asked(&server) && inputs.of_server_request(server) == Some(id));
        assert!(inputs.heard_within(100_000, 1), "open");
        let bad = Ok(json!({ "action": "maybe" }));
        let mut out = VecDeque::new();
        let answered = inputs.take_answer(200, id, bad, &mut out).unwrap();
        let warning = out.pop_front();
        let warned = matches!(&warning, Some(Output::Event(Event::Warning { task_id, .. })) if task_id.as_deref() == Some("t"));
        assert!(warned, "the host is told its answer was not valid");
        assert!(matches!(answered, Answered::Stored));
        let again = inputs.take_answer(300, id, Ok(json!({})), &mut out);
        assert!(again.is_none() && out.is_empty(), "answered once");
        let (task, _, to, answer) = inputs.stored(id).unwrap();
        assert_eq!((task.as_deref(), to), (Some("t"), Some(Id::Number(7))));
        assert!(answer.is_err(), "the server gets an error in its place");
        let closed = inputs.close(id).map(|o| (o.task_id, o.request.key));
        assert_eq!(closed, Some((Some("t".into()), "7".into())));
        assert!(!inputs.heard_within(200 + 10, 10) && inputs.heard_within(200 + 9, 10));
    }

    #[test]
    fn an_mrtr_answer_leaves_at_once_and_a_withdrawn_input_tells_the_host() {
        let mut inputs = Inputs::default();
        let call = CallId(3);
        let id = inputs.open(0, None, elicitation(), Origin::Mrtr(call));
        let declined = Ok(json!({ "action": "decline" }));
        let mut out = VecDeque::new();
        let answered = inputs.take_answer(1, id, declined, &mut out).unwrap();
        assert!(out.is_empty(), "a valid answer warns nobody");
        assert!(matches!(answered, Answered::Mrtr(c, key, Some(_)) if c == call && key == "7"));
        assert!(inputs.stored(id).is_none() && inputs.withdraw(id, "gone").is_none());
        let other = inputs.open(2, Some("t".into()), elicitation(), Origin::Task);
        let Some(Event::Input {
            id: told, request, ..
        }) = inputs.withdraw(other, "expired")
        else {
            panic!("an open input is withdrawn with an event");
        };
        assert_eq!((told, request.method.as_str()), (other, INPUT_WITHDRAWN));
        assert_eq!(request.params["reason"], json!("expired"));
    }
}
