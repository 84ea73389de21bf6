//! How an ended subscription reads to the one holding it: the request's result, or why there is
//! none. One decision for every way a handle can end (finished, stopped, failed), so a handle's
//! `result()` and its done record always agree.

use serde_json::Value;

use super::api::{ClientError, End, ErrorKind};
use crate::protocol::model::{Outcome, Task, TaskStatus};

/// Why an ended subscription has no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The request could not be made or tracked, or the server answered with an error.
    Client(ErrorKind),
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
pub struct Failure {
    pub kind: FailureKind,
    /// Human-readable; for a failed tool call, the tool's own text when it gave one.
    pub message: String,
    pub code: Option<i64>,
    /// The error's data, or the failed task's result.
    pub data: Option<Value>,
}

impl Failure {
    fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            code: None,
            data: None,
        }
    }
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Self {
            kind: FailureKind::Client(e.kind),
            message: e.message,
            code: e.code,
            data: e.data,
        }
    }
}

/// The result of `end`, or the failure; `last` is the holder's last snapshot (a stopped handle
/// has no other).
pub fn verdict(end: &End, last: Option<&Task>) -> Result<Value, Failure> {
    match end {
        End::Aborted => Err(Failure::new(
            FailureKind::Aborted,
            "stopped waiting for the task",
        )),
        End::Failed { error } => Err(error.clone().into()),
        End::Finished { task, outcome } => {
            let task = task.as_ref().or(last);
            let outcome = outcome.as_ref().or(task.and_then(|t| t.outcome.as_ref()));
            finished(task, outcome)
        }
    }
}

fn finished(task: Option<&Task>, outcome: Option<&Outcome>) -> Result<Value, Failure> {
    let status = task.map(|t| t.status);
    let status_message = task.and_then(|t| t.status_message.clone());
    match (outcome, status) {
        (Some(Outcome::Error { error }), _) => Err(Failure {
            kind: FailureKind::Client(ErrorKind::Rpc),
            message: error.message.clone(),
            code: Some(error.code),
            data: error.data.clone(),
        }),
        (Some(Outcome::Result { result }), Some(TaskStatus::Failed | TaskStatus::Unknown)) => {
            let message = tool_text(result)
                .or(status_message)
                .unwrap_or_else(|| "the task failed".into());
            Err(Failure {
                data: Some(result.clone()),
                ..Failure::new(FailureKind::TaskFailed, message)
            })
        }
        (Some(Outcome::Result { result }), _) => Ok(result.clone()),
        (None, Some(TaskStatus::Cancelled)) => Err(Failure::new(
            FailureKind::Cancelled,
            status_message.unwrap_or_else(|| "the task was cancelled".into()),
        )),
        (None, Some(TaskStatus::Expired)) => Err(Failure::new(
            FailureKind::Expired,
            status_message.unwrap_or_else(|| "the task expired".into()),
        )),
        (None, Some(TaskStatus::Failed | TaskStatus::Unknown)) => Err(Failure::new(
            FailureKind::TaskFailed,
            status_message.unwrap_or_else(|| "the task failed".into()),
        )),
        (None, s) => Err(Failure::new(
            FailureKind::Client(ErrorKind::Protocol),
            match s {
                Some(s) => format!("the task ended ({s:?}) without a result"),
                None => "the request ended without a result".into(),
            },
        )),
    }
}

/// The text blocks of a `CallToolResult`'s `content`, one per line; `None` when there are none.
pub fn tool_text(result: &Value) -> Option<String> {
    let blocks = result.get("content")?.as_array()?;
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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

    #[test]
    fn a_completed_task_yields_its_result_even_with_is_error() {
        let r = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
        let end = finished(TaskStatus::Completed, None, result(r.clone()));
        assert_eq!(verdict(&end, None), Ok(r));
    }

    #[test]
    fn a_failed_task_carries_the_tools_own_text_over_the_status_message() {
        let r = json!({"content": [
            {"type": "text", "text": "disk full"},
            {"type": "image", "data": "", "mimeType": "image/png"},
            {"type": "text", "text": "on /tmp"}
        ], "isError": true});
        let end = finished(TaskStatus::Failed, Some("step 3 of 5"), result(r.clone()));
        let f = verdict(&end, None).unwrap_err();
        assert_eq!(f.kind, FailureKind::TaskFailed);
        assert_eq!(f.message, "disk full\non /tmp");
        assert_eq!(f.data, Some(r));
    }

    #[test]
    fn a_failed_task_without_text_falls_back_to_the_status_message_then_a_default() {
        let end = finished(
            TaskStatus::Failed,
            Some("boom"),
            result(json!({"content": []})),
        );
        assert_eq!(verdict(&end, None).unwrap_err().message, "boom");
        let end = finished(TaskStatus::Unknown, None, None);
        let f = verdict(&end, None).unwrap_err();
        assert_eq!(
            (f.kind, f.message.as_str()),
            (FailureKind::TaskFailed, "the task failed")
        );
    }

    #[test]
    fn an_rpc_outcome_is_an_rpc_failure_with_its_code_and_data() {
        let error = RpcError {
            data: Some(json!({"why": 1})),
            ..RpcError::new(-32602, "bad args")
        };
        let end = finished(TaskStatus::Failed, None, Some(Outcome::Error { error }));
        let f = verdict(&end, None).unwrap_err();
        assert_eq!(f.kind, FailureKind::Client(ErrorKind::Rpc));
        assert_eq!((f.code, f.message.as_str()), (Some(-32602), "bad args"));
        assert_eq!(f.data, Some(json!({"why": 1})));
    }

    #[test]
    fn cancelled_expired_and_stopped_have_their_own_kinds() {
        let kind = |end: End| verdict(&end, None).unwrap_err().kind;
        assert_eq!(
            kind(finished(TaskStatus::Cancelled, None, None)),
            FailureKind::Cancelled
        );
        assert_eq!(
            kind(finished(TaskStatus::Expired, None, None)),
            FailureKind::Expired
        );
        assert_eq!(kind(End::Aborted), FailureKind::Aborted);
        let failed = End::Failed {
            error: ClientError::new(ErrorKind::Transport, "down"),
        };
        assert_eq!(kind(failed), FailureKind::Client(ErrorKind::Transport));
    }

    #[test]
    fn the_last_snapshot_stands_in_for_a_missing_final_one() {
        let end = End::Finished {
            task: None,
            outcome: None,
        };
        let last = task(TaskStatus::Cancelled, None);
        assert_eq!(
            verdict(&end, Some(&last)).unwrap_err().kind,
            FailureKind::Cancelled
        );
        let f = verdict(&end, None).unwrap_err();
        assert_eq!(f.kind, FailureKind::Client(ErrorKind::Protocol));
    }

    #[test]
    fn tool_text_ignores_non_text_blocks_and_odd_shapes() {
        assert_eq!(tool_text(&json!({"content": "x"})), None);
        assert_eq!(tool_text(&json!({"content": [{"type": "text"}]})), None);
        assert_eq!(tool_text(&json!(42)), None);
    }
}
