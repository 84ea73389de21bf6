//! Calls and their sub-machines wired to the engine: a call's life (sent, answered, become a
//! task, waiting on an MRTR round), and what the tools cache, the listening stream, the host's
//! inputs and the receiver say they need is done here (requests sent, timers set, events
//! emitted). Also where server notifications about tasks land.

use crate::collections::sorted::SortedSet;
use crate::json::Value;

use crate::json::json;
use crate::protocol::dialect::{CallReply, Codec, Outgoing, TaskNotice};
use crate::protocol::jsonrpc::{codes, Id, Message, RpcError};
use crate::protocol::model::{InputRequest, Outcome, Task, TaskStatus};

use super::inputs::{Answered, Origin, HOST_METHODS};
use super::tools::{self, Attempt, Page};
use super::{names_tasks, Call};
use crate::engine::api::{
    Augment, CallOptions, ClientError, End, ErrorKind, Event, InputId, Millis, Output, SendKey,
    SubId,
};
use crate::engine::ids::{CallId, ReqId};
use crate::engine::registry::tasks::Source;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::Timer;
use crate::engine::session::quirks::Quirk;
use crate::engine::{Engine, Target, DRAFT};

impl Engine {
    /// Starts a `tools/list` (all pages) unless one is running; `force` refetches a loaded cache.
    pub(crate) fn fetch_tools(&mut self, now: Millis, force: bool) {
        if self.tools.begin(force || !self.tools_known()) {
            self.dispatch(now, Purpose::Tools { cursor: None });
        }
    }

    /// The backoff after a failed `tools/list` passed: ask again.
    pub(crate) fn retry_tools(&mut self, now: Millis) {
        if self.tools.retry() {
            self.dispatch(now, Purpose::Tools { cursor: None });
        }
    }

    pub(crate) fn on_tools_page(&mut self, now: Millis, res: Answer) {
        let page = match res {
            Ok(v) => self.tools.on_page(&v),
            Err(f) => return self.tools_error(now, &f),
        };
        match page {
            Ok(Page::Next(cursor)) => self.dispatch(
                now,
                Purpose::Tools {
                    cursor: Some(cursor),
                },
            ),
            Ok(Page::Done(all)) => self.tools_settled(now, Ok(all), true),
            Err(error) => {
                let f = Failure::transport(error, None, None);
                self.tools_error(now, &f);
            }
        }
    }

    /// A `tools/list` attempt failed: say so and try again with backoff, a few times, unless
    /// the server has no such method.
    fn tools_error(&mut self, now: Millis, f: &Failure) {
        match self.tools.attempt_failed(f, &mut self.rng) {
            Attempt::GiveUp { absent } => self.tools_failed(now, f.client_error(), absent),
            Attempt::Retry(delay) => {
                self.warn(None, f.client_error());
                self.timers.set(Timer::Tools, now.saturating_add(delay));
            }
        }
    }

    /// The listing failed for good: waiting operations get the error; waiting calls go on
    /// without it. `never`: the server has no `tools/list` (no later call asks again).
    pub(crate) fn tools_failed(&mut self, now: Millis, error: ClientError, never: bool) {
        if never {
            self.session.quirks.insert(Quirk::NoToolsList);
        }
        self.warn(None, error.clone());
        self.tools_settled(now, Err(error), false);
    }

    /// Whether there is nothing to ask: the tools are listed, or the server lists none.
    pub(super) fn tools_known(&self) -> bool {
        self.tools.loaded() || self.session.quirks.has(Quirk::NoToolsList)
    }

    fn tools_settled(&mut self, now: Millis, result: Result<Value, ClientError>, loaded: bool) {
        let (ops, waiting) = self.tools.settle(loaded);
        self.timers.clear(&Timer::Tools);
        for op in ops {
            self.reply(op, result.clone());
        }
        for c in waiting {
            if let Some(call) = self.calls.get_mut(&c) {
                call.tools_checked = true;
            }
            self.dispatch(now, Purpose::Call(c));
        }
    }

    /// The set of followed tasks may have changed: (re)open the listen stream in a while.
    pub(crate) fn listen_changed(&mut self, now: Millis) {
        if !self.session.listens() || !self.session.is_ready() {
            return;
        }
        match self.listen.next_at(now) {
            (at, true) => self.timers.set_earlier(Timer::Listen, at),
            (at, false) => self.timers.set(Timer::Listen, at),
        }
    }

    /// A task started (`followed`) or stopped being followed.
    pub(crate) fn listen_follow(&mut self, now: Millis, task_id: &str, followed: bool) {
        if self.session.listens() && self.listen.follow(task_id, followed) {
            self.listen_changed(now);
        }
    }

    /// Sends a listen request naming the followed tasks, if the open one does not.
    pub(crate) fn send_listen(&mut self, now: Millis) {
        let Some(codec) = self
            .session
            .ready_codec()
            .filter(|_| self.session.listens())
        else {
            return;
        };
        // Gated: asked again when the hold is over.
        if self.session.gated() || !self.listen.due() {
            return;
        }
        self.retire_listen(now, false);
        self.listen.rotate();
        let ids = self.tasks.followed();
        if ids.is_empty() {
            return;
        }
        let Some(out) = codec.build_listen(&self.session.info(), &ids) else {
            return;
        };
        self.listen.cover(ids, now);
        let req = self.send(now, Purpose::Listen, out);
        self.listen.sent(req);
    }

    /// Closes the listen stream being replaced, if any (see [`Listen::retire`](super::listen::Listen::retire)).
    fn retire_listen(&mut self, now: Millis, replaced: bool) {
        let Some(n) = self.listen.retire(replaced) else {
            return;
        };
        if let Some(old) = self.take_pending(n) {
            self.out.push_back(Output::Abort { key: old.key });
        }
        self.pushes_lost(now, n);
    }

    /// Stream `n` ended: the tasks it pushed about are polled again at their cadence.
    fn pushes_lost(&mut self, now: Millis, n: ReqId) {
        let lost = self.listen.lost(n);
        self.resume_polls(now, lost);
    }

    /// The server acknowledged listen request `n`, agreeing to push about `task_ids`: each newly
    /// named task is read once, then its polls become the safety net; tasks it no longer names
    /// resume their cadence.
    pub(super) fn on_listen_ack(&mut self, now: Millis, n: Option<ReqId>, task_ids: Vec<String>) {
        let Some((fresh, before)) = self.listen.ack(n, task_ids) else {
            return;
        };
        // A stream carries only what changes after it: one status request (as soon as the
        // interval allows) reads what changed before, then polls are the safety net.
        for t in fresh {
            self.poll_soon(now, &t);
        }
        self.resume_polls(now, before);
    }

    /// The next poll of each of `tasks` not pushed any more, within one interval (spread over
    /// it, never sooner than the interval after the last poll).
    fn resume_polls(&mut self, now: Millis, tasks: SortedSet<String>) {
        for t in tasks.iter() {
            if !self.listen.pushes(t) {
                self.poll_spread(now, t);
            }
        }
    }

    /// The server answered listen request `n` with an HTTP status: once it accepts the current
    /// one, the stream it replaces goes.
    pub(crate) fn on_listen_head(&mut self, now: Millis, n: ReqId, status: u16) {
        if self.listen.accepted(n, status) {
            self.retire_listen(now, true);
        }
    }

    /// Listen request `n` ended (`failure`: refused). The stream being replaced just goes; when
    /// the current one ends (the one it replaces with it), it is opened again later if tasks are
    /// still followed, unless the server lacks the method or keeps refusing it.
    pub(crate) fn on_listen_end(&mut self, now: Millis, n: ReqId, failure: Option<Box<Failure>>) {
        if self.listen.retired_ended(n) {
            return self.pushes_lost(now, n);
        }
        // Refused by the server (not lost on the way: that says nothing about the method).
        if let Some(f) = failure.filter(|f| f.rpc().is_some() || f.http_status() >= Some(400)) {
            let refusals = self.listen.refused();
            self.listen_refused(&f, refusals);
        }
        self.retire_listen(now, false);
        self.pushes_lost(now, n);
        self.listen.ended(now);
        self.listen_changed(now);
    }

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
        let id = (self.inputs).open(now, task_id.clone(), request.clone(), origin);
        self.emit(Event::Input {
            id,
            task_id,
            request,
        });
        id
    }

    /// Withdraws an open input request: the host is told to stop (see [`INPUT_WITHDRAWN`]).
    pub(super) fn withdraw_input(&mut self, id: InputId, reason: &str) {
        if let Some(event) = self.inputs.withdraw(id, reason) {
            self.emit(event);
        }
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
        if let Some(k) = self.inputs.of_server_request(id) {
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
        if self.inputs.asked(&id) {
            return;
        }
        let params = params.unwrap_or_default();
        let related = self
            .session
            .codec_any()
            .and_then(|c| c.related_task(&params));
        // Without related-task `_meta`, the stream it came on may tell (a `tasks/result` stream).
        let by_stream = via.and_then(|k| self.reqs.result_task(k)).cloned();
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
        let caps = crate::protocol::dialect::hosted::declare(&self.cfg.client_capabilities);
        self.with_hosted(|hosted, fx| hosted.serve(now, &caps, (id, method, params), fx))
    }

    /// Runs `work` on the hosted tasks, the engine doing what they need meanwhile (set aside
    /// while it runs: nothing they need done reaches back into them).
    #[cfg(feature = "receiver")]
    pub(crate) fn with_hosted<R>(
        &mut self,
        work: impl FnOnce(&mut crate::engine::receiver::Hosted, &mut Engine) -> R,
    ) -> R {
        let mut hosted = std::mem::take(&mut self.hosted);
        let r = work(&mut hosted, self);
        self.hosted = hosted;
        r
    }

    pub(super) fn respond(&mut self, msg: Message) {
        let headers = match self.session.codec_any() {
            Some(c) => c.message_headers(&self.session.info(), &msg),
            None => Vec::new(),
        };
        self.send_message(&msg, headers);
    }

    pub(crate) fn answer(&mut self, now: Millis, id: InputId, answer: Result<Value, RpcError>) {
        let Some(answered) = self.inputs.take_answer(now, id, answer, &mut self.out) else {
            return;
        };
        match answered {
            #[cfg(feature = "receiver")]
            Answered::Hosted(task_id, answer) => {
                if let Some(t) = task_id {
                    self.with_hosted(|hosted, fx| hosted.answer(now, &t, answer, fx));
                }
            }
            Answered::Mrtr(c, key, value) => self.mrtr_answer(now, c, &key, value),
            Answered::Stored => self.dispatch(now, Purpose::Answer(id)),
        }
    }

    /// Sends a stored answer (the session is ready).
    pub(crate) fn send_answer(&mut self, now: Millis, id: InputId) {
        let Some(codec) = self.session.ready_codec() else {
            return;
        };
        let Some((task_id, request, server_id, answer)) = self.inputs.stored(id) else {
            return;
        };
        let (msg, headers) = {
            let si = self.session.info();
            let msg = codec.build_input_answer(
                &si,
                task_id.as_deref(),
                request,
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
                self.inputs.close(id);
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
        let Some(open) = self.inputs.close(id) else {
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

    /// A server notification: task pushes of every dialect, tools-list changes.
    /// `via`: the stream it came on.
    pub(crate) fn on_notification(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        method: &str,
        params: Option<&Value>,
    ) {
        if method == "notifications/tools/list_changed" {
            return self.tools.invalidate();
        }
        if method == "notifications/cancelled" {
            return self.on_request_cancelled(params);
        }
        let Some(codec) = self.session.codec_any() else {
            return;
        };
        match codec.parse_notification(method, params) {
            Some(TaskNotice::Status(task)) => {
                let id = task.task_id.clone();
                self.note_status_push(now, via, &id, task.status);
                if self.tasks.contains_key(&id) {
                    self.apply_snapshot(now, &id, task, Source::Push);
                } else {
                    self.keep_early_push(now, task);
                }
            }
            Some(TaskNotice::Created { task_id }) if DRAFT => self.on_created(now, &task_id),
            Some(TaskNotice::Listening {
                subscription,
                task_ids,
            }) => {
                let n = (subscription.and_then(|id| self.reqs.route(&id)))
                    .or_else(|| via.and_then(|k| self.reqs.id_of(k)));
                self.on_listen_ack(now, n, task_ids);
            }
            _ => {}
        }
    }

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
            self.done(sub, None, crate::engine::closed_end());
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
        // Drawn in every build: the generator's sequence (the polls' jitter) is the same.
        let task_id = self.rng.hex128_if(DRAFT);
        let call = Call::new(sub, method, params, opts, task_id);
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
        let tool = call.tool();
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
        let Some(mut out) = call.request(&self.session.info(), codec, augment) else {
            return self.call_failed(
                c,
                ClientError::new(ErrorKind::Protocol, "the dialect cannot retry this request"),
            );
        };
        if let Some(tool) = tool.as_deref() {
            match self.tools.param_headers(tool, &call.params) {
                Ok(h) => out.headers.extend(h),
                Err(e) => return self.call_failed(c, e),
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
        let names = names_tasks(codec);
        (self.tools).augment(tool, call.opts.augment, &self.session, names)
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
        if call.await_inputs(&requests, state) {
            return self.dispatch(now, Purpose::Call(c));
        }
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
        if call.input_answered(key, value) {
            self.dispatch(now, Purpose::Call(c));
        }
    }
}

/// The engine does what the hosted tasks need: sends, asks the host, withdraws.
#[cfg(feature = "receiver")]
impl crate::engine::receiver::Effects for Engine {
    fn send(&mut self, msg: Message) {
        self.respond(msg);
    }

    fn ask(&mut self, now: Millis, task_id: &str, request: InputRequest) -> InputId {
        self.surface_input(now, Some(task_id.to_owned()), request, Origin::Hosted)
    }

    fn withdraw(&mut self, input: InputId, reason: &str) {
        self.withdraw_input(input, reason);
    }

    fn fresh_id(&mut self) -> String {
        self.rng.hex128()
    }
}
