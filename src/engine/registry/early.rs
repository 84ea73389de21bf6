//! Status pushes about tasks not known yet. A server may push a task's status on the session's
//! own stream before the answer that creates the task reaches the client: the two travel on
//! different connections, and a short task can end before its creation answer arrives. Such a
//! push is kept while a call is in flight (a few, briefly) and applied once an answer names its
//! task; dropped, the task's end would wait for the safety poll.

use crate::protocol::model::Task;

use crate::engine::api::Millis;

/// At most this many pushes are kept; a new one evicts the oldest.
const MAX_KEPT: usize = 16;

/// Pushes about unknown tasks, with when each arrived, oldest first.
#[derive(Debug, Default)]
pub(crate) struct EarlyPushes(Vec<(Millis, Box<Task>)>);

impl EarlyPushes {
    /// Keeps `task`, pushed at `now`, in place of an earlier push about the same task.
    pub(super) fn keep(&mut self, now: Millis, task: Task) {
        let full = self.0.len() >= MAX_KEPT;
        if let Some(i) = self.position(&task.task_id).or(full.then_some(0)) {
            self.0.remove(i);
        }
        self.0.push((now, Box::new(task)));
    }

    /// The push kept about `task_id`, unless it is older than `max_age` (then it is dropped).
    pub(super) fn take(&mut self, task_id: &str, now: Millis, max_age: Millis) -> Option<Task> {
        let (at, task) = self.0.remove(self.position(task_id)?);
        (now.saturating_sub(at) <= max_age).then_some(*task)
    }

    fn position(&self, task_id: &str) -> Option<usize> {
        self.0.iter().position(|(_, t)| t.task_id == task_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::model::TaskStatus;

    #[test]
    fn the_latest_push_of_a_task_is_kept_until_taken_or_stale() {
        let mut early = EarlyPushes::default();
        early.keep(0, Task::new("a", TaskStatus::Working));
        early.keep(10, Task::new("a", TaskStatus::Completed));
        early.keep(20, Task::new("b", TaskStatus::Working));
        let a = early.take("a", 30, 100).map(|t| t.status);
        assert_eq!(a, Some(TaskStatus::Completed));
        assert!(early.take("a", 30, 100).is_none(), "taken once");
        assert!(early.take("b", 200, 100).is_none(), "stale");
        assert!(early.0.is_empty(), "a stale push is dropped when asked for");
    }

    #[test]
    fn a_new_push_evicts_the_oldest_beyond_the_bound() {
        let mut early = EarlyPushes::default();
        for i in 0..=MAX_KEPT {
            early.keep(0, Task::new(format!("t{i}"), TaskStatus::Working));
        }
        assert_eq!(early.0.len(), MAX_KEPT);
        assert!(early.take("t0", 0, 100).is_none());
        assert!(early.take(&format!("t{MAX_KEPT}"), 0, 100).is_some());
    }
}
