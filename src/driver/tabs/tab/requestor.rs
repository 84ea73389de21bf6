//! A tab's [`Requestor`]: the JS layer's operations in tab-local ids, queued for the leader.

use serde_json::Value;

use super::{MySub, Role, Tab};
use crate::driver::tabs::wire::Op;
use crate::driver::tabs::Requestor;
use crate::engine::api::{CallOptions, InputId, OpId, SubId};
use crate::protocol::jsonrpc::RpcError;
use crate::protocol::model::{Dialect, Task};

/// A tab's [`Requestor`]: allocates tab-local ids and queues operations for the leader.
pub(super) struct TabReq<'a> {
    pub(super) tab: &'a Tab,
    pub queued: Vec<(u64, Op)>,
}

impl TabReq<'_> {
    fn alloc(&mut self) -> u64 {
        let mut st = self.tab.0.st.borrow_mut();
        let id = st.next_local;
        st.next_local += 1;
        id
    }

    fn sub(&mut self, op: Op) -> SubId {
        let id = self.alloc();
        let s = MySub {
            op: op.clone(),
            task_id: None,
            acked: false,
            stopping: false,
        };
        self.tab.0.st.borrow_mut().subs.insert(id, s);
        self.queued.push((id, op));
        SubId(id)
    }

    fn one_shot(&mut self, op: Op) -> OpId {
        let id = self.alloc();
        self.tab.0.st.borrow_mut().ops.insert(id, op.clone());
        self.queued.push((id, op));
        OpId(id)
    }
}

impl Requestor for TabReq<'_> {
    fn call_tool(&mut self, _now: u64, name: &str, arguments: Value, opts: CallOptions) -> SubId {
        self.sub(Op::CallTool {
            name: name.to_owned(),
            arguments,
            opts,
        })
    }

    fn request(&mut self, _now: u64, method: &str, params: Value, opts: CallOptions) -> SubId {
        self.sub(Op::Request {
            method: method.to_owned(),
            params,
            opts,
        })
    }

    fn watch(&mut self, _now: u64, task_id: &str) -> SubId {
        let sub = self.sub(Op::Watch {
            task_id: task_id.to_owned(),
        });
        if let Some(s) = self.tab.0.st.borrow_mut().subs.get_mut(&sub.0) {
            s.task_id = Some(task_id.to_owned());
        }
        sub
    }

    fn unsubscribe(&mut self, _now: u64, sub: SubId) {
        let live = match self.tab.0.st.borrow_mut().subs.get_mut(&sub.0) {
            Some(s) => {
                s.stopping = true;
                true
            }
            None => false,
        };
        if live {
            self.queued.push((0, Op::Unsubscribe { sub }));
        }
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
        self.queued.push((0, Op::AnswerInput { id, answer }));
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
        let from_engine = match &self.tab.0.st.borrow().role {
            Role::Leader(l) => l
                .driver
                .as_ref()
                .and_then(|d| d.read(|e| e.task(task_id).cloned())),
            _ => None,
        };
        from_engine.or_else(|| self.tab.0.st.borrow().tasks.get(task_id).cloned())
    }

    fn dialect(&self) -> Option<Dialect> {
        self.tab.0.st.borrow().session.as_ref().map(|s| s.dialect)
    }
}
