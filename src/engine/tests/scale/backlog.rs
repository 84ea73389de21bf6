//! Ten thousand calls at once on a browser's HTTP/1.1 link (6 connections): the engine hands the
//! browser at most [`HANDED_CAP`] transmissions and keeps the rest, in order, with their timeouts
//! not yet running; every call, poll, result and input answer still goes out.

use std::collections::HashMap;

use crate::json::json;

use crate::engine::api::{Config, End, Event, Input, Millis, Output, SendKey, SubId};
use crate::engine::requests::pool::HANDED_CAP;
use crate::engine::tests::faults::{ended_completed, legacy, polled_legacy};
use crate::engine::Engine;
use crate::testkit::{modern_engine, T0};

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

#[test]
fn status_polls_go_in_the_background_so_results_take_free_connections_first() {
    let mut h = polled_legacy(15);
    h.pool = Some(6);
    h.latency = (1, 4);
    let subs: Vec<SubId> = (0..20)
        .map(|_| h.call("job", json!({ "ms": 3_000, "interval": 1_000 })))
        .collect();
    h.run_for(6_000);
    assert!(subs.iter().all(|s| ended_completed(&h.done(*s))));
    let (polls, others): (Vec<_>, Vec<_>) = h.sent.iter().partition(|s| s.method == "tasks/get");
    assert!(polls.len() >= 40 && polls.iter().all(|s| s.background));
    let results = others.iter().filter(|s| s.method == "tasks/result").count();
    assert_eq!(results, 20);
    assert!(
        others.iter().all(|s| !s.background),
        "{:?}",
        others.iter().find(|s| s.background).map(|s| s.line())
    );
}

/// Transmissions the engine made at `now` (keys), and the streams it aborted.
fn outputs(e: &mut Engine, now: Millis) -> (Vec<SendKey>, Vec<SendKey>) {
    let (mut sent, mut aborted) = (Vec::new(), Vec::new());
    loop {
        match e.poll_output(now) {
            Output::Wake(_) => return (sent, aborted),
            Output::Transmit(t) => sent.push(t.key),
            Output::Abort { key } => aborted.push(key),
            _ => {}
        }
    }
}

/// Polls beyond what the browser may hold wait in the engine; one that goes out onto a free
/// connection has its timeout run from then: given no answer, it is closed one timeout later.
#[test]
fn a_kept_poll_times_out_from_when_it_goes_out() {
    let mut e = modern_engine(Config::default(), 3);
    for i in 0..=HANDED_CAP {
        e.watch(T0, &format!("t{i}"));
    }
    let (first, _) = outputs(&mut e, T0);
    assert!(first.len() <= HANDED_CAP, "some kept: {}", first.len());
    let later = T0 + 30_000;
    for key in &first {
        e.handle_input(later, Input::Ended { key: *key });
    }
    // The kept ones go out first.
    let (mut kept, _) = outputs(&mut e, later);
    kept.truncate(HANDED_CAP + 1 - first.len());
    assert!(!kept.is_empty() && kept.iter().all(|k| !first.contains(k)));
    let timeout = Config::default().request_timeout_ms;
    let (_, aborted) = outputs(&mut e, later + timeout - 1);
    assert!(kept.iter().all(|k| !aborted.contains(k)), "started late");
    let (_, aborted) = outputs(&mut e, later + timeout);
    assert!(
        kept.iter().all(|k| aborted.contains(k)),
        "timed out: {aborted:?}"
    );
}

/// Ten thousand polls due at once while the browser holds its fill: each waits in the engine as
/// its task's slot, not as a request (no id, no pending entry, no body), and every task's poll
/// goes out in its turn.
#[test]
fn due_polls_wait_as_slots_and_all_go_out() {
    const TASKS: usize = 10_000;
    let mut e = modern_engine(Config::default(), 3);
    for i in 0..TASKS {
        e.watch(T0, &format!("t{i}"));
    }
    let mut now = T0;
    let mut polled = std::collections::HashSet::new();
    for round in 0..TASKS {
        let mut sent = Vec::new();
        while let Some(out) = Some(e.poll_output(now)).filter(|o| !matches!(o, Output::Wake(_))) {
            if let Output::Transmit(t) = out {
                let id = t
                    .body
                    .split("\"taskId\":\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next());
                polled.extend(id.map(str::to_owned));
                sent.push(t.key);
            }
        }
        assert!(sent.len() <= HANDED_CAP, "handed {}", sent.len());
        if round == 0 {
            // Requests: those handed, and those made before the first poll had to wait.
            assert_eq!(e.pool.backlog.len(), TASKS - sent.len());
            assert!(
                e.reqs.len() <= 2 * HANDED_CAP,
                "{} requests open",
                e.reqs.len()
            );
        }
        if polled.len() == TASKS {
            return;
        }
        now += 10;
        for key in sent {
            e.handle_input(now, Input::Ended { key });
        }
    }
    panic!("polled {} of {TASKS} tasks", polled.len());
}
