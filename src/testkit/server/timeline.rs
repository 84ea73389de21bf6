//! The fake server's own clock: tasks that end, ask for input or expire on their own, and what
//! it sends then (input requests, pushes, the draft original response, blocked results).

use crate::json::json;

use super::wire::{error_msg, related_key, result_msg};
use super::{FakeServer, FakeTask, Replies};
use crate::engine::api::{Input, Millis, SendKey};
use crate::protocol::jsonrpc::Id;
use crate::protocol::model::Dialect;

impl FakeServer {
    /// The engine answered one of our requests (an elicitation).
    pub(super) fn answered(&mut self, now: Millis, id: &Id) {
        let Id::String(s) = id else { return };
        let Some(task_id) = s.strip_prefix("elicit-") else {
            return;
        };
        self.resume(now, task_id);
    }

    /// The input a task waited for arrived: it works one more second.
    pub(super) fn resume(&mut self, now: Millis, task_id: &str) {
        let Some(t) = self.tasks.get_mut(task_id) else {
            return;
        };
        if t.input_at.is_some_and(|at| now >= at) {
            t.input_at = None;
            t.until = now + 1_000;
            self.timeline.insert((now + 1_000, task_id.to_owned()));
            self.dirty.insert(task_id.to_owned());
        }
    }

    pub(super) fn schedule(&mut self, id: &str, t: &FakeTask) {
        for at in [Some(t.until), t.input_at, t.ttl.map(|ttl| t.created + ttl)]
            .into_iter()
            .flatten()
        {
            self.timeline.insert((at, id.to_owned()));
        }
    }

    /// When the server next has something to do on its own.
    pub(crate) fn next_event(&self, now: Millis) -> Option<Millis> {
        if !self.dirty.is_empty() {
            return Some(now);
        }
        let cut = self.cuts.iter().map(|(at, _)| *at).min();
        let next = self.timeline.iter().map(|(t, _)| *t).find(|t| *t > now);
        next.into_iter().chain(cut).min()
    }

    /// A held `tasks/result` on `key` came at `now`: cut it later, when the server cuts them.
    pub(super) fn cut_later(&mut self, now: Millis, key: SendKey) {
        if self.faults.cut_held_after > 0 {
            self.cuts.push((now + self.faults.cut_held_after, key));
        }
    }

    /// The held results due to be cut: a 504 head, and the end of the stream.
    fn cut_due(&mut self, now: Millis) -> Replies {
        let mut out = Vec::new();
        let (due, later) = self.cuts.drain(..).partition(|(at, _)| *at <= now);
        self.cuts = later;
        for (_, key) in due {
            let mut held = false;
            for b in self.blocked.values_mut() {
                held |= b.iter().any(|(k, _)| *k == key);
                b.retain(|(k, _)| *k != key);
            }
            if held {
                out.push((0, super::super::head(key, 504, None)));
                out.push((0, Input::Ended { key }));
            }
        }
        out
    }

    /// Time passed: the tasks that changed send input requests and pushes, finish draft
    /// originals and unblock results.
    pub(crate) fn advance(&mut self, now: Millis) -> Replies {
        let mut due = std::mem::take(&mut self.dirty);
        while let Some((at, _)) = self.timeline.first() {
            if *at > now {
                break;
            }
            if let Some((_, id)) = self.timeline.pop_first() {
                due.insert(id);
            }
        }
        let mut out = self.cut_due(now);
        for id in due {
            out.extend(self.process(now, &id));
        }
        out
    }

    pub(super) fn process(&mut self, now: Millis, id: &str) -> Replies {
        let mut out = Vec::new();
        let Some(task) = self.alive(id, now) else {
            let blocked = self.blocked.remove(id).unwrap_or_default();
            if self.faults.consume_results && !blocked.is_empty() {
                self.tasks.remove(id);
            }
            for (key, rid) in blocked {
                out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: error_msg(Some(rid), -32602, "Task not found"),
                    },
                ));
                out.push((0, Input::Ended { key }));
            }
            return out;
        };
        let status = task.status(now);
        let terminal = task.terminal(now);
        let (input_sent, last_pushed, end) = (task.input_sent, task.last_pushed, task.end.clone());
        let asks = !input_sent && !self.faults.mute_inputs && self.dialect != Dialect::Modern;
        if status == "input_required" && asks {
            // Legacy: on a blocked tasks/result stream when there is one; draft: any stream.
            let via = self
                .blocked
                .get(id)
                .and_then(|b| b.first())
                .map(|(k, _)| *k);
            if self.dialect == Dialect::Draft || via.is_some() {
                let via = if self.dialect == Dialect::Legacy {
                    via
                } else {
                    None
                };
                let req = json!({ "jsonrpc": "2.0", "id": format!("elicit-{id}"), "method": "elicitation/create",
                    "params": { "message": "name?", "_meta": { related_key(self.dialect): { "taskId": id } } } });
                out.push((
                    0,
                    Input::Message {
                        via,
                        body: req.to_string(),
                    },
                ));
                if let Some(t) = self.tasks.get_mut(id) {
                    t.input_sent = true;
                }
            }
        }
        let pushed = self.push
            && self.unpushed != Some(status)
            && (!self.push_to_listeners || self.listened.contains(id));
        if pushed && last_pushed != Some(status) && self.dialect != Dialect::Draft {
            let method = if self.dialect == Dialect::Modern {
                "notifications/tasks"
            } else {
                "notifications/tasks/status"
            };
            let params = self
                .tasks
                .get(id)
                .map(|t| self.task_json(id, t, now))
                .unwrap_or_default();
            let body = json!({ "jsonrpc": "2.0", "method": method, "params": params });
            out.push((
                0,
                Input::Message {
                    via: None,
                    body: body.to_string(),
                },
            ));
            if let Some(t) = self.tasks.get_mut(id) {
                t.last_pushed = Some(status);
            }
        }
        if !terminal {
            return out;
        }
        if let Some((key, rid)) = self.tasks.get_mut(id).and_then(|t| t.origin.take()) {
            match status {
                "completed" => out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: result_msg(rid, self.final_result(id)),
                    },
                )),
                "failed" => out.push((
                    0,
                    Input::Message {
                        via: Some(key),
                        body: error_msg(Some(rid), -32603, "boom"),
                    },
                )),
                _ => {}
            }
            out.push((0, Input::Ended { key }));
        }
        let blocked = self.blocked.remove(id).unwrap_or_default();
        if self.faults.consume_results && !blocked.is_empty() {
            self.tasks.remove(id);
        }
        for (key, rid) in blocked {
            if super::take(&mut self.faults.mute_results) {
                // The answer is never sent: the stream stays open, silent.
                continue;
            }
            let body = match (status, end.as_str()) {
                ("failed", "error") => error_msg(Some(rid), -32603, "boom"),
                ("cancelled", _) => error_msg(Some(rid), -32602, "Task was cancelled"),
                // A raising tool, as Python `mcp` answers it: nothing but `_meta`.
                ("failed", "empty") => {
                    let meta = self.final_result(id).get("_meta").cloned();
                    result_msg(rid, json!({ "_meta": meta }))
                }
                ("failed", _) => {
                    let mut r = self.final_result(id);
                    r["isError"] = json!(true);
                    result_msg(rid, r)
                }
                _ => result_msg(rid, self.final_result(id)),
            };
            let lag = self.faults.held_result_lag;
            let via = Some(key);
            out.push((lag, Input::Message { via, body }));
            out.push((lag, Input::Ended { key }));
        }
        out
    }

    /// The engine closed a stream: a blocked result stops.
    pub(crate) fn abort(&mut self, key: SendKey) {
        if self.faults.deaf_to_aborts {
            return;
        }
        for b in self.blocked.values_mut() {
            b.retain(|(k, _)| *k != key);
        }
    }
}
