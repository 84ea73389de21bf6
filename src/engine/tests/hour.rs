//! One simulated hour of 1,000 tasks: the engine's per-poll cost stays small enough to run the
//! hour (engine + fake server + JSON both ways) in well under a second of real time.

use std::time::Instant;

use serde_json::json;

use crate::engine::api::{DialectChoice, End};
use crate::engine::testkit::Harness;
use crate::protocol::model::{Dialect, TaskStatus};

const TASKS: u64 = 1_000;
const HOUR_MS: u64 = 3_600_000;

fn simulate(choice: DialectChoice, server: Dialect) -> (std::time::Duration, usize, usize) {
    let mut h = Harness::new(choice, server, 42);
    h.record = false;
    h.auto_answer = true;
    let started = Instant::now();
    let mut subs = Vec::new();
    for i in 0..TASKS {
        // Durations spread over two hours: about half finish inside the simulated hour.
        let ms = 60_000 + (i * 7_200_000 / TASKS);
        let interval = (i % 4 == 0).then_some(5_000);
        subs.push(h.call("job", json!({ "ms": ms, "interval": interval, "ttl": null })));
    }
    h.run_for(HOUR_MS);
    let elapsed = started.elapsed();
    let finished = subs
        .iter()
        .filter(|s| {
            matches!(h.dones(**s).as_slice(), [End::Finished { task: Some(t), .. }] if t.status == TaskStatus::Completed)
        })
        .count();
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    (elapsed, finished, h.server.gets.values().map(Vec::len).sum())
}

/// Debug builds are ~10× slower than release; the bound below is for release
/// (`cargo test --release --lib simulated_hour`); a debug run only checks behaviour.
#[test]
fn simulated_hour_of_a_thousand_tasks() {
    for (choice, server) in [(DialectChoice::Modern, Dialect::Modern), (DialectChoice::Legacy, Dialect::Legacy)] {
        let (elapsed, finished, polls) = simulate(choice, server);
        println!("{server:?}: 1h × {TASKS} tasks in {elapsed:?}: {finished} completed, {polls} polls");
        assert!((440..=560).contains(&finished), "{finished}");
        // Full jitter under a 20 s ceiling averages ~10 s between polls: < 400 per task-hour.
        assert!(polls < (TASKS * 400) as usize, "{polls}");
        if !cfg!(debug_assertions) {
            assert!(elapsed.as_millis() < 1_000, "{elapsed:?}");
        }
    }
}
