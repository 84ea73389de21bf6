//! Where a tracked task stands in its life, from its first mention to its delivered end.

use crate::engine::api::ClientError;

/// A task's phase. The snapshot's status says how the server sees the task; the phase says what
/// the engine still owes it: a confirmation, a last poll past the deadline, its outcome.
/// A task is in [`Phase::Ending`] or [`Phase::Ended`] exactly when its status is terminal.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Phase {
    /// Tracked, not confirmed by the server: a task the requestor named (draft), or a watched id
    /// no answer mentioned yet. An unknown id now means a wrong id, not an expired task.
    #[default]
    Unconfirmed,
    /// Confirmed by the server and running: an unknown id afterwards means `expired`.
    Running,
    /// Its deadline passed while it ran: one last poll decides between its real end and
    /// `expired`. `confirmed`: as in [`Phase::Running`]; an unconfirmed task stays so, and an
    /// unknown id still means a wrong id.
    LastPoll { confirmed: bool },
    /// Ended, its outcome still to be had. `waited_original`: the original request (draft)
    /// had its bounded chance to carry it.
    Ending { waited_original: bool },
    /// Ended, and getting its outcome is over: had, asked for a last time, or given up.
    /// `error`: a completed task whose outcome cannot be had; its subscribers end with it.
    /// (Boxed: rare, and every task has a phase.)
    Ended { error: Option<Box<ClientError>> },
}

impl Phase {
    /// The server confirmed the task at least once.
    pub(crate) fn confirmed(&self) -> bool {
        !matches!(
            self,
            Phase::Unconfirmed | Phase::LastPoll { confirmed: false }
        )
    }

    /// Whether the task runs within its deadline (confirmed or not).
    pub(super) fn runs_in_time(&self) -> bool {
        matches!(self, Phase::Unconfirmed | Phase::Running)
    }

    /// The server confirmed the task; `true` when this is news.
    pub(super) fn confirm(&mut self) -> bool {
        match self {
            Phase::Unconfirmed => *self = Phase::Running,
            Phase::LastPoll { confirmed } if !*confirmed => *confirmed = true,
            _ => return false,
        }
        true
    }

    /// Its deadline passed while it ran: its last poll is due.
    pub(super) fn last_poll(&mut self) {
        if self.runs_in_time() {
            *self = Phase::LastPoll {
                confirmed: self.confirmed(),
            };
        }
    }

    /// Its deadline moved on during the last poll: it runs again, as confirmed as it was.
    pub(super) fn resume(&mut self) {
        if let Phase::LastPoll { confirmed } = *self {
            *self = if confirmed {
                Phase::Running
            } else {
                Phase::Unconfirmed
            };
        }
    }

    /// Its first terminal status was seen: its outcome is to be had.
    pub(super) fn end(&mut self) {
        if !matches!(self, Phase::Ending { .. } | Phase::Ended { .. }) {
            *self = Phase::Ending {
                waited_original: false,
            };
        }
    }

    /// Getting an ended task's outcome is over; `error` (when given) is what its subscribers
    /// end with, else an error recorded before stays. Nothing changes for a running task.
    pub(super) fn finish(&mut self, error: Option<ClientError>) {
        match self {
            Phase::Ended { error: Some(_) } if error.is_none() => {}
            Phase::Ending { .. } | Phase::Ended { .. } => {
                *self = Phase::Ended {
                    error: error.map(Box::new),
                }
            }
            Phase::Unconfirmed | Phase::Running | Phase::LastPoll { .. } => {}
        }
    }

    /// The last status request for an ended task's outcome failed: it is to be had again.
    pub(super) fn reopen(&mut self) {
        if matches!(self, Phase::Ended { error: None }) {
            *self = Phase::Ending {
                waited_original: false,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::api::ErrorKind;

    #[test]
    fn a_task_is_confirmed_once_and_ends_once() {
        let mut p = Phase::default();
        assert!(!p.confirmed());
        assert!(p.confirm());
        assert!(!p.confirm());
        assert_eq!(p, Phase::Running);
        p.end();
        p.finish(None);
        p.end();
        assert_eq!(p, Phase::Ended { error: None });
        assert!(p.confirmed() && !p.runs_in_time());
    }

    #[test]
    fn the_last_poll_keeps_whether_the_server_confirmed_the_task() {
        for confirmed in [false, true] {
            let mut p = Phase::Unconfirmed;
            if confirmed {
                p.confirm();
            }
            p.last_poll();
            assert_eq!(p, Phase::LastPoll { confirmed });
            assert_eq!((p.confirmed(), p.runs_in_time()), (confirmed, false));
            p.resume();
            assert_eq!(p.confirmed(), confirmed);
            assert!(p.runs_in_time());
        }
        let mut p = Phase::Unconfirmed;
        p.last_poll();
        assert!(p.confirm(), "confirmed during the last poll");
        assert_eq!(p, Phase::LastPoll { confirmed: true });
        let mut ended = Phase::Ending {
            waited_original: false,
        };
        ended.last_poll();
        assert!(matches!(ended, Phase::Ending { .. }));
    }

    #[test]
    fn finishing_keeps_an_error_and_leaves_a_running_task_alone() {
        let error = ClientError::new(ErrorKind::ResultUnavailable, "gone");
        let mut running = Phase::LastPoll { confirmed: true };
        running.finish(Some(error.clone()));
        assert_eq!(running, Phase::LastPoll { confirmed: true });
        let mut p = Phase::Ending {
            waited_original: true,
        };
        p.finish(Some(error.clone()));
        p.finish(None);
        p.reopen();
        assert_eq!(
            p,
            Phase::Ended {
                error: Some(Box::new(error))
            }
        );
        let mut asked = Phase::Ended { error: None };
        asked.reopen();
        assert_eq!(
            asked,
            Phase::Ending {
                waited_original: false
            }
        );
    }
}
