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

use super::ids::ReqId;
use crate::protocol::dialect::{Codec, Outgoing, SessionInfo, TaskAugment};
use crate::protocol::model::InputRequest;

use super::api::{CallOptions, SubId};
use super::DRAFT;

/// An MRTR round waiting for the host's answers.
#[derive(Debug, Default)]
struct Round {
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
    round: Option<Round>,
    /// Answers of the last completed MRTR round, re-sent with the request.
    retry: Option<(Value, Option<Value>)>,
    /// Waited for a `tools/list` that failed: goes on without the tools' word.
    tools_checked: bool,
}

impl Call {
    /// A call of `method` the caller waits on with `sub`; `task_id` names its task where the
    /// requestor does.
    fn new(sub: SubId, method: &str, params: Value, opts: CallOptions, task_id: String) -> Call {
        Call {
            sub: Some(sub),
            method: method.to_owned(),
            params,
            opts,
            task_id,
            augmented: false,
            req: None,
            became: None,
            round: None,
            retry: None,
            tools_checked: false,
        }
    }

    /// The call became this task and its original request is still open.
    pub(super) fn became_task(&self, task_id: &str) -> bool {
        DRAFT && self.became.as_deref() == Some(task_id) && self.req.is_some()
    }

    /// The caller stopped waiting: no MRTR round goes on for nobody.
    pub(super) fn abandon(&mut self) {
        self.sub = None;
        self.round = None;
    }

    /// The tool a `tools/call` names.
    fn tool(&self) -> Option<String> {
        (self.method == "tools/call")
            .then(|| self.params.get("name").and_then(Value::as_str))
            .flatten()
            .map(str::to_owned)
    }

    /// The call's request: a retry carrying the answers of its MRTR round, or the first
    /// request (augmented as decided, with the task's retention and, in a dialect where the
    /// requestor names tasks, its id). `None`: the dialect cannot retry it.
    fn request(&self, si: &SessionInfo<'_>, codec: &dyn Codec, augment: bool) -> Option<Outgoing> {
        match &self.retry {
            Some((responses, state)) => codec.retry_with_input(
                si,
                &self.method,
                self.params.clone(),
                responses.clone(),
                state.clone(),
            ),
            None => {
                let retention = match names_tasks(codec) {
                    true => self.opts.keep_alive_ms,
                    false => self.opts.ttl_ms,
                };
                let ask = TaskAugment {
                    ttl_ms: retention,
                    task_id: DRAFT.then(|| self.task_id.clone()),
                };
                Some(codec.build_request(
                    si,
                    &self.method,
                    self.params.clone(),
                    augment.then_some(&ask),
                ))
            }
        }
    }

    /// Opens an MRTR round for the keys of `requests`; with none, the retry is ready at once
    /// (`true`: send it now).
    fn await_inputs(&mut self, requests: &[InputRequest], state: Option<Value>) -> bool {
        if requests.is_empty() {
            self.retry = Some((Value::Object(Map::new()), state));
            return true;
        }
        let mut open = SortedSet::default();
        for r in requests {
            open.insert(r.key.clone());
        }
        self.round = Some(Round {
            open,
            responses: Map::new(),
            state,
        });
        false
    }

    /// Notes the round's answer to `key` (`None`: declined, left out of `inputResponses`);
    /// `true` once the round is complete and its retry ready.
    fn input_answered(&mut self, key: &str, value: Option<Value>) -> bool {
        let Some(round) = self.round.as_mut() else {
            return false;
        };
        if !round.open.remove(key) {
            return false;
        }
        if let Some(v) = value {
            round.responses.insert(key.to_owned(), v);
        }
        if !round.open.is_empty() {
            return false;
        }
        if let Some(round) = self.round.take() {
            self.retry = Some((Value::Object(round.responses), round.state));
        }
        true
    }
}

/// Whether `codec` names the tasks it asks for (only the draft's does).
fn names_tasks(codec: &dyn Codec) -> bool {
    DRAFT && codec.names_tasks()
}
