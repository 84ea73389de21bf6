//! A held `tasks/result` cut on the way (a proxy answering 504 after its read timeout) is held
//! again at once, with one warning per task; cuts that come quickly are held again only after
//! the error backoff.

use crate::json::json;

use crate::engine::api::{ErrorKind, Event, Link, Millis};
use crate::engine::tests::push::{completed, completed_at, legacy_on, results_of};
use crate::testkit::Harness;

/// The warnings about `task_id` with an HTTP status.
fn http_warnings(h: &Harness, task_id: &str) -> Vec<Option<u16>> {
    (h.events.iter())
        .filter_map(|e| match e {
            Event::Warning {
                task_id: Some(t),
                error,
            } if t == task_id && error.kind == ErrorKind::Transport => Some(error.http_status),
            _ => None,
        })
        .collect()
}

#[test]
fn a_held_result_cut_by_a_proxy_is_held_again_at_once() {
    let mut h = legacy_on(Link::Node, 101);
    h.server.faults.cut_held_after = 60_000;
    let sub = h.call("job", json!({ "ms": 150_000, "ttl": null }));
    h.run_for(1_000);
    let id = h.task_of(sub).unwrap_or_default();
    let ends = h.server.tasks.get(&id).map_or(0, |t| t.created) + 150_000;
    h.run_for(200_000);
    assert!(completed(&h, sub), "{:?}", h.done(sub));
    let seen = completed_at(&h, &id).unwrap_or(Millis::MAX);
    assert!(seen <= ends + 100, "seen {} ms after the end", seen - ends);
    // Held at about 1 s, cut at 61 s and 121 s, each time held again at once.
    let results = results_of(&h, &id);
    assert_eq!(results.len(), 3, "{results:?}");
    for pair in results.windows(2) {
        let gap = pair[1] - pair[0];
        assert!((60_000..=60_500).contains(&gap), "{results:?}");
    }
    assert_eq!(http_warnings(&h, &id), [Some(504)]);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}

#[test]
fn held_results_cut_quickly_are_held_again_after_the_backoff() {
    let mut h = legacy_on(Link::Node, 102);
    h.server.faults.cut_held_after = 200;
    let sub = h.call("job", json!({ "ms": 120_000, "ttl": null }));
    h.run_for(1_000);
    let id = h.task_of(sub).unwrap_or_default();
    h.run_for(150_000);
    assert!(completed(&h, sub), "{:?}", h.done(sub));
    let results = results_of(&h, &id);
    // The backoff doubles up to 30 s: a handful of holds in two minutes, not one a second.
    assert!((3..=12).contains(&results.len()), "{results:?}");
    for pair in results.windows(2) {
        assert!(pair[1] - pair[0] >= 500, "{results:?}");
    }
    assert_eq!(http_warnings(&h, &id), [Some(504)]);
    assert!(h.violations.is_empty(), "{:?}", h.violations);
}
