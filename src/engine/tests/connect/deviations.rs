//! Servers off the protocol at connect: the probe answered with something other than JSON-RPC or
//! not at all, requests refused with a framework's own error object, `Mcp-Method` on the
//! `initialize` of auto-detection, and a forced modern dialect on a dual-era server.

use crate::json::{json, Value};

use crate::engine::api::{
    ClientError, Config, DialectChoice, End, ErrorKind, Event, Input, Link, Millis, Output,
    SendKey, Transmit, TransportError,
};
use crate::engine::requests::PROBE_TIMEOUT_MS;
use crate::engine::Engine;
use crate::protocol::model::Dialect;
use crate::testkit::{
    accept_initialize, answer, discover_result, drain, feed, head, modern_engine, read_resource,
    warnings, T0,
};

/// What a Spring-style server answers an unknown protocol version with: JSON, not JSON-RPC.
fn framework_error() -> Value {
    json!({ "code": -32015, "data": null,
            "message": "Bad Request: Unsupported protocol version : 2026-07-28 (supported: 2025-11-25)" })
}

fn engine(dialect: DialectChoice, link: Link, known_era: Option<Dialect>) -> Engine {
    let cfg = Config {
        dialect,
        link,
        known_era,
        ..Config::default()
    };
    Engine::new(cfg, 9, T0)
}

/// Everything the engine hands out at `now`: transmissions (headers kept), events, and whether
/// it ended a session.
fn outputs(e: &mut Engine, now: Millis) -> (Vec<Transmit>, Vec<Event>, bool) {
    let (mut sent, mut events, mut ended) = (Vec::new(), Vec::new(), false);
    loop {
        match e.poll_output(now) {
            Output::Wake(_) => return (sent, events, ended),
            Output::Transmit(t) => sent.push(t),
            Output::Event(ev) => events.push(ev),
            Output::EndSession { .. } => ended = true,
            _ => {}
        }
    }
}

fn method(t: &Transmit) -> String {
    let body: Value = serde_json::from_str(&t.body).unwrap_or_default();
    body["method"].as_str().unwrap_or("").to_owned()
}

fn as_sent(t: &Transmit) -> (SendKey, Value) {
    (t.key, serde_json::from_str(&t.body).unwrap_or_default())
}

fn connected(events: &[Event]) -> Option<Dialect> {
    events.iter().find_map(|ev| match ev {
        Event::Connected { dialect, .. } => Some(*dialect),
        _ => None,
    })
}

fn legacy_caps() -> Value {
    json!({ "tasks": { "list": {}, "requests": { "tools": { "call": {} } } } })
}

/// Answers transmission `t` with HTTP `status` and, when given, `body`; then its stream ends.
fn answer_with(e: &mut Engine, t: &Transmit, status: u16, body: Option<Value>) {
    e.handle_input(T0, head(t.key, status, None));
    if let Some(body) = body {
        feed(e, T0, Some(t.key), body);
    }
    e.handle_input(T0, Input::Ended { key: t.key });
}

#[test]
fn a_probe_answered_with_anything_but_json_rpc_falls_back_to_initialize_said_once_connected() {
    let cases = [
        (400, Some(framework_error())),
        (500, Some(framework_error())),
        (200, Some(json!({ "result": {} }))),
        (502, None),
    ];
    for (status, body) in cases {
        let mut e = engine(DialectChoice::Auto, Link::Http1, None);
        let (sent, _, _) = outputs(&mut e, T0);
        assert_eq!(method(&sent[0]), "server/discover");
        answer_with(&mut e, &sent[0], status, body.clone());
        let (sent, events, _) = outputs(&mut e, T0);
        let methods: Vec<_> = sent.iter().map(method).collect();
        assert_eq!(methods, ["initialize"], "{status}: {events:?}");
        assert!(
            warnings(&events).is_empty(),
            "{status}: no warning while connecting"
        );
        accept_initialize(&mut e, T0, &[as_sent(&sent[0])], "s1", legacy_caps());
        let (_, events, _) = outputs(&mut e, T0);
        assert_eq!(connected(&events), Some(Dialect::Legacy), "{status}");
        let warned = warnings(&events);
        if body.is_some() {
            assert_eq!(warned.len(), 1, "{status}: {warned:?}");
            let text = &warned[0].message;
            assert!(text.contains(&format!("HTTP {status}")), "{text}");
            assert!(text.contains("not JSON-RPC"), "{text}");
            assert!(!text.contains("missing jsonrpc"), "{text}");
        } else {
            assert!(warned.is_empty(), "{status}: {warned:?}");
        }
    }
}

#[test]
fn forced_modern_refused_with_a_body_that_is_not_json_rpc_is_told_the_server_is_not_modern() {
    let mut e = engine(DialectChoice::Modern, Link::Http1, None);
    let (sent, _, _) = outputs(&mut e, T0);
    answer_with(&mut e, &sent[0], 400, Some(framework_error()));
    let (sent, events, _) = outputs(&mut e, T0);
    assert!(sent.is_empty(), "{sent:?}");
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0].kind, ErrorKind::Unsupported, "{warned:?}");
}

#[test]
fn a_request_refused_with_a_body_that_is_not_json_rpc_fails_naming_the_status_and_what_was_said() {
    let legacy = || {
        let mut e = engine(DialectChoice::Legacy, Link::Http1, None);
        let (sent, _) = drain(&mut e, T0);
        accept_initialize(&mut e, T0, &sent, "s1", legacy_caps());
        drain(&mut e, T0);
        e
    };
    let modern = || modern_engine(Config::default(), 9);
    for (era, make) in [
        ("legacy", &legacy as &dyn Fn() -> Engine),
        ("modern", &modern),
    ] {
        for status in [400, 500] {
            let mut e = make();
            drain(&mut e, T0);
            let (sub, sent) = read_resource(&mut e, T0);
            let read = sent
                .iter()
                .find(|(_, b)| b["method"] == json!("resources/read"));
            let key = read.map(|(k, _)| *k).expect("resources/read");
            e.handle_input(T0, head(key, status, None));
            feed(&mut e, T0, Some(key), framework_error());
            e.handle_input(T0, Input::Ended { key });
            let (_, events) = drain(&mut e, T0);
            assert!(warnings(&events).is_empty(), "{era} {status}: {events:?}");
            let error = events.iter().find_map(|ev| match ev {
                Event::Done {
                    sub: s,
                    end: End::Failed { error },
                    ..
                } if *s == sub => Some(error.clone()),
                _ => None,
            });
            let error = error.unwrap_or_else(|| panic!("{era} {status}: {events:?}"));
            assert_eq!(error.kind, ErrorKind::Transport, "{era}");
            assert_eq!(error.http_status, Some(status), "{era}");
            let text = &error.message;
            assert!(text.contains(&format!("HTTP {status}")), "{era}: {text}");
            assert!(
                text.contains("Unsupported protocol version"),
                "{era}: {text}"
            );
        }
    }
    // On a legacy session a 404 still means the session is gone, whatever its body.
    let mut e = legacy();
    let (sub, sent) = read_resource(&mut e, T0);
    let key = sent[0].0;
    e.handle_input(T0, head(key, 404, None));
    feed(&mut e, T0, Some(key), framework_error());
    e.handle_input(T0, Input::Ended { key });
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(sent[0].1["method"], json!("initialize"), "{sent:?}");
    let done = events
        .iter()
        .any(|ev| matches!(ev, Event::Done { sub: s, .. } if *s == sub));
    assert!(!done, "sent again once the session is back: {events:?}");
}

#[test]
fn an_initialize_refused_with_a_body_that_is_not_json_rpc_says_the_status_and_what_was_said() {
    let mut e = engine(DialectChoice::Legacy, Link::Http1, None);
    let (sent, _, _) = outputs(&mut e, T0);
    answer_with(&mut e, &sent[0], 400, Some(framework_error()));
    let (_, events, _) = outputs(&mut e, T0);
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0].kind, ErrorKind::Transport);
    assert_eq!(warned[0].http_status, Some(400));
    assert!(
        warned[0].message.contains("Bad Request: Unsupported"),
        "{warned:?}"
    );
}

#[test]
fn an_unanswered_probe_falls_back_to_initialize_after_its_own_short_deadline() {
    for link in [Link::WebSocket, Link::Http1, Link::Node] {
        let mut e = engine(DialectChoice::Auto, link, None);
        let (sent, _, _) = outputs(&mut e, T0);
        assert_eq!(method(&sent[0]), "server/discover");
        let wake = e.next_wake().unwrap_or(Millis::MAX);
        assert_eq!(wake, T0 + PROBE_TIMEOUT_MS, "{link:?}");
        let (sent, events, _) = outputs(&mut e, wake);
        let methods: Vec<_> = sent.iter().map(method).collect();
        assert_eq!(methods, ["initialize"], "{link:?}");
        assert!(warnings(&events).is_empty(), "{link:?}: {events:?}");
        let (key, id) = as_sent(&sent[0]);
        let result = json!({ "protocolVersion": "2025-11-25", "capabilities": legacy_caps(), "serverInfo": {} });
        answer(&mut e, wake, key, &id["id"], result);
        let (_, events, _) = outputs(&mut e, wake);
        assert_eq!(connected(&events), Some(Dialect::Legacy), "{link:?}");
        let warned = warnings(&events);
        assert_eq!(warned.len(), 1, "{link:?}: {warned:?}");
        assert!(warned[0].message.contains("unanswered"), "{warned:?}");
    }
    // Forced modern asks again instead of waiting out the request timeout.
    let mut e = engine(DialectChoice::Modern, Link::WebSocket, None);
    outputs(&mut e, T0);
    assert_eq!(e.next_wake(), Some(T0 + PROBE_TIMEOUT_MS));
}

#[test]
fn a_frame_that_is_not_json_rpc_while_connecting_is_said_only_once_connected() {
    let mut e = engine(DialectChoice::Auto, Link::WebSocket, None);
    outputs(&mut e, T0);
    feed(&mut e, T0, None, framework_error());
    let (_, events, _) = outputs(&mut e, T0);
    assert!(warnings(&events).is_empty(), "{events:?}");
    let at = T0 + PROBE_TIMEOUT_MS;
    let (sent, _, _) = outputs(&mut e, at);
    let (key, body) = as_sent(&sent[0]);
    let result =
        json!({ "protocolVersion": "2025-11-25", "capabilities": legacy_caps(), "serverInfo": {} });
    answer(&mut e, at, key, &body["id"], result);
    let (_, events, _) = outputs(&mut e, at);
    assert_eq!(connected(&events), Some(Dialect::Legacy));
    let warned = warnings(&events);
    assert_eq!(
        warned.len(),
        1,
        "the first deviation while connecting: {warned:?}"
    );
    assert_eq!(warned[0].kind, ErrorKind::Protocol);
    assert!(warned[0].message.contains("not a JSON-RPC"), "{warned:?}");
    feed(&mut e, at, None, framework_error());
    let (_, events, _) = outputs(&mut e, at);
    assert!(warnings(&events).is_empty(), "said once: {events:?}");
}

/// Whether the first `initialize` the engine sends carries `Mcp-Method: initialize`, after the
/// probe (if any) met `probe`.
fn initialize_names_its_method(
    link: Link,
    known_era: Option<Dialect>,
    probe: impl Fn(&mut Engine, &Transmit),
) -> bool {
    let mut e = engine(DialectChoice::Auto, link, known_era);
    let (mut sent, _, _) = outputs(&mut e, T0);
    if method(&sent[0]) == "server/discover" {
        probe(&mut e, &sent[0]);
        sent = outputs(&mut e, T0).0;
    }
    let init = sent.iter().find(|t| method(t) == "initialize");
    let init = init.unwrap_or_else(|| panic!("no initialize: {sent:?}"));
    let named = init.headers.iter().filter(|(n, _)| n == "Mcp-Method");
    let values: Vec<_> = named.map(|(_, v)| v.as_str()).collect();
    assert!(values.is_empty() || values == ["initialize"], "{values:?}");
    !values.is_empty()
}

#[test]
fn initialize_names_its_method_only_where_no_cors_preflight_can_refuse_it() {
    let not_initialized = json!({ "jsonrpc": "2.0", "id": null,
        "error": { "code": -32000, "message": "Bad Request: Server not initialized" } });
    let refused =
        |e: &mut Engine, t: &Transmit| answer_with(e, t, 400, Some(not_initialized.clone()));
    let cors = |e: &mut Engine, t: &Transmit| {
        let error = TransportError::network("Failed to fetch");
        e.handle_input(T0, Input::Failed { key: t.key, error });
    };
    let none = |_: &mut Engine, _: &Transmit| {};
    // The probe's preflight passed: an HTTP answer came back to a request carrying the header.
    assert!(initialize_names_its_method(Link::Http1, None, refused));
    assert!(initialize_names_its_method(Link::Http2, None, refused));
    // Failed like a CORS refusal: left off.
    assert!(!initialize_names_its_method(Link::Http1, None, cors));
    // No probe in a page (a remembered legacy era): no proof, left off.
    assert!(!initialize_names_its_method(
        Link::Http1,
        Some(Dialect::Legacy),
        none
    ));
    // Node: no CORS.
    assert!(initialize_names_its_method(Link::Node, None, cors));
    assert!(initialize_names_its_method(
        Link::Node,
        Some(Dialect::Legacy),
        none
    ));
}

/// A dual-era server without the tasks extension, forced to modern; its legacy era offers tasks
/// or not (`legacy_tasks`): the error a watch gets.
fn forced_modern_on_dual_era(legacy_tasks: bool) -> ClientError {
    let mut e = engine(DialectChoice::Modern, Link::Http1, None);
    let (sent, _, _) = outputs(&mut e, T0);
    let mut discovered = discover_result(false);
    discovered["supportedVersions"] = json!(["2025-11-25", "2026-07-28"]);
    let (key, id) = as_sent(&sent[0]);
    e.handle_input(T0, head(key, 200, None));
    answer(&mut e, T0, key, &id["id"], discovered);
    e.handle_input(T0, Input::Ended { key });
    let (sent, _, _) = outputs(&mut e, T0);
    let methods: Vec<_> = sent.iter().map(method).collect();
    assert_eq!(methods, ["initialize"]);
    let caps = if legacy_tasks {
        legacy_caps()
    } else {
        json!({ "tools": {} })
    };
    accept_initialize(&mut e, T0, &[as_sent(&sent[0])], "s1", caps);
    let (sent, events, ended) = outputs(&mut e, T0);
    assert!(sent.is_empty(), "nothing more in the legacy era: {sent:?}");
    assert!(ended, "the legacy session is ended");
    assert_eq!(connected(&events), Some(Dialect::Modern));
    let sub = e.watch(T0, "t1");
    let (_, events, _) = outputs(&mut e, T0);
    let error = events.iter().find_map(|ev| match ev {
        Event::Done {
            sub: s,
            end: End::Failed { error },
            ..
        } if *s == sub => Some(error.clone()),
        _ => None,
    });
    error.unwrap_or_else(|| panic!("{events:?}"))
}

#[test]
fn forced_modern_on_a_dual_era_server_says_which_era_offers_tasks() {
    let error = forced_modern_on_dual_era(true);
    assert_eq!(error.kind, ErrorKind::Unsupported);
    assert!(
        error.message.contains("its 2025-11-25 era offers tasks"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("\"legacy\" or \"auto\""),
        "{}",
        error.message
    );
    let error = forced_modern_on_dual_era(false);
    assert!(error.message.contains("any era"), "{}", error.message);
}
