//! Which ends settle a task for later page loads (`resume()` offers only unsettled tasks): every
//! end the server decides, none the client or the caller does.

use crate::json::json;

use crate::engine::api::{DialectChoice, End, ErrorKind};
use crate::engine::tests::faults::legacy;
use crate::engine::verdict::settles;
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

const DIALECTS: &[(DialectChoice, Dialect)] = &[
    (DialectChoice::Auto, Dialect::Modern),
    (DialectChoice::Auto, Dialect::Legacy),
    #[cfg(feature = "draft")]
    (DialectChoice::Draft, Dialect::Draft),
];

/// A later load watches a task its server has forgotten (its ttl passed while no page was open):
/// this engine never knew it, the server does not know it.
#[test]
fn a_watched_task_the_server_does_not_know_is_settled() {
    for &(choice, server) in DIALECTS {
        let mut h = Harness::new(choice, server, 70);
        let w = h.watch("forgotten-task");
        h.run_for(10_000);
        let end = h.done(w);
        assert!(settles(&end), "{server:?}: {end:?}");
    }
}

/// The same engine knew the task: the server forgetting it reads as `expired`.
#[test]
fn a_known_task_the_server_forgot_is_settled() {
    for &(choice, server) in DIALECTS {
        let mut h = Harness::new(choice, server, 71);
        let sub = h.call("job", json!({ "ms": 600_000, "ttl": null }));
        h.run_for(3_000);
        let task = h.task_of(sub).unwrap_or_default();
        h.server.forget(&task);
        h.run_for(120_000);
        let end = h.done(sub);
        assert!(settles(&end), "{server:?}: {end:?}");
    }
}

#[test]
fn a_completed_task_whose_result_cannot_be_had_is_settled() {
    let mut h = legacy(72);
    h.server.faults.mute_results = 1_000;
    let sub = h.call("job", json!({ "ms": 2_000 }));
    h.run_for(180_000);
    let end = h.done(sub);
    assert!(
        matches!(&end, End::Failed { error } if error.kind == ErrorKind::ResultUnavailable),
        "{end:?}"
    );
    assert!(settles(&end));
}

#[test]
fn closing_the_client_settles_no_running_task() {
    for &(choice, server) in DIALECTS {
        let mut h = Harness::new(choice, server, 73);
        let sub = h.call("job", json!({ "ms": 600_000 }));
        h.run_for(3_000);
        let task = h.task_of(sub).unwrap_or_default();
        let w = h.watch(&task);
        h.run_for(2_000);
        h.engine.close(h.now);
        h.pump();
        for s in [sub, w] {
            let end = h.done(s);
            assert!(!settles(&end), "{server:?}: {end:?}");
        }
    }
}
