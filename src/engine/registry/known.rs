//! What the engine keeps of a task's latest snapshot: a [`Task`] without its id (the entry is
//! found by it), the fields most snapshots carry inline and the rarely present ones boxed
//! together, numbers without option tags (one byte says which are present), and timestamps as
//! the instant they name when their text is the canonical one. Ten thousand running tasks then
//! cost a few dozen bytes each here, not a whole `Task` and a copy of its id.

use std::rc::Rc;

use crate::protocol::model::{InputRequest, Outcome, Task, TaskStatus};

use super::iso8601::{canonical_millis, format_millis, parse_millis};
use crate::engine::api::Millis;

/// Presence bits of [`Known`]'s inline numbers.
const TTL: u8 = 1;
const POLL_INTERVAL: u8 = 2;
const CREATED: u8 = 4;
const UPDATED: u8 = 8;

/// A task's latest snapshot, compact.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Known {
    pub(crate) status: TaskStatus,
    /// Which of the numbers below are present (an absent one is 0).
    has: u8,
    ttl_ms: Millis,
    poll_interval_ms: Millis,
    /// The instants of `createdAt` and `lastUpdatedAt` written canonically (as [`format_millis`]
    /// writes them, `2026-12-01T17:05:51.000Z`); other texts are kept verbatim in `texts`.
    created_at: Millis,
    last_updated_at: Millis,
    /// Inline: a server that reports progress sends one with every status.
    status_message: Option<Box<str>>,
    texts: Option<Box<Texts>>,
    rare: Option<Box<Rare>>,
}

/// Timestamps not written canonically, verbatim (a server writes all its own one way).
#[derive(Debug, Clone, Default, PartialEq)]
struct Texts {
    created: Option<Box<str>>,
    updated: Option<Box<str>>,
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

/// What a snapshot with canonical timestamps has of their texts.
static CANONICAL: Texts = Texts {
    created: None,
    updated: None,
};

/// A timestamp's instant when its text is canonical, else the text itself.
fn stamp(text: Option<String>) -> (Option<Millis>, Option<Box<str>>) {
    match text {
        None => (None, None),
        Some(t) => match canonical_millis(&t) {
            Some(at) => (Some(at), None),
            None => (None, Some(t.into_boxed_str())),
        },
    }
}

impl Known {
    /// The snapshot kept of `t` (its id dropped).
    pub(crate) fn new(t: Task) -> Known {
        let (created_at, created) = stamp(t.created_at);
        let (last_updated_at, updated) = stamp(t.last_updated_at);
        let texts = Texts { created, updated };
        let rare = Rare {
            keep_alive_ms: t.keep_alive_ms,
            outcome: t.outcome,
            input_requests: t.input_requests,
        };
        let mut has = 0;
        let mut put = |bit: u8, v: Option<Millis>| {
            has |= if v.is_some() { bit } else { 0 };
            v.unwrap_or(0)
        };
        Known {
            status: t.status,
            ttl_ms: put(TTL, t.ttl_ms),
            poll_interval_ms: put(POLL_INTERVAL, t.poll_interval_ms),
            created_at: put(CREATED, created_at),
            last_updated_at: put(UPDATED, last_updated_at),
            has,
            status_message: t.status_message.map(String::into_boxed_str),
            texts: (texts != CANONICAL).then(|| Box::new(texts)),
            rare: (rare != NONE).then(|| Box::new(rare)),
        }
    }

    /// The snapshot as a [`Task`] with id `task_id`.
    pub(crate) fn task(&self, task_id: &str) -> Task {
        let (rare, texts) = (self.rare(), self.texts());
        Task {
            task_id: task_id.to_owned(),
            status: self.status,
            status_message: self.status_message.as_deref().map(str::to_owned),
            created_at: self.text(CREATED, self.created_at, &texts.created),
            last_updated_at: self.text(UPDATED, self.last_updated_at, &texts.updated),
            ttl_ms: self.ttl_ms(),
            keep_alive_ms: rare.keep_alive_ms,
            poll_interval_ms: self.poll_interval_ms(),
            outcome: rare.outcome.clone(),
            input_requests: rare.input_requests.clone(),
        }
    }

    /// The number under presence bit `bit`.
    fn get(&self, bit: u8, v: Millis) -> Option<Millis> {
        (self.has & bit != 0).then_some(v)
    }

    /// A timestamp's text as the server sent it.
    fn text(&self, bit: u8, at: Millis, verbatim: &Option<Box<str>>) -> Option<String> {
        match self.get(bit, at) {
            Some(at) => Some(format_millis(at)),
            None => verbatim.as_deref().map(str::to_owned),
        }
    }

    fn texts(&self) -> &Texts {
        self.texts.as_deref().unwrap_or(&CANONICAL)
    }

    fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NONE)
    }

    pub(super) fn ttl_ms(&self) -> Option<Millis> {
        self.get(TTL, self.ttl_ms)
    }

    pub(super) fn poll_interval_ms(&self) -> Option<Millis> {
        self.get(POLL_INTERVAL, self.poll_interval_ms)
    }

    /// The instant `createdAt` names, when it is a timestamp at all.
    pub(super) fn created_millis(&self) -> Option<Millis> {
        let text = self.texts().created.as_deref();
        self.get(CREATED, self.created_at)
            .or_else(|| text.and_then(parse_millis))
    }

    pub(super) fn keep_alive_ms(&self) -> Option<Millis> {
        self.rare().keep_alive_ms
    }

    pub(crate) fn outcome(&self) -> Option<&Outcome> {
        self.rare().outcome.as_ref()
    }

    pub(crate) fn input_requests(&self) -> &[InputRequest] {
        &self.rare().input_requests
    }

    /// Sets the outcome of `known` when none is known: a new snapshot, as hosts may hold the old one.
    pub(super) fn keep_outcome(known: &mut Rc<Known>, outcome: Option<&Outcome>) {
        if let (None, Some(o)) = (known.outcome(), outcome) {
            let mut kept = Known::clone(known);
            kept.rare.get_or_insert_with(Box::default).outcome = Some(o.clone());
            *known = Rc::new(kept);
        }
    }

    /// Whether a subscriber would see a change from `self` to `new` (`lastUpdatedAt` alone is
    /// none).
    pub(super) fn differs(&self, new: &Known) -> bool {
        self.status != new.status
            || self.ttl_ms() != new.ttl_ms()
            || self.poll_interval_ms() != new.poll_interval_ms()
            || self.status_message != new.status_message
            || self.rare() != new.rare()
    }

    /// Fields `new` omits keep the value they had here (the status message and input requests
    /// are what `new` says).
    pub(super) fn fill(&self, new: &mut Task) {
        if new.created_at.is_none() {
            new.created_at = self.text(CREATED, self.created_at, &self.texts().created);
        }
        new.ttl_ms = new.ttl_ms.or(self.ttl_ms());
        new.keep_alive_ms = new.keep_alive_ms.or(self.keep_alive_ms());
        new.poll_interval_ms = new.poll_interval_ms.or(self.poll_interval_ms());
        if new.outcome.is_none() {
            new.outcome = self.outcome().cloned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

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
        assert_eq!(kept.created_millis(), Some(1_796_144_751_250));
        assert_eq!(kept.texts().created, None, "canonical: kept as its instant");
        assert_eq!(
            kept.texts().updated.as_deref(),
            Some("2025-01-01T00:00:01Z")
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
