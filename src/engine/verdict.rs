//! How an ended subscription reads to the one holding it: the request's result, or why there is
//! none. One decision for every way a handle can end (finished, stopped, failed), so a handle's
//! `result()` and its done record always agree.

use crate::json::Value;

use crate::engine::api::{ClientError, End, ErrorKind};
use crate::engine::registry::tasks::{GONE_CODES, LEGACY_GONE_CODE};
use crate::protocol::model::{Outcome, Task, TaskStatus};

/// How a task ended without a result, when no error was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The holder stopped waiting (nothing was sent).
    Aborted,
    /// The task ended `cancelled`.
    Cancelled,
    /// The task's deadline passed or the server forgot it.
    Expired,
    /// The task ended `failed` or `unknown`.
    TaskFailed,
}

/// What a holder is told when there is no result.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The request could not be made or tracked, or the server answered with an error (kept
    /// whole: code, data and whatever else the error carries).
    Error(ClientError),
    /// The task ended without a result.
    Ended {
        how: Ending,
        /// Human-readable; for a failed tool call, the tool's own text when it gave one.
        message: String,
        /// The failed task's result, when it has one.
        data: Option<Value>,
    },
}

impl Failure {
    fn ended(how: Ending, message: impl Into<String>) -> Self {
        Self::Ended {
            how,
            message: message.into(),
            data: None,
        }
    }
}

/// The result of `end`, or the failure; `last` is the holder's last snapshot (a stopped handle
/// has no other).
pub fn verdict<'a>(end: &'a End, last: Option<&'a Task>) -> Result<&'a Value, Failure> {
    match end {
        End::Aborted => Err(Failure::ended(
            Ending::Aborted,
            "stopped waiting for the task",
        )),
        End::Failed { error } => Err(Failure::Error(error.clone())),
        End::Finished { task, outcome } => {
            let task = task.as_ref().or(last);
            let outcome = outcome.as_ref().or(task.and_then(|t| t.outcome.as_ref()));
            finished(task, outcome)
        }
    }
}

/// Whether the promise `callTool`/`request` returned resolves with the handle when its
/// subscription ends this way (`last`: the holder's last snapshot), else it rejects with the
/// failure: when the request finished, or there was a task to show.
pub fn resolves_first(end: &End, last: Option<&Task>) -> bool {
    matches!(end, End::Finished { .. }) || last.is_some()
}

fn finished<'a>(task: Option<&Task>, outcome: Option<&'a Outcome>) -> Result<&'a Value, Failure> {
    let status = task.map(|t| t.status);
    let status_message = task.and_then(|t| t.status_message.clone());
    match (outcome, status) {
        (Some(Outcome::Error { error }), status) => {
            let mut e: ClientError = error.clone().into();
            // A failed task whose result the server would not give (pmcp: "task result not
            // available") still says why it failed in its status message.
            if let (Some(TaskStatus::Failed), Some(m)) = (status, &status_message) {
                if !m.is_empty() && crate::protocol::find(&e.message, m).is_none() {
                    e.message = [&e.message, " (the task failed: ", m, ")"].concat();
                }
            }
            Err(Failure::Error(e))
        }
        (Some(Outcome::Result { result }), Some(TaskStatus::Failed | TaskStatus::Unknown)) => {
            let message = tool_text(result)
                .or(status_message)
                .unwrap_or_else(|| "the task failed".into());
            Err(Failure::Ended {
                how: Ending::TaskFailed,
                message,
                data: Some(result.clone()),
            })
        }
        // A cancelled task's result (servers may answer one, empty) is not its outcome.
        (Some(Outcome::Result { .. }) | None, Some(TaskStatus::Cancelled)) => Err(Failure::ended(
            Ending::Cancelled,
            status_message.unwrap_or_else(|| "the task was cancelled".into()),
        )),
        (Some(Outcome::Result { result }), _) => Ok(result),
        (None, Some(TaskStatus::Expired)) => Err(Failure::ended(
            Ending::Expired,
            status_message.unwrap_or_else(|| "the task expired".into()),
        )),
        (None, Some(TaskStatus::Failed | TaskStatus::Unknown)) => Err(Failure::ended(
            Ending::TaskFailed,
            status_message.unwrap_or_else(|| "the task failed".into()),
        )),
        (None, s) => Err(Failure::Error(ClientError::new(
            ErrorKind::Protocol,
            match s {
                Some(s) => ["the task ended (", s.name(), ") without a result"].concat(),
                None => "the request ended without a result".into(),
            },
        ))),
    }
}

/// Whether `end` settles its task for good, so that no later page load need watch it again: a
/// terminal status, a completed task whose result cannot be had, or the server saying it does not
/// know the task (the only server error that ends a watch). Stopping, closing, a refused connect
/// or a missing method settle nothing: the task may still end, and a later load may see it.
pub fn settles(end: &End) -> bool {
    match end {
        End::Finished { .. } => true,
        End::Aborted => false,
        End::Failed { error } => match error.kind {
            ErrorKind::ResultUnavailable => true,
            ErrorKind::Rpc => error
                .code
                .is_some_and(|c| GONE_CODES.contains(&c) || c == LEGACY_GONE_CODE),
            _ => false,
        },
    }
}

/// The text blocks of a `CallToolResult`'s `content`, one per line; `None` when there are none.
pub fn tool_text(result: &Value) -> Option<String> {
    let blocks = result.get("content")?.as_array()?;
    let texts = (blocks.iter())
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .filter(|t| !t.is_empty());
    // Joined as they come: no `Vec` of them, and no `join` (the core build carries its code
    // for this alone).
    texts.fold(None, |joined, text| match joined {
        Some(joined) => Some(joined + "\n" + text),
        None => Some(text.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use crate::json::json;

    use super::*;
    use crate::protocol::jsonrpc::RpcError;

    fn task(status: TaskStatus, message: Option<&str>) -> Task {
        Task {
            status_message: message.map(Into::into),
            ..Task::new("t1", status)
        }
    }

    fn finished(status: TaskStatus, message: Option<&str>, outcome: Option<Outcome>) -> End {
        End::Finished {
            task: Some(task(status, message)),
            outcome,
        }
    }

    fn result(v: Value) -> Option<Outcome> {
        Some(Outcome::Result { result: v })
    }

    /// The failure's kind, message and data.
    fn ended(end: &End, last: Option<&Task>) -> (Ending, String, Option<Value>) {
        match verdict(end, last) {
            Err(Failure::Ended { how, message, data }) => (how, message, data),
            other => panic!("expected an ending, got {other:?}"),
        }
    }

    fn error(end: &End) -> ClientError {
        match verdict(end, None) {
            Err(Failure::Error(e)) => e,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn a_completed_task_yields_its_result_even_with_is_error() {
        let r = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
        let end = finished(TaskStatus::Completed, None, result(r.clone()));
        assert_eq!(verdict(&end, None), Ok(&r));
    }

    #[test]
    fn a_failed_task_carries_the_tools_own_text_over_the_status_message() {
        let r = json!({"content": [
            {"type": "text", "text": "disk full"},
            {"type": "image", "data": "", "mimeType": "image/png"},
            {"type": "text", "text": "on /tmp"}
        ], "isError": true});
        let end = finished(TaskStatus::Failed, Some("step 3 of 5"), result(r.clone()));
        let expected = (Ending::TaskFailed, "disk full\non /tmp".into(), Some(r));
        assert_eq!(ended(&end, None), expected);
    }

    #[test]
    fn a_failed_task_without_text_falls_back_to_the_status_message_then_a_default() {
        let end = finished(
            TaskStatus::Failed,
            Some("boom"),
            result(json!({"content": []})),
        );
        assert_eq!(ended(&end, None).1, "boom");
        let end = finished(TaskStatus::Unknown, None, None);
        let (how, message, _) = ended(&end, None);
        assert_eq!(
            (how, message.as_str()),
            (Ending::TaskFailed, "the task failed")
        );
    }

    #[test]
    fn an_rpc_outcome_is_an_rpc_failure_with_its_code_and_data() {
        let rpc = RpcError {
            data: Some(json!({"why": 1})),
            ..RpcError::new(-32602, "bad args")
        };
        let end = finished(
            TaskStatus::Failed,
            None,
            Some(Outcome::Error { error: rpc }),
        );
        let e = error(&end);
        assert_eq!(e.kind, ErrorKind::Rpc);
        assert_eq!((e.code, e.message.as_str()), (Some(-32602), "bad args"));
        assert_eq!(e.data, Some(json!({"why": 1})));
    }

    #[test]
    fn cancelled_expired_and_stopped_have_their_own_kinds() {
        let how = |end: End| ended(&end, None).0;
        assert_eq!(
            how(finished(TaskStatus::Cancelled, None, None)),
            Ending::Cancelled
        );
        assert_eq!(
            how(finished(TaskStatus::Expired, None, None)),
            Ending::Expired
        );
        assert_eq!(how(End::Aborted), Ending::Aborted);
        let down = ClientError::new(ErrorKind::Transport, "down");
        let failed = End::Failed {
            error: down.clone(),
        };
        assert_eq!(
            error(&failed),
            down,
            "the engine's error is passed on whole"
        );
    }

    #[test]
    fn the_first_promise_resolves_when_the_request_finished_or_a_task_was_seen() {
        let seen = task(TaskStatus::Working, None);
        let stopped = End::Aborted;
        let refused = End::Failed {
            error: ClientError::new(ErrorKind::Rpc, "no such tool"),
        };
        let plain = End::Finished {
            task: None,
            outcome: result(json!({})),
        };
        assert!(
            resolves_first(&plain, None),
            "a plain request that finished"
        );
        assert!(resolves_first(
            &finished(TaskStatus::Failed, None, None),
            None
        ));
        assert!(
            resolves_first(&stopped, Some(&seen)),
            "stopped after a task was made"
        );
        assert!(
            resolves_first(&refused, Some(&seen)),
            "lost after a task was made"
        );
        assert!(!resolves_first(&stopped, None), "stopped before any task");
        assert!(!resolves_first(&refused, None), "refused before any task");
    }

    #[test]
    fn the_last_snapshot_stands_in_for_a_missing_final_one() {
        let end = End::Finished {
            task: None,
            outcome: None,
        };
        let last = task(TaskStatus::Cancelled, None);
        assert_eq!(ended(&end, Some(&last)).0, Ending::Cancelled);
        assert_eq!(error(&end).kind, ErrorKind::Protocol);
    }

    #[test]
    fn every_terminal_end_settles_the_task_and_nothing_else_does() {
        for status in [
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
            TaskStatus::Expired,
            TaskStatus::Unknown,
        ] {
            assert!(settles(&finished(status, None, None)), "{status:?}");
        }
        let failed = |kind, code| End::Failed {
            error: ClientError {
                code,
                ..ClientError::new(kind, "x")
            },
        };
        assert!(settles(&failed(ErrorKind::ResultUnavailable, None)));
        assert!(settles(&failed(ErrorKind::ResultUnavailable, Some(-32602))));
        for gone in [-32602, -32002, -32010, -32600] {
            assert!(settles(&failed(ErrorKind::Rpc, Some(gone))), "{gone}");
        }
        assert!(!settles(&End::Aborted));
        assert!(!settles(&failed(ErrorKind::Rpc, Some(-32603))));
        assert!(!settles(&failed(ErrorKind::Rpc, None)));
        for kind in [
            ErrorKind::Closed,
            ErrorKind::Transport,
            ErrorKind::Timeout,
            ErrorKind::Protocol,
            ErrorKind::Unsupported,
            ErrorKind::Unauthorized,
            ErrorKind::InvalidInput,
        ] {
            assert!(!settles(&failed(kind, Some(-32602))), "{kind:?}");
        }
    }

    #[test]
    fn tool_text_ignores_non_text_blocks_and_odd_shapes() {
        assert_eq!(tool_text(&json!({"content": "x"})), None);
        assert_eq!(tool_text(&json!({"content": [{"type": "text"}]})), None);
        assert_eq!(tool_text(&json!(42)), None);
    }

    /// pmcp answers `tasks/result` of a failed task with "task result not available": the
    /// caller still learns why the task failed, from its status message.
    #[test]
    fn a_failed_tasks_unavailable_result_names_the_status_message() {
        let error = RpcError::new(-32002, "task result not available: task not completed");
        let outcome = Some(Outcome::Error { error });
        let end = finished(TaskStatus::Failed, Some("disk full"), outcome.clone());
        let Err(Failure::Error(e)) = verdict(&end, None) else {
            panic!("not an error: {end:?}")
        };
        assert_eq!(e.code, Some(-32002));
        assert_eq!(
            e.message,
            "task result not available: task not completed (the task failed: disk full)"
        );
        // Said once: a message that already carries it is left alone.
        let end = finished(TaskStatus::Failed, Some("task not completed"), outcome);
        let Err(Failure::Error(e)) = verdict(&end, None) else {
            panic!("not an error: {end:?}")
        };
        assert_eq!(e.message, "task result not available: task not completed");
    }
}
