//! The engine operations the JS layer uses: implemented by the [`Engine`] itself (a tab on its
//! own) and by a [`Coord`], which allocates tab-local ids and routes each operation to wherever
//! the leader is.

use crate::json::Value;

use super::wire::Op;
use super::{Coord, MySub};
use crate::engine::api::{CallOptions, InputId, OpId, SubId};
use crate::engine::Engine;
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Task};

/// What a JS client asks of whatever runs its requests.
pub trait Requestor {
    fn call_tool(&mut self, now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId;
    fn request(&mut self, now: u64, method: &str, params: Value, opts: CallOptions) -> SubId;
    fn watch(&mut self, now: u64, task_id: &str) -> SubId;
    fn unsubscribe(&mut self, now: u64, sub: SubId);
    fn cancel(&mut self, now: u64, task_id: &str) -> OpId;
    fn delete_task(&mut self, now: u64, task_id: &str) -> OpId;
    fn answer_input(&mut self, now: u64, id: InputId, answer: Result<Value, RpcError>);
    fn list_tasks(&mut self, now: u64, cursor: Option<&str>) -> OpId;
    fn list_tools(&mut self, now: u64) -> OpId;
    fn task(&self, task_id: &str) -> Option<Task>;
    fn dialect(&self) -> Option<Dialect>;
}

impl Requestor for Engine {
    fn call_tool(&mut self, now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId {
        Engine::call_tool(self, now, name, arguments, opts)
    }
    fn request(&mut self, now: u64, method: &str, params: Value, opts: CallOptions) -> SubId {
        Engine::request(self, now, method, params, opts)
    }
    fn watch(&mut self, now: u64, task_id: &str) -> SubId {
        Engine::watch(self, now, task_id)
    }
    fn unsubscribe(&mut self, now: u64, sub: SubId) {
        Engine::unsubscribe(self, now, sub)
    }
    fn cancel(&mut self, now: u64, task_id: &str) -> OpId {
        Engine::cancel(self, now, task_id)
    }
    fn delete_task(&mut self, now: u64, task_id: &str) -> OpId {
        Engine::delete_task(self, now, task_id)
    }
    fn answer_input(&mut self, now: u64, id: InputId, answer: Result<Value, RpcError>) {
        Engine::answer_input(self, now, id, answer)
    }
    fn list_tasks(&mut self, now: u64, cursor: Option<&str>) -> OpId {
        Engine::list_tasks(self, now, cursor)
    }
    fn list_tools(&mut self, now: u64) -> OpId {
        Engine::list_tools(self, now)
    }
    fn task(&self, task_id: &str) -> Option<Task> {
        Engine::task(self, task_id)
    }
    fn dialect(&self) -> Option<Dialect> {
        Engine::dialect(self)
    }
}

impl Coord {
    fn alloc(&mut self) -> u64 {
        let id = self.next_local;
        self.next_local += 1;
        id
    }

    fn subscribe(&mut self, op: Op, task_id: Option<String>) -> SubId {
        let id = self.alloc();
        let s = MySub {
            op: op.clone(),
            task_id,
            acked: false,
            stopping: false,
        };
        self.subs.insert(id, s);
        self.route(id, op);
        SubId(id)
    }

    fn one_shot(&mut self, op: Op) -> OpId {
        let id = self.alloc();
        self.ops.insert(id, op.clone());
        self.route(id, op);
        OpId(id)
    }

    /// Stops tracking a task on the leader (the shell deletes its record).
    pub fn forget(&mut self, task_id: &str) {
        self.route(
            0,
            Op::Forget {
                task_id: task_id.to_owned(),
            },
        );
    }
}

impl Requestor for Coord {
    fn call_tool(&mut self, _now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId {
        let op = Op::CallTool {
            name: name.to_owned(),
            arguments,
            opts,
        };
        self.subscribe(op, None)
    }

    fn request(&mut self, _now: u64, method: &str, params: Value, opts: CallOptions) -> SubId {
        let op = Op::Request {
            method: method.to_owned(),
            params,
            opts,
        };
        self.subscribe(op, None)
    }

    fn watch(&mut self, _now: u64, task_id: &str) -> SubId {
        let op = Op::Watch {
            task_id: task_id.to_owned(),
        };
        self.subscribe(op, Some(task_id.to_owned()))
    }

    fn unsubscribe(&mut self, _now: u64, sub: SubId) {
        let Some(s) = self.subs.get_mut(&sub.0) else {
            return;
        };
        s.stopping = true;
        self.route(0, Op::Unsubscribe { sub });
    }

    fn cancel(&mut self, _now: u64, task_id: &str) -> OpId {
        self.one_shot(Op::Cancel {
            task_id: task_id.to_owned(),
        })
    }

    fn delete_task(&mut self, _now: u64, task_id: &str) -> OpId {
        self.one_shot(Op::DeleteTask {
            task_id: task_id.to_owned(),
        })
    }

    fn answer_input(&mut self, _now: u64, id: InputId, answer: Result<Value, RpcError>) {
        self.route(0, Op::AnswerInput { id, answer });
    }

    fn list_tasks(&mut self, _now: u64, cursor: Option<&str>) -> OpId {
        self.one_shot(Op::ListTasks {
            cursor: cursor.map(str::to_owned),
        })
    }

    fn list_tools(&mut self, _now: u64) -> OpId {
        self.one_shot(Op::ListTools)
    }

    fn task(&self, task_id: &str) -> Option<Task> {
        self.tasks.get(task_id).cloned()
    }

    fn dialect(&self) -> Option<Dialect> {
        self.session.as_ref().map(|s| s.dialect)
    }
}
