//! What persistence and tab coordination carry between engines: a session snapshot (resumed by
//! the session's router) and one task's tracked state (exported and imported by the registry's).
//! A resumed engine keeps the legacy session its tasks are scoped to.

use crate::json::Value;
use serde::{Deserialize, Serialize};

use crate::protocol::model::{Dialect, Task};

use crate::engine::api::Millis;

/// What a later engine needs to continue an established session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    pub dialect: Dialect,
    pub protocol_version: String,
    /// The legacy `Mcp-Session-Id` (`None`: modern, or a server without sessions).
    pub session_id: Option<String>,
    pub capabilities: Value,
    pub server_info: Value,
}

/// One task's tracked state, as persisted between engines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSnapshot {
    pub task: Task,
    /// The server confirmed the task (an unknown id later means `expired`).
    pub known: bool,
    /// When the exporting engine last sent a status request (on import: the task's phase, kept
    /// when its next poll is at least one interval away).
    pub last_polled_at: Option<Millis>,
    /// Since when the task has had its status (the poll cadence's age counts from here).
    #[serde(default)]
    pub status_since: Option<Millis>,
    /// When the exporting engine meant to poll next (informational on import).
    pub next_poll_at: Option<Millis>,
    pub deadline: Option<Millis>,
    /// Export: input keys surfaced so far. Import: keys never to surface again (answered).
    #[serde(default)]
    pub input_keys: Vec<String>,
}

#[cfg(test)]
mod tests {
    use crate::json::json;

    use super::*;
    use crate::engine::api::{Config, DialectChoice, End, Event, Output};
    use crate::engine::Engine;
    use crate::protocol::model::TaskStatus;
    use crate::testkit::{Harness, T0};

    /// When each `tasks/get` went out, running the engine from `T0` to `until`.
    fn status_requests_until(e: &mut Engine, until: Millis) -> Vec<Millis> {
        let mut sent_at = Vec::new();
        let mut now = T0;
        while now <= until {
            match e.poll_output(now) {
                Output::Wake(at) => now = at.max(now + 1),
                Output::Transmit(t) if t.body.contains("tasks/get") => sent_at.push(now),
                _ => {}
            }
        }
        sent_at
    }

    fn finished_status(end: &End) -> Option<TaskStatus> {
        match end {
            End::Finished { task: Some(t), .. } => Some(t.status),
            _ => None,
        }
    }

    #[test]
    fn legacy_session_is_adopted_without_a_new_handshake() {
        for choice in [DialectChoice::Auto, DialectChoice::Legacy] {
            let mut h = Harness::new(choice, Dialect::Legacy, 7);
            let sub = h.call("job", json!({ "ms": 20_000 }));
            h.run_for(3_000);
            let id = h.task_of(sub).unwrap_or_default();
            assert!(!id.is_empty());
            let inits = h.count("initialize");
            assert!(h.hand_over(choice, std::slice::from_ref(&id)));
            let watcher = h.watch(&id);
            h.run_for(60_000);
            assert_eq!(h.count("initialize"), inits, "no second initialize");
            assert_eq!(
                h.count("server/discover"),
                if choice == DialectChoice::Auto { 1 } else { 0 }
            );
            assert_eq!(h.count("notifications/initialized"), 1);
            assert_eq!(
                finished_status(&h.done(watcher)),
                Some(TaskStatus::Completed)
            );
            assert_eq!(h.session_ends, 0, "detach never ends the session");
            assert!(h.violations.is_empty(), "{:?}", h.violations);
        }
    }

    #[test]
    fn modern_session_is_adopted() {
        let mut h = Harness::new(DialectChoice::Auto, Dialect::Modern, 3);
        let sub = h.call("job", json!({ "ms": 10_000 }));
        h.run_for(2_000);
        let id = h.task_of(sub).unwrap_or_default();
        assert!(h.hand_over(DialectChoice::Auto, std::slice::from_ref(&id)));
        assert_eq!(h.count("server/discover"), 1);
        let watcher = h.watch(&id);
        h.run_for(40_000);
        assert_eq!(
            finished_status(&h.done(watcher)),
            Some(TaskStatus::Completed)
        );
    }

    #[test]
    fn a_dead_adopted_session_is_reinitialized() {
        let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 11);
        let sub = h.call("job", json!({ "ms": 30_000 }));
        h.run_for(2_000);
        let id = h.task_of(sub).unwrap_or_default();
        h.server.kill_session();
        assert!(h.hand_over(DialectChoice::Legacy, std::slice::from_ref(&id)));
        let watcher = h.watch(&id);
        h.run_for(60_000);
        assert_eq!(h.count("initialize"), 2);
        // The task lived in the old session: once known, a forgotten id is `expired`.
        assert!(matches!(
            finished_status(&h.done(watcher)),
            Some(TaskStatus::Expired | TaskStatus::Completed)
        ));
    }

    #[test]
    fn a_resumed_legacy_session_sends_no_handshake() {
        let s = SessionSnapshot {
            dialect: Dialect::Legacy,
            protocol_version: "2025-11-25".into(),
            session_id: Some("sess-1".into()),
            capabilities: json!({ "tasks": { "requests": { "tools": { "call": {} } } } }),
            server_info: json!({ "name": "fake" }),
        };
        let Some(mut e) = Engine::resume(Config::default(), 1, T0, &s) else {
            panic!("a legacy snapshot fits `Auto`");
        };
        let mut outputs = Vec::new();
        loop {
            match e.poll_output(T0) {
                Output::Wake(_) => break,
                other => outputs.push(other),
            }
        }
        assert!(matches!(
            outputs.first(),
            Some(Output::Event(Event::Connected {
                dialect: Dialect::Legacy,
                ..
            }))
        ));
        assert!(
            outputs.iter().all(|o| !matches!(o, Output::Transmit(_))),
            "{outputs:?}"
        );
        assert!(
            matches!(outputs.get(1), Some(Output::Listen { headers, .. })
                if headers.iter().any(|(_, v)| v == "sess-1")),
            "{outputs:?}"
        );
        assert_eq!(e.session_snapshot(json!({ "name": "fake" })), Some(s));
    }

    #[test]
    fn adoption_refuses_a_mismatched_dialect() {
        let mut e = Engine::new(
            Config {
                dialect: DialectChoice::Legacy,
                ..Config::default()
            },
            1,
            T0,
        );
        let s = SessionSnapshot {
            dialect: Dialect::Modern,
            protocol_version: "2026-07-28".into(),
            session_id: None,
            capabilities: json!({}),
            server_info: json!({}),
        };
        assert!(!e.adopt_session(T0, &s));
        // Refused, the engine connects as it would have.
        let first = e.poll_output(T0);
        assert!(
            matches!(&first, Output::Transmit(t) if t.body.contains("\"initialize\"")),
            "{first:?}"
        );
        let legacy = Config {
            dialect: DialectChoice::Legacy,
            ..Config::default()
        };
        assert!(Engine::resume(legacy, 1, T0, &s).is_none());
        // The same snapshot fits `Auto`, also without the tasks extension (discover, then a
        // refused `initialize`).
        let mut e = Engine::new(Config::default(), 1, T0);
        assert!(e.adopt_session(T0, &s));
        assert_eq!(
            e.session_snapshot(json!({})).map(|a| a.capabilities),
            Some(json!({}))
        );
    }

    #[test]
    fn import_respects_the_last_poll_and_a_finished_task_settles_at_once() {
        let mut e = crate::testkit::modern_engine(Config::default(), 5);
        let mut done = Task::new("t-done", TaskStatus::Completed);
        done.outcome = Some(crate::protocol::model::Outcome::Result {
            result: json!({ "ok": true }),
        });
        let snap = |task: Task| TaskSnapshot {
            task,
            known: true,
            last_polled_at: Some(T0 - 500),
            status_since: None,
            next_poll_at: None,
            deadline: None,
            input_keys: vec!["ask".into()],
        };
        assert!(e.import_task(T0, snap(done)));
        let mut working = Task::new("t-run", TaskStatus::InputRequired);
        working.poll_interval_ms = Some(3_000);
        assert!(e.import_task(T0, snap(working.clone())));
        assert!(
            !e.import_task(T0, snap(working)),
            "a second import changes nothing"
        );
        let sub = e.watch(T0, "t-done");
        let run = e.watch(T0, "t-run");
        let mut dones = Vec::new();
        let mut sent_at = Vec::new();
        let mut now = T0;
        while now < T0 + 7_000 {
            match e.poll_output(now) {
                Output::Wake(at) => now = at.min(T0 + 7_000).max(now + 1),
                Output::Event(Event::Done { sub: s, end, .. }) => dones.push((s, end)),
                Output::Transmit(t) if t.body.contains("tasks/get") => sent_at.push(now),
                _ => {}
            }
        }
        assert_eq!(dones.len(), 1);
        assert_eq!(dones[0].0, sub);
        assert_eq!(e.task("t-run").map(|t| t.status), Some(TaskStatus::Working));
        assert_eq!(
            e.export_task("t-run").map(|s| s.input_keys),
            Some(vec!["ask".to_owned()])
        );
        // A 3 s interval: the exporter may have polled until the import, so the first poll waits
        // one interval, plus a random part of the (young) task's 3 s gap.
        let first = sent_at.first().copied().unwrap_or(0);
        assert!((T0 + 3_000..=T0 + 6_000).contains(&first), "{}", first - T0);
        e.unsubscribe(now, run);
    }

    #[test]
    fn an_import_polled_lately_keeps_the_exporter_s_phase() {
        let mut e = crate::testkit::modern_engine(Config::default(), 8);
        // A minute old: a 6 s gap at a 2 s interval. Polled by the exporter at the hand-over or
        // up to 4 s before it, each task is polled next 6 s after that poll; 4.5 s before it, its
        // next poll would come sooner than one interval after the import: it is spread.
        for i in 0..10u64 {
            let mut t = Task::new(format!("t{i}"), TaskStatus::Working);
            t.poll_interval_ms = Some(2_000);
            let snap = TaskSnapshot {
                task: t,
                known: true,
                last_polled_at: Some(T0 - 500 * i),
                status_since: Some(T0 - 60_000),
                next_poll_at: None,
                deadline: None,
                input_keys: Vec::new(),
            };
            assert!(e.import_task(T0, snap));
            e.watch(T0, &format!("t{i}"));
        }
        let mut sent_at: Vec<_> = status_requests_until(&mut e, T0 + 9_000)
            .iter()
            .map(|t| t - T0)
            .collect();
        sent_at.sort_unstable();
        assert_eq!(sent_at.len(), 10, "{sent_at:?}");
        for i in 0..9 {
            assert!(sent_at.contains(&(6_000 - 500 * i)), "{i}: {sent_at:?}");
        }
        assert!(sent_at.iter().all(|&t| t >= 2_000), "{sent_at:?}");
    }

    #[test]
    fn imports_wait_one_interval_and_spread_over_one_gap() {
        let mut e = crate::testkit::modern_engine(Config::default(), 8);
        for i in 0..20 {
            let mut t = Task::new(format!("t{i}"), TaskStatus::Working);
            t.poll_interval_ms = Some(2_000);
            let snap = TaskSnapshot {
                task: t,
                known: true,
                last_polled_at: if i % 2 == 0 { None } else { Some(T0 - 60_000) },
                status_since: None,
                next_poll_at: None,
                deadline: None,
                input_keys: Vec::new(),
            };
            assert!(e.import_task(T0, snap));
            e.watch(T0, &format!("t{i}"));
        }
        let sent_at = status_requests_until(&mut e, T0 + 4_000);
        assert_eq!(sent_at.len(), 20, "every task polled once: {sent_at:?}");
        assert!(sent_at.iter().all(|t| *t >= T0 + 2_000), "{sent_at:?}");
        let distinct: std::collections::BTreeSet<_> = sent_at.iter().collect();
        assert!(distinct.len() >= 15, "not all in one tick: {sent_at:?}");
    }
}
