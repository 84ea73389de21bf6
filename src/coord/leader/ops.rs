//! Applying the tabs' operations to the leader's engine (tab-local ids → engine ids), and the
//! tasks the leader keeps tracking on its own account.

use crate::json::Value;

use super::{Dest, Work};
use crate::collections::sorted::SortedSet;
use crate::coord::wire::{Msg, Op, TabId};
use crate::coord::Coord;
use crate::engine::api::{End, Event, InputId, Millis, SubId};
use crate::engine::Engine;
use crate::protocol::jsonrpc::RpcError;

impl Coord {
    /// Queues one tab's operation for the engine (held back until the engine is ready).
    pub(in crate::coord) fn apply_or_queue(&mut self, from: TabId, id: u64, op: Op) {
        if let Some(l) = self.leading() {
            if l.ready {
                l.work.push_back(Work::Apply { from, id, op });
            } else {
                l.inbox.push((from, id, op));
            }
        }
    }

    /// Applies one tab's operation to the engine (this tab's own ones too).
    pub(super) fn apply(&mut self, now: Millis, e: &mut Engine, from: TabId, id: u64, op: Op) {
        let Some(epoch) = self.leading().map(|l| l.epoch) else {
            return;
        };
        match op {
            Op::CallTool { .. } | Op::Request { .. } | Op::Watch { .. } => {
                self.open_sub(now, e, from, id, op);
                self.ack(from, epoch, id);
            }
            Op::Unsubscribe { sub } => self.close_sub(now, e, from, epoch, sub),
            Op::Cancel { .. } | Op::DeleteTask { .. } | Op::ListTasks { .. } | Op::ListTools => {
                self.start_op(now, e, from, id, op)
            }
            Op::AnswerInput { id: wire, answer } => self.pass_answer(now, e, wire, answer),
            Op::Forget { task_id } => self.forget_task(now, e, task_id),
        }
    }

    /// A call, request or watch: one engine subscription per tab-local id (a repeat is acked
    /// again, not made twice); a watched task's record seeds the engine first.
    fn open_sub(&mut self, now: Millis, e: &mut Engine, from: TabId, id: u64, op: Op) {
        let Some(l) = self.leading() else { return };
        if l.router.sub_keys.contains_key(&(from, id)) {
            return;
        }
        let watched = match &op {
            Op::Watch { task_id } => Some(task_id.clone()),
            _ => None,
        };
        if let Some(t) = &watched {
            self.import_record(now, e, t, false);
        }
        let sub = match op {
            Op::CallTool {
                name,
                arguments,
                opts,
            } => e.call_tool(now, &name, arguments, opts),
            Op::Request {
                method,
                params,
                opts,
            } => e.request(now, &method, params, opts),
            Op::Watch { task_id } => e.watch(now, &task_id),
            _ => return,
        };
        if let Some(l) = self.leading() {
            l.router.subs.insert(sub, Dest::Tab(from, id));
            l.router.sub_keys.insert((from, id), sub);
            if let Some(t) = watched {
                l.router.sub_tasks.insert(sub, t);
            }
        }
    }

    /// A tab stops a subscription: the engine's, or at once when the engine never had it.
    fn close_sub(&mut self, now: Millis, e: &mut Engine, from: TabId, epoch: u64, sub: SubId) {
        let Some(l) = self.leading() else { return };
        match l.router.sub_keys.get(&(from, sub.0)).copied() {
            Some(s) => {
                l.router.stopped.insert(s);
                e.unsubscribe(now, s);
            }
            None => {
                let done = Event::Done {
                    sub,
                    task_id: None,
                    end: End::Aborted,
                };
                self.send_to(from, epoch, done)
            }
        }
    }

    /// A one-shot operation (cancel, delete, list): started once per tab-local id, its reply
    /// routed back to the tab.
    fn start_op(&mut self, now: Millis, e: &mut Engine, from: TabId, id: u64, op: Op) {
        let Some(l) = self.leading() else { return };
        if l.router.op_keys.contains_key(&(from, id)) {
            return;
        }
        let o = match op {
            Op::Cancel { task_id } => e.cancel(now, &task_id),
            Op::DeleteTask { task_id } => e.delete_task(now, &task_id),
            Op::ListTasks { cursor } => e.list_tasks(now, cursor.as_deref()),
            _ => e.list_tools(now),
        };
        l.router.ops.insert(o, (from, id));
        l.router.op_keys.insert((from, id), o);
    }

    /// A tab's answer to an input request; a task's answered keys are persisted.
    fn pass_answer(
        &mut self,
        now: Millis,
        e: &mut Engine,
        wire: InputId,
        answer: Result<Value, RpcError>,
    ) {
        let Some(l) = self.leading() else { return };
        let Some(p) = l.router.inputs.remove(&wire.0) else {
            return;
        };
        e.answer_input(now, p.input, answer);
        if let Some(t) = p.task_id {
            if let Some(keys) = l
                .answered
                .get_or_insert_with(t.as_str(), || (t.clone(), SortedSet::default()))
            {
                keys.insert(p.request.key);
            }
            self.emit(crate::coord::Output::Persist(t));
        }
    }

    /// The caller forgot a task: its record goes, and so does the leader's own following.
    fn forget_task(&mut self, now: Millis, e: &mut Engine, task_id: String) {
        let Some(l) = self.leading() else { return };
        l.stored.remove(&task_id);
        l.answered.remove(&task_id);
        if let Some(s) = l.router.internal.remove(&task_id) {
            l.router.subs.remove(&s);
            e.unsubscribe(now, s);
        }
        self.emit(crate::coord::Output::Forget(task_id));
    }

    fn ack(&mut self, to: TabId, epoch: u64, id: u64) {
        if to == self.id {
            if let Some(s) = self.subs.get_mut(&id) {
                s.acked = true;
            }
        } else {
            self.post(Msg::Ack { to, epoch, id });
        }
    }

    /// Seeds the engine with a task's record if it does not know the task; `track`: also keep
    /// following it on the leader's own account until it ends, so its record stays current when
    /// no tab watches it.
    pub(super) fn import_record(
        &mut self,
        now: Millis,
        e: &mut Engine,
        task_id: &str,
        track: bool,
    ) {
        let Some(l) = self.leading() else { return };
        if track && l.router.internal.contains_key(task_id) {
            return;
        }
        if e.task(task_id).is_none() {
            let keys = l.answered.get(task_id).map(|k| k.iter().cloned().collect());
            if let Some(mut s) = l.stored.get(task_id).and_then(|r| r.snapshot.clone()) {
                s.input_keys = keys.unwrap_or_default();
                e.import_task(now, s);
            }
        }
        let Some(status) = e.task(task_id).map(|t| t.status) else {
            return;
        };
        if !track || status.is_terminal() {
            return;
        }
        let sub = e.watch(now, task_id);
        l.router
            .subs
            .insert(sub, Dest::Internal(task_id.to_owned()));
        l.router.internal.insert(task_id.to_owned(), sub);
        l.router.sub_tasks.insert(sub, task_id.to_owned());
    }

    /// Drops the leader's own tracking of a task that no tab follows any more.
    pub(super) fn release_if_unwatched(&mut self, now: Millis, e: &mut Engine, task_id: &str) {
        let Some(l) = self.leading() else { return };
        let r = &mut l.router;
        let watched = r
            .sub_tasks
            .iter()
            .any(|(s, t)| t == task_id && matches!(r.subs.get(s), Some(Dest::Tab(..))));
        if watched {
            return;
        }
        if let Some(s) = r.internal.remove(task_id) {
            r.subs.remove(&s);
            r.sub_tasks.remove(&s);
            e.unsubscribe(now, s);
        }
    }

    /// Queues the leader's own tracking of a task (a tab stopped following it before its end).
    pub(super) fn track(&mut self, task_id: &str) {
        self.queue(Work::Import {
            task_id: task_id.to_owned(),
            track: true,
        });
    }

    /// Queues letting go of a task no tab follows any more.
    pub(super) fn release(&mut self, task_id: &str) {
        self.queue(Work::Release(task_id.to_owned()));
    }
}
