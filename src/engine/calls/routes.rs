//! The calls' sub-machines wired to the engine: the tools cache, the listening stream, the host's
//! inputs and the receiver say what they need; this is where it is done (requests sent, timers
//! set, events emitted).

use crate::collections::sorted::SortedSet;
use crate::json::Value;

use super::tools::{Attempt, Page};
use crate::engine::api::{ClientError, Millis, Output};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::Timer;
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

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
                let f = Failure::Transport {
                    error,
                    status: None,
                    retry_after: None,
                };
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
        if self.gated() || !self.listen.due() {
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
        let Some((n, lost)) = self.listen.retire(replaced) else {
            return;
        };
        if let Some(old) = self.take_pending(n) {
            self.out.push_back(Output::Abort { key: old.key });
        }
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
        if let Some(lost) = self.listen.retired_ended(n) {
            return self.resume_polls(now, lost);
        }
        // Refused by the server (not lost on the way: that says nothing about the method).
        if let Some(f) = failure.filter(|f| f.rpc().is_some() || f.http_status() >= Some(400)) {
            let refusals = self.listen.refused();
            self.listen_refused(&f, refusals);
        }
        self.retire_listen(now, false);
        let lost = self.listen.ended(now, n);
        self.resume_polls(now, lost);
        self.listen_changed(now);
    }
}
