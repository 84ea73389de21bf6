//! Legacy status pushes in place of held results. A 2025-11-25 server may push every status
//! change of a session's tasks (`notifications/tasks/status`) on the session's own stream. Once
//! this session's server was seen doing so, `input_required` included, a running task holds no
//! `tasks/result` (a request, and a connection, per task for nothing): its terminal push asks
//! for the result, and polls are only the safety net meanwhile. A server seen pushing other
//! statuses only may never push `input_required` (its input requests come on a held result):
//! its running tasks still hold their results where the link allows, else their polls keep the
//! cadence (a push postpones none; on the steady `latency` cadence a push counts as the poll it
//! makes needless: the next one comes an interval after it).
//!
//! Until the server has shown either way (the first tasks of a session), a task's held result
//! waits one poll interval (without jitter), in place of its first poll: a push that comes first
//! decides. A
//! session whose task saw no push in that interval holds its tasks' results from the start, until
//! a push shows otherwise. A poll that finds an end no push told ends the reliance for the
//! session: running tasks hold their results again.
//!
//! Only a push on the session's own stream (the listening stream, the WebSocket, a request's
//! stream other than a `tasks/result`) is evidence: one on a held result's stream would not come
//! without the hold. The evidence belongs to one session: a new one starts without it.

use crate::protocol::model::{Dialect, TaskStatus};

use super::tasks::Source;
use crate::engine::api::{Millis, SendKey};
use crate::engine::requests::Purpose;
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

/// What this session's server showed about status pushes, each by session generation.
#[derive(Debug, Default)]
pub(crate) struct PushEvidence {
    /// The server pushed a task status on the session's own stream.
    seen: Option<u64>,
    /// A task's first interval passed without any push.
    silent: Option<u64>,
    /// A poll found an end no push told.
    missed: Option<u64>,
    /// The server pushed an `input_required` status on the session's own stream.
    inputs: Option<u64>,
}

impl Engine {
    /// Whether running tasks rely on this session's status pushes instead of held results.
    pub(super) fn relies_on_pushes(&self) -> bool {
        let epoch = Some(self.session.epoch());
        let p = &self.blocking.pushes;
        self.session.dialect() == Some(Dialect::Legacy) && p.seen == epoch && p.missed != epoch
    }

    /// Whether running tasks leave everything to this session's pushes: their ends, and their
    /// input requests. A server seen pushing some statuses may never push `input_required`
    /// (its requests come on a held result): until it was seen doing so, results are held where
    /// the link allows, else young tasks' polls keep their cadence.
    pub(crate) fn leaves_all_to_pushes(&self) -> bool {
        self.relies_on_pushes() && self.blocking.pushes.inputs == Some(self.session.epoch())
    }

    /// Whether a task that starts running waits one interval before holding its result: the
    /// session has not shown yet whether its server pushes.
    pub(super) fn defers_hold(&self) -> bool {
        let epoch = Some(self.session.epoch());
        let p = &self.blocking.pushes;
        p.silent != epoch && p.missed != epoch && p.seen != epoch
    }

    /// A status push about `task_id` (now `status`) arrived on `via`: evidence, unless it came
    /// on a `tasks/result` stream. The task's deferred hold is decided: pushes.
    pub(crate) fn note_status_push(
        &mut self,
        via: Option<SendKey>,
        task_id: &str,
        status: TaskStatus,
    ) {
        let on_result = (via.and_then(|k| self.reqs.id_of(k)))
            .is_some_and(|n| matches!(self.reqs.purpose(n), Some(Purpose::Result(_))));
        if on_result || !self.session.fetches_results() {
            return;
        }
        let relied = self.leaves_all_to_pushes();
        self.blocking.pushes.seen = Some(self.session.epoch());
        if status == TaskStatus::InputRequired {
            self.blocking.pushes.inputs = Some(self.session.epoch());
        }
        if let Some(e) = self.tasks.get_mut(task_id) {
            e.result.hold_deferred = false;
        }
        if !relied {
            self.release_lagging_holds(task_id);
        }
    }

    /// Once the session's pushes bring the ends and its held results were seen to lag behind
    /// them (see `race.rs`), a held result only costs a request and a connection: running tasks
    /// that held theirs before close them, except `except` (its push may be its end) and tasks
    /// waiting for input (their requests come on that stream).
    pub(crate) fn release_lagging_holds(&mut self, except: &str) {
        if !self.leaves_all_to_pushes() || !self.session.quirks.has(Quirk::HeldResultLags) {
            return;
        }
        let held = self.tasks.ids_where(&|id, e| {
            id != except
                && !e.is_terminal()
                && e.status() != Some(TaskStatus::InputRequired)
                && e.result.req().is_some()
                && e.result.race().is_none()
        });
        for t in held {
            self.close_held_result(&t);
        }
    }

    /// A deferred hold's interval passed (in place of the task's first poll): with pushes seen,
    /// the next poll is the safety net; without, the session holds results from now on and this
    /// task's goes out. `false`: nothing was decided, the poll goes out as usual.
    pub(super) fn deferred_hold_due(&mut self, now: Millis, task_id: &str) -> bool {
        if self.leaves_all_to_pushes() {
            self.schedule_poll(now, task_id, Source::Push);
            return true;
        }
        if !self.relies_on_pushes() {
            self.blocking.pushes.silent = Some(self.session.epoch());
        }
        if !self.hold_again(now, task_id) {
            return false;
        }
        self.schedule_poll(now, task_id, Source::Poll);
        true
    }

    /// A poll saw `task_id` end while its end was left to a push: the session's pushes are not
    /// relied on any more, and every running task holds its result again.
    pub(super) fn end_not_pushed(&mut self, now: Millis, task_id: &str) {
        let held = self
            .tasks
            .get(task_id)
            .is_some_and(|e| e.result.req().is_some());
        if held || !self.relies_on_pushes() {
            return;
        }
        self.blocking.pushes.missed = Some(self.session.epoch());
        let running = self
            .tasks
            .ids_where(&|_, e| !e.subs.is_empty() && !e.is_terminal() && e.result.is_idle());
        for t in running {
            self.hold_again(now, &t);
        }
    }
}
