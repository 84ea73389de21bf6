//! One simulated hour of 1,000 tasks: engine + fake server + JSON both ways must run the hour at
//! least 1,000 times faster than real time (under 3.6 s; 1.1–1.5 s on a 2-core test machine), a
//! bound that catches a quadratic path without failing on a slower machine (speed itself is the
//! bench's). Wall time on a shared machine is noisy, so the bound is checked against the test
//! thread's CPU time where the OS reports it (Linux), else against wall time.

use std::time::{Duration, Instant};

use crate::json::json;

use crate::engine::api::{DialectChoice, End};
use crate::protocol::model::{Dialect, TaskStatus};
use crate::testkit::Harness;

const TASKS: u64 = 1_000;
const HOUR_MS: u64 = 3_600_000;
/// The hour must run at least this many times faster than real time.
const SPEEDUP: u64 = 1_000;

/// CPU time of the current thread (Linux `/proc/thread-self/schedstat`, first field in ns).
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        text.split_whitespace().next()?.parse().ok()?,
    ))
}

fn bound() -> Duration {
    Duration::from_millis(HOUR_MS / SPEEDUP)
}

struct Run {
    wall: Duration,
    cpu: Option<Duration>,
    completed: usize,
    polls: usize,
}

fn simulate(choice: DialectChoice, server: Dialect) -> Run {
    let mut h = Harness::new(choice, server, 42);
    h.record = false;
    let (wall0, cpu0) = (Instant::now(), thread_cpu());
    let mut subs = Vec::new();
    for i in 0..TASKS {
        // Durations spread over two hours: about half finish inside the simulated hour.
        let ms = 60_000 + (i * 7_200_000 / TASKS);
        let interval = (i % 4 == 0).then_some(5_000);
        subs.push(h.call(
            "job",
            json!({ "ms": ms, "interval": interval, "ttl": null }),
        ));
    }
    h.run_for(HOUR_MS);
    let wall = wall0.elapsed();
    let cpu = cpu0.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a));
    let completed = subs
        .iter()
        .filter(|s| {
            matches!(h.dones(**s).as_slice(), [End::Finished { task: Some(t), .. }] if t.status == TaskStatus::Completed)
        })
        .count();
    assert!(h.violations.is_empty(), "{:?}", h.violations);
    let polls = h.server.gets.values().map(Vec::len).sum();
    Run {
        wall,
        cpu,
        completed,
        polls,
    }
}

/// Release only for the time bound (`cargo test --release --lib simulated_hour -- --nocapture`):
/// a debug build is ~10× slower and checks behaviour only. On a busy machine the best of up to
/// five runs counts (the simulation is deterministic: every run does the same work).
#[test]
fn simulated_hour_of_a_thousand_tasks() {
    let dialects = [
        (DialectChoice::Legacy, Dialect::Legacy),
        (DialectChoice::Modern, Dialect::Modern),
    ];
    // Debug builds (the CI run) check the behaviour on one dialect only, to stay quick.
    let runs = if cfg!(debug_assertions) {
        &dialects[..1]
    } else {
        &dialects[..]
    };
    for &(choice, server) in runs {
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let r = simulate(choice, server);
            println!(
                "{server:?}: 1 h × {TASKS} tasks: wall {:?}, thread CPU {:?}; {} completed, {} polls",
                r.wall, r.cpu, r.completed, r.polls
            );
            assert!((440..=560).contains(&r.completed), "{}", r.completed);
            // Gaps of a tenth of the age up to a 20 s ceiling: < 400 polls per task-hour.
            assert!(r.polls < (TASKS * 400) as usize, "{}", r.polls);
            best = best.min(r.cpu.unwrap_or(r.wall));
            if cfg!(debug_assertions) || best < bound() {
                break;
            }
        }
        if !cfg!(debug_assertions) {
            assert!(best < bound(), "{server:?}: {best:?}");
        }
    }
}
