//! Tab coordination in simulated browsers: election and failover, routing, the ledger, input
//! requests across a leader change, and the engine's poll invariants across a takeover.

mod props;
mod sim;

use crate::json::json;

use super::{Input, Requestor};
use crate::engine::api::{End, ErrorKind, Event};
use crate::protocol::model::{Dialect, TaskStatus};
use sim::Sim;

const DIALECTS: &[Dialect] = &[
    Dialect::Legacy,
    Dialect::Modern,
    #[cfg(feature = "draft")]
    Dialect::Draft,
];

fn finished_status(end: Option<&End>) -> Option<TaskStatus> {
    match end? {
        End::Finished { task: Some(t), .. } => Some(t.status),
        _ => None,
    }
}

#[test]
fn one_tab_leads_and_its_call_finishes_once() {
    for &d in DIALECTS {
        let mut s = Sim::new(d, 1);
        assert_eq!(s.leaders(), vec![0]);
        let sub = s.call(0, json!({ "ms": 3_000 })).unwrap();
        s.run_for(20_000);
        assert_eq!(
            finished_status(s.end_of(0, sub)),
            Some(TaskStatus::Completed),
            "{d:?}"
        );
        let task = s.task_of(0, sub).unwrap();
        assert_eq!(s.fired.get(&task), Some(&1));
        assert!(s.store.get(&task).is_some_and(|r| r.terminal && r.fired));
        assert!(s.h.violations.is_empty(), "{:?}", s.h.violations);
    }
}

#[test]
fn followers_share_the_leaders_poller() {
    let mut s = Sim::new(Dialect::Legacy, 2);
    let b = s.open();
    let c = s.open();
    assert_eq!(s.leaders(), vec![0]);
    assert_eq!(s.pages[b].coord.role_name(), "follower");
    let sub = s
        .call(b, json!({ "ms": 20_000, "interval": 2_000 }))
        .unwrap();
    s.run_for(2_000);
    let task = s.task_of(b, sub).unwrap();
    let w = s.op(c, |co, now| co.watch(now, &task)).unwrap();
    let v = s.op(0, |co, now| co.watch(now, &task)).unwrap();
    s.run_for(30_000);
    for (page, sub) in [(b, sub), (c, w), (0, v)] {
        assert_eq!(
            finished_status(s.end_of(page, sub)),
            Some(TaskStatus::Completed)
        );
    }
    // One tab's worth of polling: at most one poll per interval, one in flight.
    assert!(s.h.violations.is_empty(), "{:?}", s.h.violations);
    s.h.check_poll_spacing(|t| s.interval_of(t)).unwrap();
    assert!(
        s.h.get_times(&task).len() <= 11,
        "{:?}",
        s.h.get_times(&task)
    );
    assert_eq!(s.fired.get(&task), Some(&1));
    assert_eq!(s.leaderships, 1);
}

#[test]
fn a_closed_leader_hands_over_and_no_task_is_dropped() {
    for &d in DIALECTS {
        let mut s = Sim::new(d, 3);
        let b = s.open();
        let subs: Vec<_> = (0..4)
            .map(|n| {
                s.call(b, json!({ "ms": 15_000 + n * 1_000, "interval": 1_000 }))
                    .unwrap()
            })
            .collect();
        s.run_for(3_000);
        s.close(0, true);
        assert_eq!(s.leaders(), vec![b], "{d:?}");
        s.run_for(40_000);
        for sub in subs {
            assert_eq!(
                finished_status(s.end_of(b, sub)),
                Some(TaskStatus::Completed),
                "{d:?}"
            );
            let task = s.task_of(b, sub).unwrap();
            assert_eq!(s.fired.get(&task), Some(&1));
        }
        assert!(s.h.violations.is_empty(), "{d:?}: {:?}", s.h.violations);
        s.h.check_poll_spacing(|t| s.interval_of(t)).unwrap();
    }
}

#[test]
fn a_crashed_leader_frees_its_lock_and_a_follower_leads() {
    let mut s = Sim::new(Dialect::Modern, 4);
    let b = s.open();
    let sub = s.call(b, json!({ "ms": 10_000 })).unwrap();
    s.run_for(2_000);
    s.close(0, false);
    assert_eq!(s.leaders(), vec![b]);
    s.run_for(30_000);
    assert_eq!(
        finished_status(s.end_of(b, sub)),
        Some(TaskStatus::Completed)
    );
}

#[test]
fn a_silent_leader_has_its_lock_stolen() {
    let mut s = Sim::new(Dialect::Legacy, 5);
    let b = s.open();
    let sub = s.call(b, json!({ "ms": 30_000 })).unwrap();
    s.run_for(2_000);
    s.hang(0);
    s.run_for(4_000);
    assert!(
        s.leaders().is_empty(),
        "nobody steals before 6 s of silence"
    );
    s.run_for(4_000);
    assert_eq!(s.leaders(), vec![b]);
    s.run_for(60_000);
    assert_eq!(
        finished_status(s.end_of(b, sub)),
        Some(TaskStatus::Completed)
    );
    assert!(s.h.violations.is_empty(), "{:?}", s.h.violations);
}

#[test]
fn a_leader_hung_inside_a_storage_transaction_is_replaced_without_reading_storage() {
    let mut s = Sim::new(Dialect::Legacy, 15);
    let b = s.open();
    let own = s.call(0, json!({ "ms": 20_000 })).unwrap();
    let shared = s.call(b, json!({ "ms": 20_000 })).unwrap();
    s.run_for(2_000);
    let own = s.task_of(0, own).unwrap();
    s.storage_held = true;
    s.hang(0);
    s.run_for(10_000);
    assert_eq!(s.leaders(), vec![b]);
    s.run_for(15_000);
    // The session the old leader announced goes on: no second handshake.
    assert_eq!(s.h.count("initialize"), 1);
    assert_eq!(
        finished_status(s.end_of(b, shared)),
        Some(TaskStatus::Completed)
    );
    assert!(
        !s.store[&own].terminal,
        "a task only storage knows waits for it"
    );
    s.release_storage();
    s.run_for(5_000);
    assert!(s.store[&own].terminal, "tracked once its record is loaded");
    assert!(s.h.violations.is_empty(), "{:?}", s.h.violations);
}

#[test]
fn a_visible_follower_takes_over_from_a_leader_hidden_over_a_minute() {
    let mut s = Sim::new(Dialect::Modern, 6);
    let b = s.open();
    s.input(0, Input::Visibility(false));
    s.run_for(50_000);
    assert_eq!(s.leaders(), vec![0], "hidden under a minute: no hand-off");
    s.run_for(15_000);
    assert_eq!(s.leaders(), vec![b]);
    assert_eq!(s.pages[0].coord.role_name(), "follower");
}

#[test]
fn pages_resumed_visible_after_a_long_hide_announce_themselves_visible() {
    let mut s = Sim::new(Dialect::Legacy, 10);
    let b = s.open();
    s.input(0, Input::Visibility(false));
    s.input(b, Input::Visibility(false));
    s.run_for(70_000);
    // Each page freezes while hidden and comes back visible: the first takes over from the
    // hidden leader, the second follows it (it no longer reads as hidden for over a minute).
    for page in [0, b] {
        s.input(page, Input::Freeze);
        s.run_for(2_000);
        s.input(page, Input::Resume { visible: true });
        s.run_for(5_000);
    }
    let lead = s.leaders();
    assert_eq!(lead.len(), 1);
    s.run_for(30_000);
    assert_eq!(s.leaders(), lead, "no hand-off between two visible pages");
    assert!(s.leaderships <= 4, "{} leaderships", s.leaderships);
}

#[test]
fn a_frozen_leader_steps_down_and_rejoins_as_follower() {
    let mut s = Sim::new(Dialect::Legacy, 7);
    let b = s.open();
    let sub = s.call(0, json!({ "ms": 8_000 })).unwrap();
    s.run_for(1_000);
    s.input(0, Input::Freeze);
    assert_eq!(s.leaders(), vec![b]);
    s.run_for(3_000);
    s.input(0, Input::Resume { visible: true });
    assert_eq!(s.pages[0].coord.role_name(), "follower");
    s.run_for(30_000);
    assert_eq!(
        finished_status(s.end_of(0, sub)),
        Some(TaskStatus::Completed)
    );
    assert_eq!(s.leaderships, 2);
}

#[test]
fn a_call_the_old_leader_may_have_sent_fails_leader_lost() {
    let mut s = Sim::new(Dialect::Legacy, 8);
    let b = s.open();
    // Acked by the leader; the leader dies before the server names the task.
    let sub = s.call(b, json!({ "ms": 5_000 })).unwrap();
    s.close(0, false);
    s.run_for(1_000);
    match s.end_of(b, sub) {
        Some(End::Failed { error }) => {
            assert_eq!(error.kind, ErrorKind::Transport);
            assert_eq!(error.data, Some(json!("leaderLost")));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn operations_made_with_no_leader_wait_for_the_next_one() {
    let mut s = Sim::new(Dialect::Modern, 9);
    let b = s.open();
    s.hang(0);
    // No leader answers: the operation stays with the tab until one does.
    let sub = s.call(b, json!({ "ms": 3_000 })).unwrap();
    let list = s.op(b, |c, now| c.list_tools(now)).unwrap();
    s.run_for(30_000);
    assert_eq!(s.leaders(), vec![b]);
    assert_eq!(
        finished_status(s.end_of(b, sub)),
        Some(TaskStatus::Completed)
    );
    let replied = s.pages[b]
        .events
        .iter()
        .any(|e| matches!(e, Event::Reply { op, result: Ok(_) } if *op == list));
    assert!(replied);
}

#[test]
fn input_requests_go_to_the_watching_tab_and_survive_a_leader_change() {
    // Modern servers keep input requests in the task's status, so a new leader asks again;
    // legacy and draft servers send theirs once, to the leader that went away.
    let d = Dialect::Modern;
    let mut s = Sim::new(d, 10);
    let b = s.open();
    s.answer_inputs = false;
    let sub = s.call(b, json!({ "ms": 4_000, "input": true })).unwrap();
    s.run_for(8_000);
    let asked = |s: &Sim, page: usize| {
        s.pages[page]
            .events
            .iter()
            .filter(|e| matches!(e, Event::Input { .. }))
            .count()
    };
    assert!(
        asked(&s, b) >= 1,
        "{d:?}: the follower that made the call is asked"
    );
    assert_eq!(asked(&s, 0), 0, "{d:?}");
    // The leader goes away unanswered: the next one asks again, and the answer goes through.
    s.close(0, true);
    s.answer_inputs = true;
    s.run_for(40_000);
    assert_eq!(
        finished_status(s.end_of(b, sub)),
        Some(TaskStatus::Completed),
        "{d:?}"
    );
}

#[test]
fn every_terminal_status_fires_its_once_completion_exactly_once_across_reloads() {
    for &d in DIALECTS {
        let mut s = Sim::new(d, 11);
        let b = s.open();
        for end in ["completed", "failed", "error", "cancelled"] {
            s.call(b, json!({ "ms": 6_000, "end": end }));
        }
        s.run_for(2_000);
        // Both pages reload mid-task; later, a reload finds nothing left to report.
        let b = s.reload(b);
        let a = s.reload(0);
        s.run_for(30_000);
        assert_eq!(s.store.len(), 4, "{d:?}");
        for (task, rec) in &s.store {
            assert!(rec.fired, "{d:?}: {task}");
            assert_eq!(s.fired.get(task), Some(&1), "{d:?}: {task}");
        }
        s.reload(a);
        s.reload(b);
        s.run_for(10_000);
        assert!(s.fired.values().all(|&n| n == 1), "{d:?}: {:?}", s.fired);
    }
}

#[test]
fn a_task_that_ended_while_no_page_was_open_fires_on_the_next_load() {
    let mut s = Sim::new(Dialect::Legacy, 12);
    s.call(0, json!({ "ms": 5_000 }));
    s.run_for(1_000);
    s.close(0, true);
    s.run_for(20_000);
    assert!(s.fired.is_empty());
    let p = s.open();
    let pending: Vec<String> = s.store.keys().cloned().collect();
    for id in &pending {
        s.op(p, |c, now| c.watch(now, id));
    }
    s.run_for(10_000);
    assert_eq!(pending.len(), 1);
    assert_eq!(s.fired.get(&pending[0]), Some(&1));
}

#[test]
fn a_crashed_followers_subscriptions_are_pruned() {
    let mut s = Sim::new(Dialect::Modern, 13);
    let b = s.open();
    let sub = s.call(b, json!({ "ms": 60_000 })).unwrap();
    s.run_for(2_000);
    let task = s.task_of(b, sub).unwrap();
    s.close(b, false);
    s.run_for(15_000);
    // The leader tracks the task on its own now (its record stays current); a new page
    // that resumes it hears the end.
    let c = s.open();
    let w = s.op(c, |co, now| co.watch(now, &task)).unwrap();
    s.run_for(60_000);
    assert_eq!(finished_status(s.end_of(c, w)), Some(TaskStatus::Completed));
    assert!(s.store.get(&task).is_some_and(|r| r.terminal));
}

#[test]
fn closing_a_tab_ends_its_subscriptions_closed() {
    let mut s = Sim::new(Dialect::Modern, 15);
    let b = s.open();
    let sub = s.call(b, json!({ "ms": 60_000 })).unwrap();
    let op = s.op(b, |c, now| c.list_tasks(now, None)).unwrap();
    s.input(b, Input::Close);
    assert!(s.pages[b].coord.is_closed());
    match s.end_of(b, sub) {
        Some(End::Failed { error }) => assert_eq!(error.kind, ErrorKind::Closed),
        other => panic!("{other:?}"),
    }
    let closed = s.pages[b]
        .events
        .iter()
        .any(|e| matches!(e, Event::Reply { op: o, result: Err(_) } if *o == op));
    assert!(closed);
}

#[test]
fn an_input_request_asked_of_a_tab_that_died_goes_to_another() {
    for &d in DIALECTS {
        let mut s = Sim::new(d, 16);
        let b = s.open();
        s.answer_inputs = false;
        let sub = s.call(b, json!({ "ms": 4_000, "input": true })).unwrap();
        s.run_for(2_000);
        let task = s.task_of(b, sub).unwrap();
        let w = s.op(0, |c, now| c.watch(now, &task)).unwrap();
        s.run_for(6_000);
        assert_eq!(s.inputs_seen, 1, "{d:?}: asked once, of the caller");
        // The caller dies without a word; once the leader finds out, it asks the next follower.
        s.close(b, false);
        s.answer_inputs = true;
        s.run_for(40_000);
        assert_eq!(
            finished_status(s.end_of(0, w)),
            Some(TaskStatus::Completed),
            "{d:?}"
        );
    }
}

#[test]
fn an_input_request_a_hung_tab_never_received_goes_to_another() {
    // Modern: the server keeps the request in the task's status, so it can be asked again.
    let mut s = Sim::new(Dialect::Modern, 17);
    let b = s.open();
    let c = s.open();
    let sub = s.call(b, json!({ "ms": 6_000, "input": true })).unwrap();
    s.run_for(500);
    let task = s.task_of(b, sub).unwrap();
    let w = s.op(c, |co, now| co.watch(now, &task)).unwrap();
    // The caller hangs before the request comes: it holds its locks, so nobody drops it.
    s.hang(b);
    s.run_for(40_000);
    assert_eq!(s.leaders(), vec![0], "the leader stays");
    assert_eq!(finished_status(s.end_of(c, w)), Some(TaskStatus::Completed));
    assert_eq!(s.fired.get(&task), Some(&1));
}

/// Page `trigger` (a follower) does something after every page was hidden for 40 s of a
/// ten-minute run: how many of 8 tasks are polled within 3 s, and whether the leader stayed.
fn polled_after(trigger: Input) -> (usize, usize) {
    let mut s = Sim::new(Dialect::Modern, 14);
    let b = s.open();
    let subs: Vec<_> = (0..8)
        .filter_map(|_| s.call(0, json!({ "ms": 3_600_000, "interval": 1_000 })))
        .collect();
    s.run_for(560_000);
    // Hidden for less than the minute after which a visible tab would take over.
    s.input(0, Input::Visibility(false));
    s.input(b, Input::Visibility(false));
    s.run_for(40_000);
    let tasks: Vec<String> = subs.iter().filter_map(|&sub| s.task_of(0, sub)).collect();
    let before: Vec<usize> = tasks.iter().map(|t| s.h.get_times(t).len()).collect();
    s.input(b, trigger);
    s.run_for(3_000);
    let polled = (tasks.iter().zip(before))
        .filter(|(t, n)| s.h.get_times(t).len() > *n)
        .count();
    (polled, s.leaderships)
}

#[test]
fn a_follower_becoming_visible_or_going_online_brings_a_catch_up_poll() {
    // Old tasks are polled about once a minute: few are due in any 3 s.
    assert!(polled_after(Input::Tick).0 < 4);
    assert_eq!(polled_after(Input::Visibility(true)), (8, 1));
    assert_eq!(polled_after(Input::Online), (8, 1));
}
