//! The `tasks/result` streams open at the server: at most one per task, or two once the engine
//! saw the task end (a fresh request racing the held one, see `race.rs`).

use super::{Harness, World};
use crate::engine::api::SendKey;

impl<S: World> Harness<S> {
    /// A `tasks/result` about `task_id` reached the server on stream `key`.
    pub(super) fn result_opened(&mut self, key: SendKey, task_id: Option<String>) {
        let ended = (task_id.as_deref()).is_some_and(|t| self.engine.task_ended(t));
        let open = (self.results_open.values())
            .filter(|t| **t == task_id)
            .count();
        if task_id.is_some() && open > usize::from(ended) {
            let line = format!("{}: {open} tasks/result open for {task_id:?}", self.now);
            self.violations.push(line);
        }
        self.results_open.insert(key, task_id);
        self.max_results_open = self.max_results_open.max(self.results_open.len());
    }
}

impl<S: World> Harness<S> {
    /// The `tasks/result` streams open now for `task_id`.
    pub(crate) fn results_held(&self, task_id: &str) -> Vec<SendKey> {
        (self.results_open.iter())
            .filter(|(_, t)| t.as_deref() == Some(task_id))
            .map(|(k, _)| *k)
            .collect()
    }
}
