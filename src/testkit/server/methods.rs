//! The fake server's task methods: `tools/call` (making tasks), `tasks/get`, `tasks/result`
//! (blocking where the dialect blocks) and `tasks/list` (paged).

use crate::json::{json, Value};

use super::super::head;
use super::wire::{error_msg, iso, related_key, reply, result_msg};
use super::{take, FakeServer, FakeTask, Replies, RunningResults};
use crate::engine::api::{Input, Millis, SendKey, TransportError};
use crate::protocol::jsonrpc::Id;
use crate::protocol::model::Dialect;

impl FakeServer {
    pub(super) fn call(&mut self, now: Millis, key: SendKey, id: Id, params: &Value) -> Replies {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if self.dialect == Dialect::Modern && name == "ask" {
            // MRTR: ask first, answer once the retry carries the response and the state.
            let answered = params
                .get("inputResponses")
                .and_then(|r| r.get("ask"))
                .is_some()
                && params.get("requestState").and_then(Value::as_str) == Some("st");
            let r = if answered {
                json!({ "content": [{ "type": "text", "text": "thanks" }] })
            } else {
                let ask =
                    json!({ "method": "elicitation/create", "params": { "message": "name?" } });
                json!({ "resultType": "input_required", "inputRequests": { "ask": ask }, "requestState": "st" })
            };
            return self.ok(key, result_msg(id, r));
        }
        let args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(3_000);
        let end = args
            .get("end")
            .and_then(Value::as_str)
            .unwrap_or("completed")
            .to_owned();
        let interval = args.get("interval").and_then(Value::as_u64);
        let wants_input = args.get("input").and_then(Value::as_bool).unwrap_or(false);
        // When input is needed: `input_after` ms after the start, else halfway.
        let input_after = args
            .get("input_after")
            .and_then(Value::as_u64)
            .unwrap_or(ms / 2);
        let ttl = match args.get("ttl") {
            Some(Value::Null) => None,
            Some(v) => v.as_u64(),
            None => Some(3_600_000),
        };
        let draft_id = params
            .get("_meta")
            .and_then(|m| m.get("modelcontextprotocol.io/task"))
            .and_then(|t| t.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let asked = match self.dialect {
            Dialect::Legacy => params.get("task").is_some(),
            Dialect::Draft => draft_id.is_some(),
            Dialect::Modern => name != "quick",
        };
        if name == "must" && !asked {
            let r = json!({ "content": [{ "type": "text", "text": "task required" }], "isError": true });
            return self.ok(key, result_msg(id, r));
        }
        if !asked || name == "quick" {
            if end == "error" {
                return self.ok(key, error_msg(Some(id), -32603, "boom"));
            }
            let r = json!({ "content": [{ "type": "text", "text": "quick" }] });
            return self.ok(key, result_msg(id, r));
        }
        let task_id = match draft_id {
            Some(d) => d,
            None => {
                self.next_task += 1;
                format!("task-{}{}", self.tag, self.next_task - 1)
            }
        };
        let task = FakeTask {
            created: now,
            created_iso: iso(now),
            ttl,
            interval,
            until: now + ms,
            input_at: wants_input.then_some(now + input_after),
            input_sent: false,
            end,
            cancelled: false,
            origin: (self.dialect == Dialect::Draft).then(|| (key, id.clone())),
            last_pushed: Some("working"),
        };
        self.schedule(&task_id, &task);
        self.tasks.insert(task_id.clone(), task);
        self.intervals.insert(task_id.clone(), interval);
        match self.dialect {
            Dialect::Draft if !self.announce => vec![(0, head(key, 200, None))],
            Dialect::Draft => {
                let note = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/created", "params": { "_meta": { related_key(Dialect::Draft): { "taskId": task_id } } } });
                vec![
                    (0, head(key, 200, None)),
                    (
                        0,
                        Input::Message {
                            via: None,
                            body: note.to_string(),
                        },
                    ),
                ]
            }
            Dialect::Modern => {
                let mut t = self.task_json(&task_id, &self.tasks[&task_id], now);
                t["resultType"] = json!("task");
                // Flat, and never with the outcome, even when already terminal.
                if let Some(o) = t.as_object_mut() {
                    for k in ["result", "error", "inputRequests"] {
                        o.remove(k);
                    }
                }
                self.ok(key, result_msg(id, t))
            }
            Dialect::Legacy => {
                let t = self.task_json(&task_id, &self.tasks[&task_id], now);
                self.ok(key, result_msg(id, json!({ "task": t })))
            }
        }
    }

    pub(super) fn get(
        &mut self,
        now: Millis,
        key: SendKey,
        id: Id,
        task_id: Option<&str>,
    ) -> Replies {
        let Some(t) = task_id else {
            return self.ok(key, error_msg(Some(id), -32602, "taskId missing"));
        };
        let faulty = self.faults.silence + self.faults.transport + self.faults.rpc_error > 0;
        let roll = if faulty {
            self.rng.between(0, 99) as u32
        } else {
            100
        };
        let nth = match self.gets.get_mut(t) {
            Some(v) => {
                v.push(now);
                v.len() as u32
            }
            None => {
                self.gets.insert(t.to_owned(), vec![now]);
                1
            }
        };
        if take(&mut self.faults.bad_gets) {
            let body = error_msg(None, -32600, "Bad Request: invalid request");
            return reply(key, 400, None, body);
        }
        let every = self.faults.throttle_every;
        if take(&mut self.faults.throttled_gets) || (every > 0 && (nth - 1) % every == 0) {
            return self.throttled(key);
        }
        let stall = self.faults.stall_every;
        // Counted only while such stalls are left: summing every task's gets costs O(tasks).
        let alternate = self.faults.stalled_gets > 0
            && self.gets.values().map(Vec::len).sum::<usize>() % 2 == 0
            && take(&mut self.faults.stalled_gets);
        if roll < self.faults.silence || alternate || (stall > 0 && (nth - 1) % stall == 0) {
            return vec![(0, head(key, 200, None))];
        }
        if roll < self.faults.silence + self.faults.transport {
            let error = TransportError {
                http_status: Some(503),
                retry_after_ms: Some(3_000),
                ..TransportError::network("503")
            };
            return vec![(0, Input::Failed { key, error })];
        }
        if roll < self.faults.silence + self.faults.transport + self.faults.rpc_error {
            return self.ok(key, error_msg(Some(id), -32603, "internal"));
        }
        match self.alive(t, now) {
            Some(task) if task.status(now) == "working" => {
                let body = self.working_json(&id, t, task);
                self.ok(key, body)
            }
            Some(task) => {
                let body = result_msg(id, self.task_json(t, task, now));
                self.ok(key, body)
            }
            None => self.ok(key, error_msg(Some(id), -32602, "Task not found")),
        }
    }

    /// HTTP 429 with `Retry-After` of `throttle_ms`, and no body.
    fn throttled(&self, key: SendKey) -> Replies {
        vec![
            (
                0,
                Input::Head {
                    key,
                    status: 429,
                    session_id: None,
                    retry_after_ms: Some(self.faults.throttle_ms),
                    www_authenticate: None,
                },
            ),
            (0, Input::Ended { key }),
        ]
    }

    pub(super) fn result(
        &mut self,
        now: Millis,
        key: SendKey,
        id: Id,
        task_id: Option<&str>,
    ) -> Replies {
        let Some(t) = task_id
            .filter(|t| self.alive(t, now).is_some())
            .map(str::to_owned)
        else {
            return self.ok(key, error_msg(Some(id), -32602, "Task not found"));
        };
        if take(&mut self.faults.throttled_results) {
            return self.throttled(key);
        }
        if take(&mut self.faults.gone_results) {
            return self.ok(key, error_msg(Some(id), -32602, "Task not found"));
        }
        if self.dialect == Dialect::Draft {
            let status = self
                .tasks
                .get(&t)
                .map(|task| task.status(now))
                .unwrap_or_default();
            return if status == "completed" {
                self.ok(key, result_msg(id, self.final_result(&t)))
            } else {
                self.ok(key, error_msg(Some(id), -32602, "Task is not completed"))
            };
        }
        let running = self.tasks.get(&t).is_some_and(|task| !task.terminal(now));
        match self.faults.running_results {
            RunningResults::Refuse if running => {
                return self.ok(key, error_msg(Some(id), -32603, "Task is still running"))
            }
            RunningResults::Close if running => {
                return vec![(0, head(key, 200, None)), (0, Input::Ended { key })]
            }
            _ => {}
        }
        self.blocked.entry(t.clone()).or_default().push((key, id));
        if running {
            self.cut_later(now, key);
        }
        let mut out = vec![(0, head(key, 200, None))];
        // Asked after the end: the answer goes out at once, with no lag.
        let lag = self.faults.held_result_lag;
        if !running {
            self.faults.held_result_lag = 0;
        }
        out.extend(self.process(now, &t));
        self.faults.held_result_lag = lag;
        out
    }

    pub(super) fn list(&mut self, now: Millis, key: SendKey, id: Id, params: &Value) -> Replies {
        let start: usize = match params.get("cursor").and_then(Value::as_str) {
            None => 0,
            Some(c) => match c.parse() {
                Ok(n) => n,
                Err(_) => return self.ok(key, error_msg(Some(id), -32602, "Invalid cursor")),
            },
        };
        let mut live: Vec<(String, Value)> = self
            .tasks
            .iter()
            .filter(|(k, _)| self.alive(k, now).is_some())
            .map(|(k, t)| (k.clone(), self.task_json(k, t, now)))
            .collect();
        live.sort_by(|a, b| a.0.cmp(&b.0));
        let page: Vec<Value> = live
            .iter()
            .skip(start)
            .take(self.page_size)
            .map(|(_, v)| v.clone())
            .collect();
        let mut r = json!({ "tasks": page });
        if start + self.page_size < live.len() {
            r["nextCursor"] = json!((start + self.page_size).to_string());
        }
        self.ok(key, result_msg(id, r))
    }
}
