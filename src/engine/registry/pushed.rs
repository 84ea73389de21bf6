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
//! decides (a `working` push from a server not seen pushing `input_required` has the task hold
//! its result at once where the link allows, as the session's later tasks do from their start).
//! A session whose task saw no push in that interval holds its tasks' results from the start,
//! until a push shows otherwise. A poll that finds an end no push told ends the reliance for the
//! session: running tasks hold their results again.
//!
//! On a link only assumed HTTP/1.1 (see `multiplex.rs`) nothing is held until the session has
//! shown it is silent (a task's poll due a whole interval after its last change, no push seen):
//! the probe's held results would take the few connections a pushed end's `tasks/result` needs,
//! and with pushes standing in for polls no status request would tell the link's version.
//!
//! Only a push on the session's own stream (the listening stream, the WebSocket, a request's
//! stream other than a `tasks/result`) is evidence: one on a held result's stream would not come
//! without the hold. The evidence belongs to one session: a new one starts without it.

use crate::protocol::model::TaskStatus;

/// What this session's server showed about status pushes, each by session generation.
#[derive(Debug, Default)]
pub(super) struct PushEvidence {
    /// The server pushed a task status on the session's own stream.
    seen: Option<u64>,
    /// A task's first interval passed without any push.
    silent: Option<u64>,
    /// A poll found an end no push told.
    missed: Option<u64>,
    /// The server pushed an `input_required` status on the session's own stream.
    inputs: Option<u64>,
}

impl PushEvidence {
    /// Whether running tasks of session generation `epoch` (`legacy`: its dialect pushes
    /// statuses) rely on its pushes instead of held results.
    pub(super) fn relied_on(&self, epoch: u64, legacy: bool) -> bool {
        let epoch = Some(epoch);
        legacy && self.seen == epoch && self.missed != epoch
    }

    /// Whether the server was seen pushing `input_required` in session generation `epoch`.
    pub(super) fn pushes_inputs(&self, epoch: u64) -> bool {
        self.inputs == Some(epoch)
    }

    /// Whether session generation `epoch` has not shown yet whether its server pushes.
    pub(super) fn undecided(&self, epoch: u64) -> bool {
        let epoch = Some(epoch);
        self.silent != epoch && self.missed != epoch && self.seen != epoch
    }

    /// A status push (`status`) on the session's own stream.
    pub(super) fn seen(&mut self, epoch: u64, status: TaskStatus) {
        self.seen = Some(epoch);
        if status == TaskStatus::InputRequired {
            self.inputs = Some(epoch);
        }
    }

    /// A task's first interval passed without any push.
    pub(super) fn silent(&mut self, epoch: u64) {
        self.silent = Some(epoch);
    }

    /// A poll found an end no push told.
    pub(super) fn missed(&mut self, epoch: u64) {
        self.missed = Some(epoch);
    }
}
