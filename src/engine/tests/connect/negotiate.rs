//! Era negotiation by evidence, scripted by hand: which era each kind of first contact ends in,
//! forced dialects verified at connect, and a remembered era skipping the probe.

use crate::json::{json, Value};

use crate::engine::api::{
    Augment, CallOptions, Config, DialectChoice, End, ErrorKind, Event, Input, Output, SendKey,
    SubId, TransportError,
};
use crate::engine::Engine;
use crate::protocol::model::Dialect;
use crate::testkit::{
    accept_initialize, answer, discover_result, drain, feed, head, read_resource, warnings, T0,
};

type Sent = Vec<(SendKey, Value)>;

fn engine(dialect: DialectChoice, known_era: Option<Dialect>) -> (Engine, Sent) {
    let cfg = Config {
        dialect,
        known_era,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 3, T0);
    let (sent, _) = drain(&mut e, T0);
    (e, sent)
}

fn methods(sent: &Sent) -> Vec<&str> {
    sent.iter()
        .map(|(_, b)| b["method"].as_str().unwrap_or("(answer)"))
        .collect()
}

/// Answers the first transmission with `result` (HTTP 200), drains: what went out, the events.
fn reply(e: &mut Engine, sent: &Sent, result: Value) -> (Sent, Vec<Event>) {
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    e.handle_input(T0, head(key, 200, None));
    answer(e, T0, key, &id, result);
    e.handle_input(T0, Input::Ended { key });
    drain(e, T0)
}

/// Refuses the first transmission with HTTP `status` and a JSON-RPC error (`id`: with its id).
fn refuse(e: &mut Engine, sent: &Sent, status: u16, error: Value, id: bool) -> (Sent, Vec<Event>) {
    let key = sent[0].0;
    let id = if id {
        sent[0].1["id"].clone()
    } else {
        Value::Null
    };
    e.handle_input(T0, head(key, status, None));
    feed(
        e,
        T0,
        Some(key),
        json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    );
    e.handle_input(T0, Input::Ended { key });
    drain(e, T0)
}

fn legacy_caps(tasks: bool) -> Value {
    if tasks {
        json!({ "tools": {}, "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } } })
    } else {
        json!({ "tools": {} })
    }
}

fn connected(events: &[Event]) -> Option<(Dialect, Value, Value)> {
    events.iter().find_map(|ev| match ev {
        Event::Connected {
            dialect,
            server_info,
            capabilities,
            ..
        } => Some((*dialect, server_info.clone(), capabilities.clone())),
        _ => None,
    })
}

fn only_modern() -> Value {
    json!({ "code": -32022, "message": "Unsupported protocol version",
            "data": { "supported": ["2026-07-28"], "requested": "2025-11-25" } })
}

fn failed(events: &[Event], sub: SubId) -> Option<ErrorKind> {
    events.iter().find_map(|ev| match ev {
        Event::Done {
            sub: s,
            end: End::Failed { error },
            ..
        } if *s == sub => Some(error.kind),
        _ => None,
    })
}

#[test]
fn discover_with_the_tasks_extension_is_modern_with_its_info_and_capabilities() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    assert_eq!(methods(&sent), ["server/discover"]);
    let (sent, events) = reply(&mut e, &sent, discover_result(true));
    assert!(sent.is_empty(), "no initialize: {sent:?}");
    let (dialect, info, caps) = connected(&events).expect("connected");
    assert_eq!(dialect, Dialect::Modern);
    assert_eq!(info["name"], json!("discovered"), "serverInfo from _meta");
    assert_eq!(caps["tools"], json!({ "listChanged": true }));
}

#[test]
fn discover_without_the_extension_and_legacy_tasks_is_legacy() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let (sent, events) = reply(&mut e, &sent, discover_result(false));
    assert_eq!(methods(&sent), ["initialize"]);
    assert!(connected(&events).is_none());
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(true));
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(methods(&sent), ["notifications/initialized"]);
    assert_eq!(connected(&events).map(|c| c.0), Some(Dialect::Legacy));
}

#[test]
fn neither_era_offering_tasks_is_modern_without_tasks_and_task_calls_fail_clearly() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let (sent, _) = reply(&mut e, &sent, discover_result(false));
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(false));
    let mut ended = false;
    let mut events = Vec::new();
    loop {
        match e.poll_output(T0) {
            Output::EndSession { .. } => ended = true,
            Output::Event(ev) => events.push(ev),
            Output::Wake(_) => break,
            _ => {}
        }
    }
    assert!(ended, "the unused legacy session is ended");
    let (dialect, info, _) = connected(&events).expect("connected");
    assert_eq!(dialect, Dialect::Modern, "the best era the server speaks");
    assert_eq!(info["name"], json!("discovered"));
    let watch = e.watch(T0, "t1");
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "nothing asked: {sent:?}");
    assert_eq!(failed(&events, watch), Some(ErrorKind::Unsupported));
    let (_, sent) = read_resource(&mut e, T0);
    assert_eq!(methods(&sent), ["resources/read"], "plain requests work");
}

#[test]
fn a_legacy_server_without_tasks_refuses_task_calls_and_serves_plain_ones() {
    let (mut e, sent) = engine(DialectChoice::Legacy, None);
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(false));
    drain(&mut e, T0);
    let always = CallOptions {
        augment: Augment::Always,
        ..CallOptions::default()
    };
    let call = e.request(T0, "resources/read", json!({}), always);
    let list = e.list_tasks(T0, None);
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "nothing asked: {sent:?}");
    assert_eq!(failed(&events, call), Some(ErrorKind::Unsupported));
    assert!(events.iter().any(|ev| matches!(ev,
        Event::Reply { op, result: Err(err) } if *op == list && err.kind == ErrorKind::Unsupported)));
    let (_, sent) = read_resource(&mut e, T0);
    assert_eq!(methods(&sent), ["resources/read"]);
}

#[test]
fn a_permissive_empty_discover_result_is_not_modern() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let (sent, events) = reply(&mut e, &sent, json!({}));
    assert_eq!(methods(&sent), ["initialize"], "{{}} proves nothing");
    assert!(warnings(&events).is_empty());
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(true));
    assert_eq!(e.dialect(), Some(Dialect::Legacy));
}

#[test]
fn a_network_failure_of_the_probe_falls_back_to_initialize_quietly() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let error = TransportError::network("Failed to fetch");
    let key = sent[0].0;
    e.handle_input(T0, Input::Failed { key, error });
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(methods(&sent), ["initialize"]);
    assert!(
        warnings(&events).is_empty(),
        "a warning would fail connect: {events:?}"
    );
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(true));
    assert_eq!(e.dialect(), Some(Dialect::Legacy));
}

#[test]
fn server_not_initialized_400_leads_to_initialize() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let error = json!({ "code": -32000, "message": "Bad Request: Server not initialized" });
    let (sent, events) = refuse(&mut e, &sent, 400, error, false);
    assert_eq!(methods(&sent), ["initialize"]);
    assert!(warnings(&events).is_empty());
}

#[test]
fn initialize_refused_listing_only_2026_07_28_is_modern() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let (sent, _) = refuse(
        &mut e,
        &sent,
        404,
        json!({ "code": -32601, "message": "nope" }),
        true,
    );
    assert_eq!(methods(&sent), ["initialize"]);
    let (sent, events) = refuse(&mut e, &sent, 200, only_modern(), true);
    assert!(sent.is_empty());
    assert_eq!(connected(&events).map(|c| c.0), Some(Dialect::Modern));
}

#[test]
fn forced_modern_on_a_legacy_only_server_is_refused_at_connect() {
    let (mut e, sent) = engine(DialectChoice::Modern, None);
    assert_eq!(
        methods(&sent),
        ["server/discover"],
        "forced modern is verified"
    );
    let call = e.call_tool(T0, "job", json!({}), CallOptions::default());
    let error = json!({ "code": -32000, "message": "Bad Request: Server not initialized" });
    let (sent, events) = refuse(&mut e, &sent, 400, error, false);
    assert!(sent.is_empty());
    let w = warnings(&events);
    assert_eq!(w.len(), 1, "{events:?}");
    assert_eq!(w[0].kind, ErrorKind::Unsupported);
    assert_eq!(failed(&events, call), Some(ErrorKind::Unsupported));
    let later = drain(&mut e, T0 + 600_000).0;
    assert!(later.is_empty(), "not retried: {later:?}");
    assert_eq!(e.dialect(), None);
}

#[test]
fn forced_modern_takes_info_and_capabilities_from_discover() {
    let (mut e, sent) = engine(DialectChoice::Modern, None);
    let (sent, events) = reply(&mut e, &sent, discover_result(false));
    assert!(sent.is_empty());
    let (dialect, info, caps) = connected(&events).expect("connected");
    assert_eq!(dialect, Dialect::Modern);
    assert_eq!(info["name"], json!("discovered"));
    assert!(caps.is_object());
}

#[test]
fn a_known_legacy_era_sends_initialize_first_and_no_probe() {
    let (mut e, sent) = engine(DialectChoice::Auto, Some(Dialect::Legacy));
    assert_eq!(methods(&sent), ["initialize"]);
    accept_initialize(&mut e, T0, &sent, "s1", legacy_caps(true));
    assert_eq!(e.dialect(), Some(Dialect::Legacy));
}

#[test]
fn a_known_era_that_fails_falls_back_to_full_negotiation() {
    let (mut e, sent) = engine(DialectChoice::Auto, Some(Dialect::Legacy));
    let (sent, events) = refuse(&mut e, &sent, 200, only_modern(), true);
    assert_eq!(
        methods(&sent),
        ["server/discover"],
        "the server moved on: negotiate afresh"
    );
    assert!(warnings(&events).is_empty());
    let (_, events) = reply(&mut e, &sent, discover_result(true));
    assert_eq!(connected(&events).map(|c| c.0), Some(Dialect::Modern));
}

#[test]
fn a_known_modern_era_takes_discover_without_the_extension_as_final() {
    let (mut e, sent) = engine(DialectChoice::Auto, Some(Dialect::Modern));
    assert_eq!(methods(&sent), ["server/discover"]);
    let (sent, events) = reply(&mut e, &sent, discover_result(false));
    assert!(sent.is_empty(), "no initialize: {sent:?}");
    assert_eq!(connected(&events).map(|c| c.0), Some(Dialect::Modern));
}

#[test]
fn modern_server_info_comes_from_the_meta_of_any_response() {
    let (mut e, sent) = engine(DialectChoice::Auto, None);
    let error = json!({ "code": -32020, "message": "header mismatch" });
    let (_, events) = refuse(&mut e, &sent, 400, error, true);
    let (dialect, info, _) = connected(&events).expect("connected");
    assert_eq!((dialect, info), (Dialect::Modern, Value::Null));
    let (_, sent) = read_resource(&mut e, T0);
    let meta = json!({ "io.modelcontextprotocol/serverInfo": { "name": "late", "version": "2" } });
    let (_, events) = reply(&mut e, &sent, json!({ "contents": [], "_meta": meta }));
    let (_, info, _) = connected(&events).expect("connected again with the info");
    assert_eq!(info["name"], json!("late"));
    let (_, sent) = read_resource(&mut e, T0);
    let (_, events) = reply(&mut e, &sent, json!({ "contents": [], "_meta": meta }));
    assert!(connected(&events).is_none(), "announced once");
}
