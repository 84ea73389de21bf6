//! The poll cadence as the server sees it: never sooner than a task's interval after a poll,
//! and while the page is visible never later than max(interval, age / 10) plus the jitter (and
//! the request's way there and back); a hand-over to a fresh engine (a new leader tab, a reload)
//! and a leap of the clock (the machine slept) keep both, without polling every task in one tick.

use crate::json::json;
use proptest::prelude::*;

use crate::engine::api::{Cadence, Config, DialectChoice, Input, Millis};
use crate::engine::registry::results::TIGHT_BUDGET;
use crate::engine::scheduler::cadence::{
    floor, poll_gap, with_first_spread_bound, with_grid_margin, with_jitter_bound, FIRST_SPREAD_MS,
    JITTER_DIVISOR,
};
use crate::engine::tests::cases;
use crate::engine::tests::push::completed_at;
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

/// One task the test creates: how long it works, and the interval its server asks for.
#[derive(Debug, Clone)]
struct Job {
    ms: Millis,
    interval: Option<Millis>,
    /// Created this long after the previous one.
    after: Millis,
}

fn job(max_ms: Millis) -> impl Strategy<Value = Job> {
    (
        1_000..max_ms,
        prop::option::of(300u64..6_000),
        prop_oneof![Just(0u64), 1u64..5_000],
    )
        .prop_map(|(ms, interval, after)| Job {
            ms,
            interval,
            after,
        })
}

fn harness(modern: bool, seed: u64, latency: Millis, delay: Millis) -> Harness {
    let (choice, server) = if modern {
        (DialectChoice::Modern, Dialect::Modern)
    } else {
        (DialectChoice::Legacy, Dialect::Legacy)
    };
    let mut h = Harness::with_config(tight(choice), server, seed);
    h.latency = (1, latency);
    h.request_delay = (0, delay);
    h
}

/// A session in `dialect` whose tight budget holds no running task's result: polls bring the end.
fn tight(dialect: DialectChoice) -> Config {
    Config {
        dialect,
        max_blocking_results: Some(TIGHT_BUDGET),
        ..Config::default()
    }
}

/// The configuration of a session polling under `cadence` (no pushes, a tight budget: no running
/// task holds its result), and its server's dialect.
fn polling_config(modern: bool, cadence: Cadence) -> (Config, Dialect) {
    let (dialect, server) = if modern {
        (DialectChoice::Modern, Dialect::Modern)
    } else {
        (DialectChoice::Legacy, Dialect::Legacy)
    };
    let cfg = Config {
        cadence,
        subscribe: false,
        ..tight(dialect)
    };
    (cfg, server)
}

/// A session polling under `cadence` (no pushes, a tight budget: nothing but polls brings the end).
fn polling(modern: bool, seed: u64, latency: Millis, cadence: Cadence) -> Harness {
    let (cfg, server) = polling_config(modern, cadence);
    let mut h = Harness::with_config(cfg, server, seed);
    h.latency = (1, latency);
    h
}

/// `n` jobs of `ms` each at the server interval `interval`, created together.
fn same_jobs(n: usize, ms: Millis, interval: Millis) -> Vec<Job> {
    let job = Job {
        ms,
        interval: Some(interval),
        after: 0,
    };
    vec![job; n]
}

/// Asserts that the server saw the polls of `id` at least `apart` ms apart.
fn assert_polls_apart(h: &Harness, seed: u64, id: &str, apart: Millis, min_polls: usize) {
    let gets = h.get_times(id);
    assert!(gets.len() >= min_polls, "seed {seed} {id}: {gets:?}");
    for w in gets.windows(2) {
        assert!(
            w[1] - w[0] >= apart,
            "seed {seed} {id}: polls {} ms apart: {:?}",
            w[1] - w[0],
            gets.iter().map(|t| t - gets[0]).collect::<Vec<_>>()
        );
    }
}

/// Creates the jobs; returns (task id, job) for each.
fn create(h: &mut Harness, jobs: &[Job]) -> Vec<(String, Job)> {
    let subs: Vec<_> = jobs
        .iter()
        .map(|j| {
            h.run_for(j.after);
            let args = json!({ "ms": j.ms, "interval": j.interval, "ttl": null });
            (h.call("job", args), j.clone())
        })
        .collect();
    h.run_for(200);
    subs.into_iter()
        .filter_map(|(s, j)| Some((h.task_of(s)?, j)))
        .collect()
}

/// The longest the server may wait for the poll after one it saw at `a`, for the poll seen at
/// `b`: the cadence's gap at `b`'s age (the engine's age is never more), its jitter (the first
/// poll's spread when `a` is the creation), the answer's way back and the next request's way there.
fn latest(
    interval: Option<Millis>,
    created: Millis,
    (a, b): (Millis, Millis),
    slack: Millis,
) -> Millis {
    let gap = poll_gap(interval, b.saturating_sub(created), true);
    let bound = if a == created {
        with_first_spread_bound(gap)
    } else {
        with_jitter_bound(gap)
    };
    bound + slack
}

/// Checks the visible cadence of one task over the server's `tasks/get` times `gets` (created at
/// `created`, working until `until`), from `from` on.
fn check_task(
    id: &str,
    interval: Option<Millis>,
    (created, until): (Millis, Millis),
    gets: &[Millis],
    slack: Millis,
) -> Result<(), String> {
    let lo = floor(interval);
    for w in gets.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b - a < lo {
            return Err(format!("{id}: polls {} ms apart, interval {lo}", b - a));
        }
        if b <= until && b - a > latest(interval, created, (a, b), slack) {
            return Err(format!(
                "{id}: polls {} ms apart at age {} (bound {})",
                b - a,
                b - created,
                latest(interval, created, (a, b), slack)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    /// Visible, no faults: the interval while young, a tenth of the age later, never sooner
    /// than the interval, in both dialects, with slow answers and requests that wait to go out.
    #[test]
    fn visible_polls_keep_between_the_interval_and_a_tenth_of_the_age(
        modern in any::<bool>(),
        seed in any::<u64>(),
        latency in 1u64..300,
        delay in 0u64..300,
        jobs in prop::collection::vec(job(900_000), 1..6),
    ) {
        let mut h = harness(modern, seed, latency, delay);
        let tasks = create(&mut h, &jobs);
        h.run_for(16 * 60_000);
        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
        for (id, j) in &tasks {
            let created = h.server.tasks.get(id).map(|t| t.created);
            prop_assert!(created.is_some());
            let created = created.unwrap_or(0);
            let mut gets = vec![created];
            gets.extend(h.get_times(id));
            let r = check_task(id, j.interval, (created, created + j.ms), &gets, 2 * latency + 2 * delay + 2);
            prop_assert_eq!(r, Ok(()));
        }
    }

    /// A hand-over to a fresh engine (0), a clock leap (1), or a leap followed by `online` (2)
    /// at a random time: every task's next poll comes after its interval and within one interval
    /// plus its gap, the polls are not all sent in one tick, and the cadence goes on.
    #[test]
    fn hand_over_and_clock_leaps_continue_each_schedule(
        modern in any::<bool>(),
        seed in any::<u64>(),
        latency in 1u64..100,
        event in 0u8..3,
        at in 1_000u64..300_000,
        leap in 10_000u64..7_200_000,
        jobs in prop::collection::vec(job(900_000), 1..9),
    ) {
        let mut h = harness(modern, seed, latency, 0);
        let jobs: Vec<Job> = jobs.into_iter().map(|j| Job { ms: 36_000_000, ..j }).collect();
        let tasks = create(&mut h, &jobs);
        h.run_for(at);
        let ids: Vec<String> = tasks.iter().map(|(id, _)| id.clone()).collect();
        if event == 0 {
            let choice = if modern { DialectChoice::Modern } else { DialectChoice::Legacy };
            prop_assert!(h.hand_over_to(tight(choice), &ids, seed ^ 1));
            for id in &ids {
                h.watch(id);
            }
        } else {
            // Everything froze (the machine slept); the server's clock went on.
            h.now += leap;
            if event == 2 {
                h.input(Input::Online);
            }
        }
        let resumed = h.now;
        h.run_for(10 * 60_000);
        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
        let mut firsts = Vec::new();
        for (id, j) in &tasks {
            let created = h.server.tasks.get(id).map_or(0, |t| t.created);
            let gets = h.get_times(id);
            let after: Vec<Millis> = gets.iter().copied().filter(|t| *t >= resumed).collect();
            let first = after.first().copied();
            prop_assert!(first.is_some(), "{id}: never polled again");
            let first = first.unwrap_or(0);
            let bound = resumed + floor(j.interval) + latest(j.interval, created, (resumed, first), 2 * latency + 2);
            prop_assert!(first <= bound, "{}: first poll {} ms after resuming", id, first - resumed);
            firsts.push(first);
            // Never sooner than the interval, across the event too; the cadence from then on.
            prop_assert_eq!(check_task(id, j.interval, (created, 0), &gets, 0), Ok(()));
            prop_assert_eq!(
                check_task(id, j.interval, (created, u64::MAX), &after, 2 * latency + 2),
                Ok(())
            );
        }
        firsts.sort_unstable();
        firsts.dedup();
        prop_assert!(firsts.len() * 2 >= tasks.len(), "{} distinct first polls for {} tasks", firsts.len(), tasks.len());
    }
}

/// An old task: at most 20 s between polls while visible, up to 60 s while hidden; visible again,
/// one catch-up poll within an interval.
#[test]
fn hidden_pages_slow_old_tasks_down_to_a_minute_and_catch_up_when_visible() {
    let mut h = harness(true, 21, 20, 0);
    let id = create(
        &mut h,
        &[Job {
            ms: 36_000_000,
            interval: None,
            after: 0,
        }],
    )
    .pop()
    .map(|(id, _)| id)
    .unwrap_or_default();
    let max_gap = |h: &Harness, from: Millis| {
        let gets: Vec<Millis> = h
            .get_times(&id)
            .into_iter()
            .filter(|t| *t >= from)
            .collect();
        gets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    };
    h.run_for(15 * 60_000);
    let visible_from = h.now;
    h.run_for(5 * 60_000);
    let visible = max_gap(&h, visible_from);
    assert!(
        (20_000..=22_100).contains(&visible),
        "visible: {visible} ms"
    );
    h.input(Input::Visibility { visible: false });
    let hidden_from = h.now + 25_000;
    h.run_for(5 * 60_000);
    let hidden = max_gap(&h, hidden_from);
    assert!((60_000..=66_100).contains(&hidden), "hidden: {hidden} ms");
    let before = h.get_times(&id).len();
    h.input(Input::Visibility { visible: true });
    h.run_for(1_100);
    assert_eq!(h.get_times(&id).len(), before + 1, "one catch-up poll");
}

/// A poll the server refused because its session was gone goes out again in the new session,
/// and still no sooner than the task's interval after the refused one reached the server.
#[test]
fn a_poll_sent_again_in_a_new_session_keeps_the_interval() {
    for seed in 0..6 {
        let mut h = harness(false, seed, 20, 0);
        h.call("job", json!({ "ms": 600_000, "interval": 3_000 }));
        h.run_for(4_000 + 500 * seed);
        h.server.kill_session();
        h.run_for(20_000);
        let spacing = h.check_poll_spacing(|_| Some(3_000));
        assert_eq!(spacing, Ok(()), "seed {seed}");
        assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}

/// Twenty tasks created at once on a polled link: each task's first poll reaches the server
/// within its interval plus [`FIRST_SPREAD_MS`] (and the way there), never a tenth of the
/// interval later; the first polls still fall out of step.
#[test]
fn a_batch_spreads_its_first_polls_over_milliseconds_not_a_tenth_of_the_interval() {
    for (seed, modern) in [(0, true), (1, false), (2, true), (3, false)] {
        let mut h = harness(modern, 700 + seed, 2, 0);
        let jobs = same_jobs(20, 3_000, 1_000);
        let tasks = create(&mut h, &jobs);
        h.run_for(5_000);
        let mut firsts = Vec::new();
        for (id, _) in &tasks {
            let created = h.server.tasks.get(id).map_or(0, |t| t.created);
            let first = h.get_times(id).first().copied().unwrap_or(u64::MAX);
            assert!(
                first - created <= 1_000 + FIRST_SPREAD_MS + 4,
                "seed {seed}: {id} first polled {} ms after it was created",
                first - created
            );
            firsts.push(first);
        }
        firsts.sort_unstable();
        firsts.dedup();
        assert!(firsts.len() >= 8, "seed {seed}: {firsts:?}");
    }
}

/// `Cadence::Latency`: a polled task is asked about on a grid its creation set, every interval
/// for its whole life (the first poll one interval and a hundredth after it is known), never sooner,
/// later only by the longest way there and back, not by every answer's; its end is seen within one interval and a
/// round trip, however long it ran.
#[test]
fn latency_cadence_polls_on_the_creation_s_grid_for_the_task_s_whole_life() {
    let latency = 40;
    for (seed, modern) in [(1, false), (2, true), (3, false), (4, true)] {
        let mut h = polling(modern, seed, latency, Cadence::Latency);
        h.record = true;
        let jobs = [
            Job {
                ms: 45_000,
                interval: Some(1_000),
                after: 0,
            },
            Job {
                ms: 31_000,
                interval: None,
                after: 300,
            },
            Job {
                ms: 62_500,
                interval: Some(2_000),
                after: 900,
            },
        ];
        let tasks = create(&mut h, &jobs);
        h.run_for(70_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        for (id, j) in &tasks {
            let created = h.server.tasks.get(id).map_or(0, |t| t.created);
            let end = created + j.ms;
            let iv = floor(j.interval);
            let sent: Vec<Millis> = (h.sent.iter())
                .filter(|s| s.method == "tasks/get" && s.task_id.as_deref() == Some(id))
                .map(|s| s.at)
                .collect();
            let first = sent.first().copied().unwrap_or(0);
            let lag = with_grid_margin(iv);
            assert!(
                (created + lag..=created + lag + 2 * latency).contains(&first),
                "seed {seed} {id}: first poll {} ms after the creation",
                first - created
            );
            // Never sooner than the interval; later only as the grid moves behind the longest
            // way there and back (2 × 40 ms at most): no drift by every answer's way back.
            let before: Vec<Millis> = sent.iter().copied().filter(|t| *t < end).collect();
            for w in before.windows(2) {
                assert!(w[1] - w[0] >= iv, "seed {seed} {id}: at {}", w[1] - created);
            }
            let (n, span) = (
                before.len() as Millis,
                before.last().unwrap_or(&first) - first,
            );
            assert!(
                span <= (n - 1) * iv + 2 * latency,
                "seed {seed} {id}: {n} polls over {span} ms, interval {iv}"
            );
            let seen = h.get_times(id).into_iter().find(|&t| t >= end);
            assert!(
                seen.is_some_and(|t| t - end <= iv + 2 * latency),
                "seed {seed} {id}: end at {end} seen by the poll at {seen:?}"
            );
        }
    }
}

/// Twenty tasks of exactly three intervals on a page that learns its link (HTTP/1.1, six
/// connections): held results and the listening stream take connections, so the first polls wait
/// for one. That wait is the browser's queue, not a slow server: the grid does not move for it,
/// and a task's end is typically seen a hundredth of the interval after it (plus the ways there
/// and back: by a poll, or by a result held, or waiting for a slot, as it ends), not a step of the
/// grid later.
#[test]
fn a_poll_that_waited_for_a_connection_does_not_move_its_task_s_grid() {
    let latency = 3;
    let offset = with_grid_margin(1_000) - 1_000 + 3 * latency;
    for seed in 0..6 {
        let cfg = Config {
            dialect: DialectChoice::Legacy,
            cadence: Cadence::Latency,
            subscribe: false,
            link_unseen: true,
            ..Config::default()
        };
        let mut h = Harness::with_config(cfg, Dialect::Legacy, 900 + seed);
        h.latency = (1, latency);
        h.pool = Some(6);
        let jobs = same_jobs(20, 3_000, 1_000);
        let tasks = create(&mut h, &jobs);
        h.run_for(6_000);
        assert!(h.violations.is_empty(), "seed {seed}: {:?}", h.violations);
        let mut late: Vec<Millis> = (tasks.iter())
            .filter_map(|(id, j)| {
                let end = h.server.tasks.get(id).map_or(0, |t| t.created) + j.ms;
                Some(completed_at(&h, id)?.saturating_sub(end))
            })
            .collect();
        late.sort_unstable();
        assert!(late.len() >= 10, "seed {seed}: {late:?}");
        let median = late.get(late.len() / 2).copied().unwrap_or(Millis::MAX);
        assert!(median <= offset, "seed {seed}: ends seen {late:?} ms late");
        assert!(
            late.iter().all(|&l| l <= 1_000 + offset),
            "seed {seed}: {late:?}"
        );
    }
}

/// Every answer as slow as the creation's (a busy page, a loaded link): the grid stays where the
/// creation's answer set it, one interval between polls; the poll that sees a task of exactly
/// three intervals end reaches the server a hundredth of the interval after it, plus the
/// creation's ways there and back, not a fiftieth more for each poll before.
#[test]
fn answers_as_slow_as_the_creation_s_leave_the_grid_where_it_was() {
    let iv = 1_000;
    for (seed, modern) in [(11, false), (12, true)] {
        let mut h = polling(modern, seed, 1, Cadence::Latency);
        h.latency = (45, 45);
        h.run_for(1_000);
        let jobs = same_jobs(3, 3 * iv, iv);
        let tasks = create(&mut h, &jobs);
        h.run_for(5_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        assert_eq!(tasks.len(), 3, "seed {seed}");
        for (id, j) in &tasks {
            let created = h.server.tasks.get(id).map_or(0, |t| t.created);
            let end = created + j.ms;
            let gets = h.get_times(id);
            let before: Vec<Millis> = gets.iter().copied().filter(|&t| t < end).collect();
            assert_eq!(before.len(), 2, "seed {seed} {id}: {gets:?}");
            assert!(
                before.windows(2).all(|w| w[1] - w[0] == iv),
                "seed {seed} {id}: polls {before:?}, interval {iv}"
            );
            let seen = gets.iter().copied().find(|&t| t >= end);
            assert!(
                seen.is_some_and(|t| t - end <= with_grid_margin(iv) - iv + 2 * 45),
                "seed {seed} {id}: end at {end} seen by the poll at {seen:?}"
            );
        }
    }
}

/// A task of exactly three intervals on a fast link (1 ms each way): the poll that sees its end
/// reaches the server within 15 ms of it (at a 1 s interval, the grid's margin of 10 ms and the
/// creation's and the poll's ways there and back), never before it.
#[test]
fn a_whole_interval_task_s_end_is_seen_within_fifteen_ms_on_a_fast_link() {
    let iv = 1_000;
    for (seed, modern) in [(21, false), (22, true)] {
        let mut h = polling(modern, seed, 1, Cadence::Latency);
        let jobs = same_jobs(3, 3 * iv, iv);
        let tasks = create(&mut h, &jobs);
        h.run_for(5_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        assert_eq!(tasks.len(), 3, "seed {seed}");
        for (id, j) in &tasks {
            let end = h.server.tasks.get(id).map_or(0, |t| t.created) + j.ms;
            let seen = h.get_times(id).into_iter().find(|&t| t >= end);
            assert!(
                seen.is_some_and(|t| t - end <= 15),
                "seed {seed} {id}: end at {end} seen by the poll at {seen:?}"
            );
        }
    }
}

/// Twenty tasks on their grids, then one second in which every request takes 250–300 ms more
/// on its way to the server (its event loop or the browser busy: seen under load in a page): the
/// server sees those polls late, and each task's next poll still comes no sooner than an
/// interval after it, as the server sees it (less the task's lag, a fiftieth of the interval
/// here), not back on the grid a few hundred ms after it.
/// On a browser's HTTP/1.1 (six connections) too, where some of those polls also wait for one.
#[test]
fn a_poll_that_reached_the_server_late_moves_the_next_one_after_it() {
    let iv = 1_000;
    for (seed, modern, pool) in [
        (31, false, None),
        (32, true, None),
        (33, false, Some(6)),
        (34, true, Some(6)),
    ] {
        let mut h = polling(modern, seed, 3, Cadence::Latency);
        h.pool = pool;
        let jobs = same_jobs(20, 12_000, iv);
        let tasks = create(&mut h, &jobs);
        h.run_for(4_000);
        h.request_delay = (250, 300);
        h.run_for(1_000);
        h.request_delay = (0, 0);
        h.run_for(10_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        for (id, _) in &tasks {
            assert_polls_apart(&h, seed, id, iv - iv / JITTER_DIVISOR, 8);
        }
    }
}

/// Twenty tasks handed to a fresh engine (a new leader tab) whose first polls reach the server
/// 250–300 ms late (the new leader starting up under load): the fresh engine does not know the
/// ways there and back the tasks' grids were set with, so those first answers move the grids
/// too, and the second polls come no sooner than an interval after the first as the server
/// sees them (less a fiftieth of it).
#[test]
fn a_new_leader_s_first_polls_that_reached_the_server_late_move_the_next_ones() {
    let iv = 1_000;
    for (seed, modern) in [(41, false), (42, true)] {
        let mut h = polling(modern, seed, 3, Cadence::Latency);
        let jobs = same_jobs(20, 12_000, iv);
        let tasks = create(&mut h, &jobs);
        h.run_for(3_000);
        let ids: Vec<String> = tasks.iter().map(|(id, _)| id.clone()).collect();
        let (cfg, server) = polling_config(modern, Cadence::Latency);
        assert!(
            h.hand_over_to(cfg, &ids, seed ^ 1),
            "seed {seed}: {server:?}"
        );
        for id in &ids {
            h.watch(id);
        }
        h.request_delay = (250, 300);
        h.run_for(2_100);
        h.request_delay = (0, 0);
        h.run_for(6_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        for id in &ids {
            assert_polls_apart(&h, seed, id, iv - iv / JITTER_DIVISOR, 6);
        }
    }
}

/// Every request taking 0–600 ms on its way to the server for twenty seconds: the lag grows
/// with the answers, and the polls still reach the server at least nine tenths of the interval
/// apart.
#[test]
fn polls_delayed_on_their_way_for_long_stay_nine_tenths_of_the_interval_apart() {
    let iv = 1_000;
    for (seed, modern) in [(51, false), (52, true)] {
        let mut h = polling(modern, seed, 3, Cadence::Latency);
        let jobs = same_jobs(5, 30_000, iv);
        let tasks = create(&mut h, &jobs);
        h.request_delay = (0, 600);
        h.run_for(20_000);
        h.request_delay = (0, 0);
        h.run_for(12_000);
        assert!(h.violations.is_empty(), "{:?}", h.violations);
        for (id, _) in &tasks {
            assert_polls_apart(&h, seed, id, iv - iv / 10, 15);
        }
    }
}
