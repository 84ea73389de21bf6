//! Session details scripted by hand: a modern error to the probe, dead sessions answered with 400,
//! server requests (ping, unknown methods, duplicates), and transport failures while connecting.

use crate::json::{json, Value};

use crate::engine::api::{Config, DialectChoice, Event, SendKey};
use crate::engine::Engine;
use crate::protocol::model::Dialect;
use crate::testkit::{accept_initialize, drain, feed, head, read_resource, T0};

fn engine(dialect: DialectChoice) -> Engine {
    Engine::new(
        Config {
            dialect,
            ..Config::default()
        },
        7,
        T0,
    )
}

fn method(sent: &[(SendKey, Value)], i: usize) -> &str {
    sent.get(i)
        .and_then(|(_, b)| b["method"].as_str())
        .unwrap_or("")
}

/// A legacy session opened by hand; returns the engine and the `initialize` session id used.
fn legacy_ready() -> Engine {
    let mut e = engine(DialectChoice::Legacy);
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(method(&sent, 0), "initialize");
    let caps = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
    accept_initialize(&mut e, T0, &sent, "s1", caps);
    e
}

#[test]
fn a_modern_error_to_the_probe_means_modern() {
    let mut e = engine(DialectChoice::Auto);
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(method(&sent, 0), "server/discover");
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    e.handle_input(T0, head(key, 400, None));
    let error = json!({ "code": -32021, "message": "missing capability", "data": {} });
    feed(
        &mut e,
        T0,
        Some(key),
        json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    );
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Modern));
    assert!(sent.is_empty(), "no initialize: {sent:?}");
    assert!(events.iter().any(|ev| matches!(
        ev,
        Event::Connected {
            dialect: Dialect::Modern,
            ..
        }
    )));
}

#[test]
fn an_id_less_400_on_a_session_reinitializes_and_resends() {
    let mut e = legacy_ready();
    let (sub, sent) = read_resource(&mut e, T0);
    let read = sent
        .iter()
        .find(|(_, b)| b["method"] == json!("resources/read"))
        .cloned();
    let Some((key, _)) = read else {
        panic!("{sent:?}")
    };
    e.handle_input(T0, head(key, 400, None));
    let body = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": "Bad Request: No valid session ID provided" } });
    feed(&mut e, T0, Some(key), body);
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(method(&sent, 0), "initialize", "{sent:?}");
    assert!(!events
        .iter()
        .any(|ev| matches!(ev, Event::Done { sub: s, .. } if *s == sub)));
    accept_initialize(&mut e, T0, &sent, "s2", json!({}));
    let (sent, _) = drain(&mut e, T0);
    assert!(
        sent.iter()
            .any(|(_, b)| b["method"] == json!("resources/read")),
        "resent: {sent:?}"
    );
}

#[test]
fn server_requests_ping_unknown_and_duplicates() {
    let mut e = legacy_ready();
    drain(&mut e, T0);
    feed(
        &mut e,
        T0,
        None,
        json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" }),
    );
    feed(
        &mut e,
        T0,
        None,
        json!({ "jsonrpc": "2.0", "id": 9, "method": "weird/thing" }),
    );
    let ask = json!({ "jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": { "message": "?" } });
    feed(&mut e, T0, None, ask.clone());
    feed(&mut e, T0, None, ask);
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(sent.len(), 2);
    assert_eq!(
        sent[0].1,
        json!({ "jsonrpc": "2.0", "id": "p", "result": {} })
    );
    assert_eq!(sent[1].1["error"]["code"], json!(-32601));
    let inputs: Vec<_> = events
        .iter()
        .filter(|ev| matches!(ev, Event::Input { .. }))
        .collect();
    assert_eq!(inputs.len(), 1, "a duplicate delivery is surfaced once");
    let Some(Event::Input { id, request, .. }) = inputs.first().map(|ev| (*ev).clone()) else {
        return;
    };
    assert_eq!(request.key, "5");
    e.answer_input(T0, id, Ok(json!({ "action": "decline" })));
    e.answer_input(T0, id, Ok(json!({ "action": "accept" })));
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "answered once");
    assert_eq!(sent[0].1["id"], json!(5));
    assert_eq!(sent[0].1["result"]["action"], json!("decline"));
}
