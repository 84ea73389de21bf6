//! Calls: a request the caller waits on, which the server may answer at once, turn into a task,
//! or (modern MRTR) answer with input requests first. In a dialect where the requestor names the
//! task (draft), the call follows the task under the id it generated from the moment the request
//! goes out; `notifications/tasks/created` (or a first status answer) confirms it, and the
//! original response carries the result.

pub(super) mod answers;
pub(super) mod elicit;
pub(super) mod inputs;
pub(super) mod listen;
pub(super) mod no_input;
mod routes;
pub(super) mod tools;

use crate::collections::sorted::SortedSet;

use crate::json::{Map, Value};

use super::ids::CallId;
use super::ids::ReqId;
use crate::protocol::dialect::{CallReply, Codec, Outgoing, TaskAugment};
use crate::protocol::model::{InputRequest, Outcome, Task, TaskStatus};
use crate::protocol::tool_headers::tool_param_headers;

use super::api::{Augment, CallOptions, ClientError, End, ErrorKind, Millis, SubId};
use super::registry::tasks::Source;
use super::requests::{Answer, Failure, Purpose};
use super::{Engine, Target, DRAFT};
use inputs::Origin;
use tools::Support;

/// An MRTR round waiting for the host's answers.
#[derive(Debug, Default)]
pub(crate) struct Round {
    open: SortedSet<String>,
    responses: Map<String, Value>,
    state: Option<Value>,
}

/// One call in progress.
#[derive(Debug)]
pub(crate) struct Call {
    /// The waiting subscription (`None` once the caller stopped waiting).
    pub(crate) sub: Option<SubId>,
    method: String,
    params: Value,
    opts: CallOptions,
    /// The task id a dialect with requestor-named tasks receives (128 random bits, hex; empty in a
    /// build without the draft).
    task_id: String,
    augmented: bool,
    /// JSON-RPC id of the latest transmission.
    pub(crate) req: Option<ReqId>,
    /// The call already became this task while its request is still open (draft).
    became: Option<String>,
    pub(crate) round: Option<Round>,
    /// Answers of the last completed MRTR round, re-sent with the request.
    retry: Option<(Value, Option<Value>)>,
    /// Waited for a `tools/list` that failed: goes on without the tools' word.
    tools_checked: bool,
}

impl Call {
    /// The call became this task and its original request is still open.
    pub(crate) fn became_task(&self, task_id: &str) -> bool {
        DRAFT && self.became.as_deref() == Some(task_id) && self.req.is_some()
    }
}

impl Engine {
    /// Forgets a call and any input requests of its MRTR round.
    fn remove_call(&mut self, c: CallId) -> Option<Box<Call>> {
        self.inputs.drop_call(c);
        self.calls.remove(&c)
    }

    /// Sends any request; augmented where the dialect and the caller allow.
    pub fn request(
        &mut self,
        now: Millis,
        method: &str,
        params: Value,
        opts: CallOptions,
    ) -> SubId {
        let c = self.next_call.take_next();
        let sub = self.new_sub(Target::Call(c));
        if self.closed {
            self.done(sub, None, super::closed_end());
            return sub;
        }
        if opts.augment == Augment::Always && !tools::augmentable(method) {
            let error = ClientError::new(
                ErrorKind::InvalidInput,
                [method, " cannot run as a task (task: \"always\")"].concat(),
            );
            self.done(sub, None, End::Failed { error });
            return sub;
        }
        let call = Call {
            sub: Some(sub),
            method: method.to_owned(),
            params,
            opts,
            // Drawn in every build: the generator's sequence (the polls' jitter) is the same.
            task_id: self.rng.hex128_if(DRAFT),
            augmented: false,
            req: None,
            became: None,
            round: None,
            retry: None,
            tools_checked: false,
        };
        self.calls.insert(c, Box::new(call));
        self.dispatch(now, Purpose::Call(c));
        sub
    }

    /// Builds and sends a call (the session is ready). Waits for the tools cache first.
    pub(crate) fn send_call(&mut self, now: Millis, c: CallId) {
        let Some(call) = self.calls.get(&c) else {
            return;
        };
        if call.sub.is_none() && call.became.is_none() {
            // The caller stopped waiting before anything went out: send nothing.
            self.remove_call(c);
            return;
        }
        let tool = (call.method == "tools/call")
            .then(|| {
                call.params
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten();
        if tool.is_some() && !self.tools_known() && !call.tools_checked {
            self.tools.wait(c);
            return self.fetch_tools(now, false);
        }
        let Some(codec) = self.session.ready_codec() else {
            return;
        };
        let augment = match self.call_augment(call, tool.as_deref(), codec) {
            Ok(a) => a,
            Err(e) => return self.call_failed(c, e),
        };
        let Some(mut out) = self.build_call(call, codec, augment) else {
            return self.call_failed(
                c,
                ClientError::new(ErrorKind::Protocol, "the dialect cannot retry this request"),
            );
        };
        if let Some(schema) = tool.as_deref().and_then(|n| self.tools.input_schema(n)) {
            let args = call.params.get("arguments").unwrap_or(&Value::Null);
            match tool_param_headers(schema, args) {
                Ok(h) => out.headers.extend(h),
                Err(e) => {
                    return self
                        .call_failed(c, ClientError::new(ErrorKind::InvalidInput, e.message()))
                }
            }
        }
        let names = augment
            && names_tasks(codec)
            && self.calls.get(&c).is_some_and(|call| call.became.is_none());
        if let Some(call) = self.calls.get_mut(&c) {
            call.augmented |= augment;
        }
        self.send(now, Purpose::Call(c), out);
        if names {
            self.call_named_task(now, c, false);
        }
    }

    /// Whether call `call` (of `tool`, for `tools/call`) goes out task-augmented; an error when
    /// it cannot go out at all (it needs what the server does not offer).
    fn call_augment(
        &self,
        call: &Call,
        tool: Option<&str>,
        codec: &'static dyn Codec,
    ) -> Result<bool, ClientError> {
        if call.opts.delete_on_done && !self.deletes() {
            let mut error = self.no_delete();
            error.message = ["deleteOnDone: ", &error.message].concat();
            return Err(error);
        }
        let support: Option<Support> = tool.map(|n| self.tools.support(n));
        let offers_tasks = self.session.offers_tasks();
        if !offers_tasks && tools::needs_task(support, call.opts.augment) {
            return Err(ClientError::new(
                ErrorKind::Unsupported,
                "this call needs a task and the server offers no tasks",
            ));
        }
        let caps = tools::effective_caps(self.session.server_caps(), names_tasks(codec));
        tools::decide(
            &caps,
            self.session.protocol_version(),
            support,
            call.opts.augment,
            self.session.augments() && offers_tasks,
        )
    }

    /// The call's request: a retry carrying the answers of its MRTR round, or the first
    /// request (augmented as decided, with the task's retention and, in a dialect where the
    /// requestor names tasks, its id). `None`: the dialect cannot retry it.
    fn build_call(
        &self,
        call: &Call,
        codec: &'static dyn Codec,
        augment: bool,
    ) -> Option<Outgoing> {
        let si = self.session.info();
        match &call.retry {
            Some((responses, state)) => codec.retry_with_input(
                &si,
                &call.method,
                call.params.clone(),
                responses.clone(),
                state.clone(),
            ),
            None => {
                let retention = match names_tasks(codec) {
                    true => call.opts.keep_alive_ms,
                    false => call.opts.ttl_ms,
                };
                let ask = TaskAugment {
                    ttl_ms: retention,
                    task_id: DRAFT.then(|| call.task_id.clone()),
                };
                Some(codec.build_request(
                    &si,
                    &call.method,
                    call.params.clone(),
                    augment.then_some(&ask),
                ))
            }
        }
    }

    pub(crate) fn on_call_reply(&mut self, now: Millis, c: CallId, n: ReqId, res: Answer) {
        let Some(call) = self.calls.get(&c) else {
            return;
        };
        if call.req != Some(n) {
            return;
        }
        let became = DRAFT && call.became.is_some();
        let Some(codec) = self.session.codec_any() else {
            return;
        };
        match res {
            Ok(v) => match codec.parse_call_reply(v) {
                Ok(CallReply::Task(task)) => self.call_became_task(now, c, task, Some(n)),
                Ok(CallReply::Complete(result)) => {
                    self.call_complete(now, c, Outcome::Result { result })
                }
                Ok(CallReply::InputRequired {
                    requests,
                    request_state,
                }) => self.call_needs_input(now, c, requests, request_state),
                Err(e) => self.call_failed(c, e.into()),
            },
            Err(f) => match *f {
                Failure::Rpc(error) | Failure::Rejected { error, .. } => {
                    self.call_complete(now, c, Outcome::Error { error })
                }
                // The task exists (draft), or may (not confirmed yet): polling carries on without
                // the original response, and asks soon.
                _ if became => {
                    let task = self.remove_call(c).and_then(|call| call.became);
                    if let Some(t) = task {
                        self.settle(now, &t);
                        self.poll_soon(now, &t);
                    }
                }
                f => self.call_failed(c, f.client_error()),
            },
        }
    }

    /// The call ended without a task: the caller gets the outcome.
    fn call_complete(&mut self, now: Millis, c: CallId, outcome: Outcome) {
        let Some(call) = self.remove_call(c) else {
            return;
        };
        match (call.became.filter(|_| DRAFT), call.sub) {
            (Some(t), _) => self.task_outcome(now, &t, outcome),
            (None, Some(sub)) => self.done(
                sub,
                None,
                End::Finished {
                    task: None,
                    outcome: Some(outcome),
                },
            ),
            (None, None) => {}
        }
    }

    /// The call could not be made or tracked.
    pub(crate) fn call_failed(&mut self, c: CallId, error: ClientError) {
        let Some(call) = self.remove_call(c) else {
            return;
        };
        if let (None, Some(sub)) = (call.became, call.sub) {
            self.done(sub, None, End::Failed { error });
        }
    }

    /// The server made a task of the call: the caller now follows the task.
    fn call_became_task(&mut self, now: Millis, c: CallId, task: Task, origin: Option<ReqId>) {
        let Some(call) = self.remove_call(c) else {
            return;
        };
        let id = task.task_id.clone();
        let delete = call.opts.delete_on_done || self.cfg.delete_on_done;
        if let Some(entry) = self.task_entry(&id) {
            entry.origin = origin;
            entry.delete_on_done |= delete;
        }
        self.attach(&id, call.sub);
        self.apply_snapshot(now, &id, task, Source::Create);
        self.apply_early_push(now, &id);
        self.after_membership_change(now, &id);
    }

    /// Moves a call's subscription onto a task.
    fn attach(&mut self, task_id: &str, sub: Option<SubId>) {
        let Some(sub) = sub else { return };
        let Some(id) = self.tasks.id(task_id) else {
            return;
        };
        if let Some(entry) = self.tasks.get_mut(task_id) {
            entry.subs.insert(sub);
            self.subs.insert(sub, Target::Task(id));
        }
    }

    /// Draft `notifications/tasks/created`: the id is one we generated for a call in flight.
    fn on_created(&mut self, now: Millis, task_id: &str) {
        let found = self
            .calls
            .iter()
            .find(|(_, call)| call.augmented && call.task_id == task_id)
            .map(|(c, call)| (*c, call.became.is_some()));
        match found {
            Some((c, false)) => self.call_named_task(now, c, true),
            Some((_, true)) => self.confirm_task(task_id),
            None => {}
        }
    }

    /// The call follows the task it named from now on; `confirmed` when the server said it
    /// exists (else the first status answer, or the original response, will tell).
    fn call_named_task(&mut self, now: Millis, c: CallId, confirmed: bool) {
        let Some(call) = self.calls.get_mut(&c) else {
            return;
        };
        let task_id = call.task_id.clone();
        call.became = Some(task_id.clone());
        let sub = call.sub.take();
        let origin = call.req;
        let delete = call.opts.delete_on_done || self.cfg.delete_on_done;
        let Some(entry) = self.task_entry(&task_id) else {
            return;
        };
        entry.origin = origin;
        entry.delete_on_done |= delete;
        let fresh = entry.snapshot.is_none();
        self.attach(&task_id, sub);
        let src = if confirmed {
            Source::Create
        } else {
            Source::Named
        };
        if fresh {
            let task = Task::new(task_id.as_str(), TaskStatus::Submitted);
            self.apply_snapshot(now, &task_id, task, src);
            self.apply_early_push(now, &task_id);
        } else if confirmed {
            self.confirm_task(&task_id);
        }
        self.after_membership_change(now, &task_id);
    }

    /// A task is dropped: a call that became it stops waiting for its original response.
    pub(crate) fn forget_calls_of(&mut self, task_id: &str) {
        let mut gone: Vec<CallId> = Vec::new();
        for (k, c) in self.calls.iter() {
            if DRAFT && c.became.as_deref() == Some(task_id) {
                gone.push(*k);
            }
        }
        for c in gone {
            if let Some(n) = self.remove_call(c).and_then(|call| call.req) {
                self.take_pending(n);
            }
        }
    }

    /// Modern MRTR: surface the input requests; re-send once all are answered.
    fn call_needs_input(
        &mut self,
        now: Millis,
        c: CallId,
        requests: Vec<InputRequest>,
        state: Option<Value>,
    ) {
        let Some(call) = self.calls.get_mut(&c) else {
            return;
        };
        if let Some(n) = call.req.take() {
            self.reqs.no_timeout(n);
        }
        if call.sub.is_none() {
            self.remove_call(c);
            return;
        }
        if requests.is_empty() {
            call.retry = Some((Value::Object(Map::new()), state));
            return self.dispatch(now, Purpose::Call(c));
        }
        let mut open = SortedSet::default();
        for r in &requests {
            open.insert(r.key.clone());
        }
        call.round = Some(Round {
            open,
            responses: Map::new(),
            state,
        });
        for request in requests {
            self.surface_input(now, None, request, Origin::Mrtr(c));
        }
    }

    /// One MRTR answer; `None` = the host declined (the key is left out of `inputResponses`).
    fn mrtr_answer(&mut self, now: Millis, c: CallId, key: &str, value: Option<Value>) {
        let Some(call) = self.calls.get_mut(&c) else {
            return;
        };
        if call.sub.is_none() {
            self.remove_call(c);
            return;
        }
        let Some(round) = call.round.as_mut() else {
            return;
        };
        if !round.open.remove(key) {
            return;
        }
        if let Some(v) = value {
            round.responses.insert(key.to_owned(), v);
        }
        if round.open.is_empty() {
            if let Some(round) = call.round.take() {
                call.retry = Some((Value::Object(round.responses), round.state));
            }
            self.dispatch(now, Purpose::Call(c));
        }
    }
}

/// Whether `codec` names the tasks it asks for (only the draft's does).
fn names_tasks(codec: &dyn Codec) -> bool {
    DRAFT && codec.names_tasks()
}
