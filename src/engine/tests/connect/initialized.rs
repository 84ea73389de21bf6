//! Over HTTP nothing of a session overtakes its `initialized` notification: requests and the
//! listening stream wait for its answer (any status), or for a bounded deadline when it gets
//! none; over a WebSocket (one ordered socket) nothing waits.

use crate::json::{json, Value};

use crate::engine::api::{CallOptions, Config, DialectChoice, Link, Millis, Output, SendKey};
use crate::engine::session::initialized::INITIALIZED_WAIT_MS;
use crate::engine::Engine;
use crate::testkit::{accept_initialize, drain, head, outputs, T0};

/// What the engine hands out at `now`: each transmission's method (`GET` for the listening
/// stream) and key.
fn sent(e: &mut Engine, now: Millis) -> Vec<(String, SendKey)> {
    outputs(e, now)
        .into_iter()
        .filter_map(|o| match o {
            Output::Transmit(t) => {
                let body: Value = serde_json::from_str(&t.body).unwrap_or_default();
                Some((body["method"].as_str().unwrap_or("").to_owned(), t.key))
            }
            Output::Listen { key, .. } => Some(("GET".to_owned(), key)),
            _ => None,
        })
        .collect()
}

fn methods(sent: &[(String, SendKey)]) -> Vec<&str> {
    sent.iter().map(|(m, _)| m.as_str()).collect()
}

/// A legacy engine on `link` with a request made before the session is ready and `initialize`
/// answered: what it sent then, and the `initialized` notification's key.
fn initialized_on(link: Link) -> (Engine, Vec<(String, SendKey)>) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 11, T0);
    let (init, _) = drain(&mut e, T0);
    e.request(
        T0,
        "resources/read",
        json!({ "uri": "x" }),
        CallOptions::default(),
    );
    accept_initialize(&mut e, T0, &init, "s1", json!({ "tools": {} }));
    let sent = sent(&mut e, T0);
    (e, sent)
}

#[test]
fn requests_wait_for_the_initialized_notification_to_be_answered() {
    let (mut e, first) = initialized_on(Link::Http1);
    assert_eq!(methods(&first), ["notifications/initialized"]);
    // A request made now waits as well.
    e.request(T0 + 5, "prompts/list", json!({}), CallOptions::default());
    assert!(sent(&mut e, T0 + 5).is_empty());
    e.handle_input(T0 + 9, head(first[0].1, 202, None));
    let next = sent(&mut e, T0 + 9);
    let mut next = methods(&next);
    next.sort_unstable();
    assert_eq!(next, ["GET", "prompts/list", "resources/read"]);
}

#[test]
fn an_initialized_notification_refused_or_unanswered_still_lets_requests_go() {
    // Any answer will do, a refusal too.
    let (mut e, first) = initialized_on(Link::Node);
    e.handle_input(T0 + 3, head(first[0].1, 400, None));
    assert!(methods(&sent(&mut e, T0 + 3)).contains(&"resources/read"));
    // No answer at all: the requests go at the deadline, not before.
    let (mut e, _) = initialized_on(Link::Http2);
    let deadline = T0 + INITIALIZED_WAIT_MS;
    assert!(sent(&mut e, deadline - 1).is_empty());
    assert!(methods(&sent(&mut e, deadline)).contains(&"resources/read"));
}

#[test]
fn over_a_websocket_nothing_waits_for_the_initialized_notification() {
    let (_, first) = initialized_on(Link::WebSocket);
    assert_eq!(
        methods(&first),
        ["notifications/initialized", "resources/read"]
    );
}
