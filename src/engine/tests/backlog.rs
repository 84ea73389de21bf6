//! Ten thousand calls at once on a browser's HTTP/1.1 link (6 connections): the engine hands the
//! browser at most [`HANDED_CAP`] transmissions and keeps the rest, in order, with their timeouts
//! not yet running; every call, poll, result and input answer still goes out.

use std::collections::HashMap;

use serde_json::json;

use super::faults::{ended_completed, legacy};
use crate::engine::api::{End, Event, SubId};
use crate::engine::pool::HANDED_CAP;

const CALLS: usize = 10_000;

#[test]
fn ten_thousand_calls_keep_the_browser_queue_short_and_all_complete() {
    // Request timeout 5 s: the last calls wait in the engine far longer than that.
    let mut h = legacy(14);
    h.record = false;
    h.pool = Some(6);
    h.latency = (1, 4);
    let subs: Vec<SubId> = (0..CALLS)
        .map(|i| {
            let input = i % 100 == 0;
            h.call(
                "job",
                json!({ "ms": 1_000, "interval": 2_000, "input": input }),
            )
        })
        .collect();
    // Unrecorded, the log keeps only the `Done`s.
    let mut peak_held = 0;
    for _ in 0..400 {
        h.run_for(500);
        peak_held = peak_held.max(h.engine.pool.backlog.len());
        if h.events.len() >= CALLS {
            break;
        }
    }
    assert!(
        peak_held > CALLS / 2,
        "the burst waited in the engine: {peak_held}"
    );
    assert!(
        h.max_handed <= HANDED_CAP,
        "the browser held {} transmissions at once",
        h.max_handed
    );
    assert!(h.violations.is_empty(), "{:?}", &h.violations[..1]);
    let mut ends: HashMap<SubId, Vec<&End>> = HashMap::new();
    for e in &h.events {
        if let Event::Done { sub, end, .. } = e {
            ends.entry(*sub).or_default().push(end);
        }
    }
    let unfinished = subs
        .iter()
        .filter(|s| !matches!(ends.get(s).map(Vec::as_slice), Some([end]) if ended_completed(end)))
        .count();
    assert_eq!(
        unfinished, 0,
        "each call ends once, completed (inputs answered)"
    );
    let calls: Vec<u64> = h
        .sent
        .iter()
        .filter(|s| s.method == "tools/call")
        .map(|s| s.key.0)
        .collect();
    assert_eq!(calls.len(), CALLS);
    assert!(
        calls.windows(2).all(|w| w[0] < w[1]),
        "first come, first served"
    );
    assert_eq!(h.engine.pool.backlog.len(), 0);
}
