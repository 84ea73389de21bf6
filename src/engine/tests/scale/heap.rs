//! What the engine holds per tracked task: 2,000 running tasks created at once, each polled a
//! few times, weighed by dropping the engine (its heap alone, not the fake server's); and that
//! creating 10,000 on a browser's HTTP/1.1 link peaks no higher than what is left once they
//! run (a wasm page's memory never shrinks: a transient peak stays as growth). Sizes are native
//! (64-bit pointers); on wasm32 they are smaller.

use crate::json::json;

use crate::engine::api::DialectChoice;
use crate::engine::{Config, Engine};
use crate::protocol::model::Dialect;
use crate::testkit::heap::{held_by, peak_above, peak_from_here};
use crate::testkit::Harness;

const TASKS: usize = 2_000;

fn per_task(choice: DialectChoice, server: Dialect) -> usize {
    let mut h = Harness::new(choice, server, 3);
    h.record = false;
    for _ in 0..TASKS {
        h.call(
            "job",
            json!({ "ms": 3_600_000, "interval": 1_000, "ttl": 3_600_000 }),
        );
    }
    h.run_for(5_000);
    let engine = std::mem::replace(&mut h.engine, Engine::new(Config::default(), 0, 0));
    held_by(engine) / TASKS
}

/// Bounds with some room over today's 597 B (legacy) and 656 B (modern): a burst's spare room
/// kept after it, or a per-task copy of something shared, shows here.
#[test]
fn heap_per_tracked_task() {
    let legacy = per_task(DialectChoice::Legacy, Dialect::Legacy);
    let modern = per_task(DialectChoice::Modern, Dialect::Modern);
    println!("engine heap per tracked task ({TASKS} tasks, 64-bit): legacy {legacy} B, modern {modern} B");
    assert!(legacy <= 680, "legacy: {legacy} B per task");
    assert!(modern <= 740, "modern: {modern} B per task");
}

/// What the engine holds per task (kept) and at its peak (less what the fake server and the
/// harness hold at the end) after 10,000 tasks were created 64 at a time (as a page awaiting each
/// creation does), a batch every `pace` ms, on a 6-connection link, then polled for `then` ms.
fn create_ten_thousand(dialect: Dialect, pace: u64, then: u64) -> (usize, usize) {
    const MANY: usize = 10_000;
    let choice = match dialect {
        Dialect::Modern => DialectChoice::Modern,
        _ => DialectChoice::Legacy,
    };
    let mut h = Harness::new(choice, dialect, 3);
    h.record = false;
    h.pool = Some(6);
    h.latency = (5, 15);
    h.run_for(1_000);
    let base = peak_from_here();
    let mut made = 0;
    while made < MANY {
        for _ in 0..64.min(MANY - made) {
            let args = json!({ "ms": 3_600_000, "interval": 20_000, "ttl": 3_600_000 });
            h.call("job", args);
            made += 1;
        }
        h.run_for(pace);
    }
    h.run_for(then);
    let peak = peak_above(base) / MANY;
    let engine = std::mem::replace(&mut h.engine, Engine::new(Config::default(), 0, 0));
    let kept = held_by(engine) / MANY;
    let rest = held_by(h) / MANY;
    (kept, peak.saturating_sub(rest))
}

/// Created quickly (in 23 s): the engine's heap at its peak is what it holds at the end, give or
/// take a little (today both are about 520 B per task, a browser's line of tasks waiting for a held
/// result's slot included). Encoded polls or requests waiting by the
/// thousand would show as a peak far above it.
#[test]
fn creating_ten_thousand_tasks_peaks_at_what_they_keep() {
    let (kept, engine_peak) = create_ten_thousand(Dialect::Legacy, 150, 30_000);
    println!("10000 tasks in 23 s: engine keeps {kept} B per task, peaks at {engine_peak} B");
    assert!(kept <= 590, "{kept} B per task");
    assert!(
        engine_peak <= kept + 100,
        "peak {engine_peak} B per task, keeps {kept} B"
    );
}

/// Created slowly (in 78 s, as a browser page creates them), the first tasks are polled a few
/// times meanwhile: each poll leaves a stale timer entry behind, and the timer queue must not
/// grow to twice its live size for them. Weighed 1 s after the last creation: today 522 B per
/// task kept; such a queue adds about 26.
#[test]
fn tasks_polled_while_others_are_created_keep_a_tight_timer_queue() {
    let (kept, engine_peak) = create_ten_thousand(Dialect::Modern, 500, 1_000);
    println!("10000 tasks in 78 s: engine keeps {kept} B per task, peaks at {engine_peak} B");
    assert!(kept <= 570, "{kept} B per task");
}

/// A host showing a task's snapshot shares the engine's (no copy per handle), and a new snapshot
/// replaces it without touching the one shared before.
#[test]
fn a_host_shares_the_engines_snapshot() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 3);
    let sub = h.call("job", json!({ "ms": 60_000, "interval": 1_000 }));
    h.run_for(500);
    let id = h.task_of(sub).expect("a task");
    let (shown_id, shown) = h.engine.known(&id).expect("a snapshot");
    let (again_id, again) = h.engine.known(&id).expect("a snapshot");
    assert!(std::rc::Rc::ptr_eq(&shown, &again), "one snapshot, shared");
    assert!(std::rc::Rc::ptr_eq(&shown_id, &again_id), "one id, shared");
    assert_eq!(&*shown_id, id);
    assert_eq!(Some(shown.task(&id)), h.engine.task(&id));
    let before = shown.task(&id);
    h.run_for(3_000);
    let (_, latest) = h.engine.known(&id).expect("a snapshot");
    assert_eq!(shown.task(&id), before, "what a host holds stays as it was");
    assert_eq!(Some(latest.task(&id)), h.engine.task(&id));
}
