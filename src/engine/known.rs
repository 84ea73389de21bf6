//! What the engine keeps of a task's latest snapshot: a [`Task`] without its id (the entry is
//! found by it), the fields most snapshots carry inline and the rarely present ones boxed
//! together, and timestamps as the instant they name when their text is the canonical one. Ten
//! thousand running tasks then cost a few dozen bytes each here, not a whole `Task` and a copy of
//! its id.

use crate::protocol::model::{InputRequest, Outcome, Task, TaskStatus};

use super::api::Millis;
use super::iso8601::{canonical_millis, format_millis, parse_millis};

/// A timestamp as the server sent it: the instant, when the text is exactly how
/// [`format_millis`] writes it (`2026-12-01T17:05:51.000Z`), else the text verbatim.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stamp {
    At(Millis),
    Text(Box<str>),
}

impl Stamp {
    fn new(text: String) -> Stamp {
        match canonical_millis(&text) {
            Some(at) => Stamp::At(at),
            None => Stamp::Text(text.into_boxed_str()),
        }
    }

    /// The text the server sent.
    fn text(&self) -> String {
        match self {
            Stamp::At(at) => format_millis(*at),
            Stamp::Text(text) => String::from(&**text),
        }
    }

    /// The instant it names, when it is a timestamp at all.
    pub(crate) fn millis(&self) -> Option<Millis> {
        match self {
            Stamp::At(at) => Some(*at),
            Stamp::Text(text) => parse_millis(text),
        }
    }
}

/// A task's latest snapshot, compact.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Known {
    pub(crate) status: TaskStatus,
    pub(crate) ttl_ms: Option<Millis>,
    pub(crate) poll_interval_ms: Option<Millis>,
    pub(crate) created_at: Option<Stamp>,
    pub(crate) last_updated_at: Option<Stamp>,
    /// Inline: a server that reports progress sends one with every status.
    status_message: Option<Box<str>>,
    rare: Option<Box<Rare>>,
}

/// The parts of a snapshot most tasks never have while they run.
#[derive(Debug, Clone, Default, PartialEq)]
struct Rare {
    keep_alive_ms: Option<Millis>,
    outcome: Option<Outcome>,
    input_requests: Vec<InputRequest>,
}

/// What a snapshot without rare parts has of them.
static NONE: Rare = Rare {
    keep_alive_ms: None,
    outcome: None,
    input_requests: Vec::new(),
};

impl Known {
    /// The snapshot kept of `t` (its id dropped).
    pub(crate) fn new(t: Task) -> Known {
        let rare = Rare {
            keep_alive_ms: t.keep_alive_ms,
            outcome: t.outcome,
            input_requests: t.input_requests,
        };
        Known {
            status: t.status,
            ttl_ms: t.ttl_ms,
            poll_interval_ms: t.poll_interval_ms,
            created_at: t.created_at.map(Stamp::new),
            last_updated_at: t.last_updated_at.map(Stamp::new),
            status_message: t.status_message.map(String::into_boxed_str),
            rare: (rare != NONE).then(|| Box::new(rare)),
        }
    }

    /// The snapshot as a [`Task`] with id `task_id`.
    pub(crate) fn task(&self, task_id: &str) -> Task {
        Task {
            task_id: task_id.to_owned(),
            status: self.status,
            status_message: self.status_message.as_deref().map(str::to_owned),
            created_at: self.created_at.as_ref().map(Stamp::text),
            last_updated_at: self.last_updated_at.as_ref().map(Stamp::text),
            ttl_ms: self.ttl_ms,
            keep_alive_ms: self.keep_alive_ms(),
            poll_interval_ms: self.poll_interval_ms,
            outcome: self.outcome().cloned(),
            input_requests: self.input_requests().to_vec(),
        }
    }

    fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NONE)
    }

    pub(crate) fn keep_alive_ms(&self) -> Option<Millis> {
        self.rare().keep_alive_ms
    }

    pub(crate) fn outcome(&self) -> Option<&Outcome> {
        self.rare().outcome.as_ref()
    }

    pub(crate) fn input_requests(&self) -> &[InputRequest] {
        &self.rare().input_requests
    }

    /// Sets the outcome when none is known.
    pub(crate) fn keep_outcome(&mut self, outcome: Option<&Outcome>) {
        if let (None, Some(o)) = (self.outcome(), outcome) {
            self.rare.get_or_insert_with(Box::default).outcome = Some(o.clone());
        }
    }

    /// Whether a subscriber would see a change from `self` to `new` (`lastUpdatedAt` alone is
    /// none).
    pub(crate) fn differs(&self, new: &Known) -> bool {
        self.status != new.status
            || self.ttl_ms != new.ttl_ms
            || self.poll_interval_ms != new.poll_interval_ms
            || self.status_message != new.status_message
            || self.rare() != new.rare()
    }

    /// Fields `new` omits keep the value they had here (the status message and input requests
    /// are what `new` says).
    pub(crate) fn fill(&self, new: &mut Task) {
        if new.created_at.is_none() {
            new.created_at = self.created_at.as_ref().map(Stamp::text);
        }
        new.ttl_ms = new.ttl_ms.or(self.ttl_ms);
        new.keep_alive_ms = new.keep_alive_ms.or(self.keep_alive_ms());
        new.poll_interval_ms = new.poll_interval_ms.or(self.poll_interval_ms);
        if new.outcome.is_none() {
            new.outcome = self.outcome().cloned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_comes_back_as_it_was_kept() {
        let mut t = Task::new("t1", TaskStatus::InputRequired);
        t.created_at = Some("2025-01-01T00:00:00Z".into());
        t.last_updated_at = Some("2025-01-01T00:00:01Z".into());
        t.ttl_ms = Some(60_000);
        t.poll_interval_ms = Some(2_000);
        t.status_message = Some("waiting".into());
        t.keep_alive_ms = Some(5_000);
        t.outcome = Some(Outcome::Result {
            result: json!({"ok": true}),
        });
        t.input_requests = vec![InputRequest {
            key: "k".into(),
            method: "roots/list".into(),
            params: json!({}),
        }];
        assert_eq!(Known::new(t.clone()).task("t1"), t);
        let canonical = "2026-12-01T17:05:51.250Z";
        t.created_at = Some(canonical.into());
        let kept = Known::new(t.clone());
        assert_eq!(kept.created_at, Some(Stamp::At(1_796_144_751_250)));
        assert_eq!(
            kept.last_updated_at,
            Some(Stamp::Text("2025-01-01T00:00:01Z".into()))
        );
        assert_eq!(kept.task("t1"), t, "both come back verbatim");
        let mut plain = Task::new("t2", TaskStatus::Working);
        plain.status_message = Some("step 3".into());
        let kept = Known::new(plain.clone());
        assert!(kept.rare.is_none(), "nothing rare, nothing boxed");
        assert_eq!(kept.task("t2"), plain);
    }

    #[test]
    fn only_what_a_subscriber_sees_differs() {
        let mut t = Task::new("t", TaskStatus::Working);
        let before = Known::new(t.clone());
        t.last_updated_at = Some("2025-01-01T00:00:09Z".into());
        assert!(!before.differs(&Known::new(t.clone())));
        t.status_message = Some("half way".into());
        assert!(before.differs(&Known::new(t)));
    }
}
