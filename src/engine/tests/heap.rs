//! What the engine holds per tracked task: 2,000 running tasks created at once, each polled a
//! few times, weighed by dropping the engine (its heap alone, not the fake server's). Sizes are
//! native (64-bit pointers); on wasm32 they are smaller.

use serde_json::json;

use crate::engine::api::DialectChoice;
use crate::engine::testkit::heap::held_by;
use crate::engine::testkit::Harness;
use crate::engine::{Config, Engine};
use crate::protocol::model::Dialect;

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

/// Bounds with some room over today's 1,488 B (legacy) and 1,933 B (modern): a burst's spare
/// room kept after it, or a per-task copy of something shared, shows here.
#[test]
fn heap_per_tracked_task() {
    let legacy = per_task(DialectChoice::Legacy, Dialect::Legacy);
    let modern = per_task(DialectChoice::Modern, Dialect::Modern);
    println!("engine heap per tracked task ({TASKS} tasks, 64-bit): legacy {legacy} B, modern {modern} B");
    assert!(legacy <= 1_700, "legacy: {legacy} B per task");
    assert!(modern <= 2_200, "modern: {modern} B per task");
}
