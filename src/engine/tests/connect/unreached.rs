//! Requests that got no HTTP response: what a page and Node are told (the URL, the likely causes,
//! the headers a CORS preflight must allow), the 2026-07-28 era refused at a page's preflight,
//! and error pages that are not JSON quoted.

use crate::json::{json, Value};

use crate::engine::api::{
    CallOptions, ClientError, Config, DialectChoice, End, Event, Input, Link, SendKey, SubId,
    TransportError,
};
use crate::engine::Engine;
use crate::protocol::model::Dialect;
use crate::testkit::{accept_initialize, answer, discover_result, drain, head, warnings, T0};

const URL: &str = "http://127.0.0.1:9/mcp";

fn engine(dialect: DialectChoice, link: Link) -> (Engine, Vec<(SendKey, Value)>) {
    let cfg = Config {
        dialect,
        link,
        url: URL.to_owned(),
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 5, T0);
    let (sent, _) = drain(&mut e, T0);
    (e, sent)
}

/// What the driver reports when `fetch` itself failed (in a page: also a CORS refusal).
fn unreached(e: &mut Engine, key: SendKey) {
    let error = TransportError {
        unreached: true,
        ..TransportError::network("Failed to fetch")
    };
    e.handle_input(T0, Input::Failed { key, error });
}

fn failure(events: &[Event], sub: SubId) -> Option<ClientError> {
    events.iter().find_map(|ev| match ev {
        Event::Done {
            sub: s,
            end: End::Failed { error },
            ..
        } if *s == sub => Some(error.clone()),
        _ => None,
    })
}

/// A tool call whose requests get no response: the first error the host hears of it (the
/// `tools/list` before it warns, the call fails).
fn call_unreached(e: &mut Engine) -> ClientError {
    let sub = e.call_tool(T0, "job", json!({}), CallOptions::default());
    let (sent, _) = drain(e, T0);
    for (key, _) in sent {
        unreached(e, key);
    }
    let (_, events) = drain(e, T0);
    let warned = warnings(&events).first().map(|w| (*w).clone());
    let error = failure(&events, sub).or(warned);
    error.unwrap_or_else(|| panic!("no error: {events:?}"))
}

/// Auto in a page: the probe gets no response (a preflight refusing `Mcp-Method`).
fn probe_refused(link: Link) -> (Engine, Vec<(SendKey, Value)>) {
    let (mut e, sent) = engine(DialectChoice::Auto, link);
    assert_eq!(sent[0].1["method"], "server/discover");
    unreached(&mut e, sent[0].0);
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(sent[0].1["method"], "initialize");
    assert!(warnings(&events).is_empty(), "{events:?}");
    (e, sent)
}

#[test]
fn a_modern_only_server_whose_preflight_refuses_the_modern_headers_is_named() {
    let (mut e, sent) = probe_refused(Link::Http1);
    // `initialize` (without `Mcp-Method`) gets an HTTP answer: -32022, 2026-07-28 only.
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    e.handle_input(T0, head(key, 200, None));
    let error = json!({ "code": -32022, "message": "Unsupported protocol version",
                        "data": { "supported": ["2026-07-28"] } });
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string();
    let via = Some(key);
    e.handle_input(T0, Input::Message { via, body });
    e.handle_input(T0, Input::Ended { key });
    drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Modern));
    let error = call_unreached(&mut e);
    assert_eq!(
        error.message,
        format!("the server's CORS policy refuses this page's 2026-07-28 requests: its preflight must allow the request headers Mcp-Method, Mcp-Name and MCP-Protocol-Version for this page's origin; URL {URL}")
    );
}

#[test]
fn a_dual_era_server_whose_preflight_refuses_the_modern_headers_warns_once_of_the_legacy_era() {
    let (mut e, sent) = probe_refused(Link::Http2);
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tools": {} }));
    let (_, events) = drain(&mut e, T0);
    let w = warnings(&events);
    assert_eq!(w.len(), 1, "{events:?}");
    assert!(w[0].message.starts_with("server/discover got no response while initialize did: the server's CORS policy refuses the 2026-07-28 request headers, so the 2025-11-25 era is used"), "{}", w[0].message);
    assert!(
        w[0].message.ends_with(
            "must allow Mcp-Method, Mcp-Name and MCP-Protocol-Version for this page's origin"
        ),
        "{}",
        w[0].message
    );
    assert_eq!(e.dialect(), Some(Dialect::Legacy));
    // The page's requests after that fail naming the 2025-11-25 headers, not a second warning.
    let error = call_unreached(&mut e);
    assert!(
        error.message.contains("Mcp-Session-Id"),
        "{}",
        error.message
    );
}

#[test]
fn no_fallback_warning_in_node_where_no_preflight_refuses_the_probe() {
    let (mut e, sent) = engine(DialectChoice::Auto, Link::Node);
    unreached(&mut e, sent[0].0);
    let (sent, _) = drain(&mut e, T0);
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tools": {} }));
    let (_, events) = drain(&mut e, T0);
    assert!(warnings(&events).is_empty(), "{events:?}");
}

#[test]
fn a_page_request_without_response_names_the_url_the_causes_and_the_legacy_headers() {
    let (mut e, sent) = engine(DialectChoice::Legacy, Link::Http1);
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tools": {}, "tasks": {} }));
    drain(&mut e, T0);
    let error = call_unreached(&mut e);
    assert_eq!(
        error.message,
        format!("no response from {URL} (Failed to fetch): the server is down or unreachable, or its CORS policy refuses this page's origin or request headers; it must allow Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and the headers option's (Authorization), and expose Mcp-Session-Id")
    );
    assert_eq!(error.http_status, None);
}

#[test]
fn a_page_request_without_response_on_a_modern_server_that_answered_names_the_modern_headers() {
    let (mut e, sent) = engine(DialectChoice::Auto, Link::Http1);
    let (key, id) = (sent[0].0, sent[0].1["id"].clone());
    e.handle_input(T0, head(key, 200, None));
    answer(&mut e, T0, key, &id, discover_result(true));
    e.handle_input(T0, Input::Ended { key });
    drain(&mut e, T0);
    assert_eq!(e.dialect(), Some(Dialect::Modern));
    // The probe carried `Mcp-Method` and was answered: the server is down, not refusing it.
    let error = call_unreached(&mut e);
    assert_eq!(
        error.message,
        format!("no response from {URL} (Failed to fetch): the server is down or unreachable, or its CORS policy refuses this page's origin or request headers; it must allow Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID and the headers option's (Authorization)")
    );
}

#[test]
fn a_node_request_without_response_names_the_url_and_no_cors() {
    let (mut e, sent) = engine(DialectChoice::Legacy, Link::Node);
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tools": {}, "tasks": {} }));
    drain(&mut e, T0);
    let error = call_unreached(&mut e);
    assert_eq!(
        error.message,
        format!("no response from {URL}: the connection failed or was refused (Failed to fetch)")
    );
}

#[test]
fn an_error_page_that_is_not_json_is_quoted_and_text_beside_a_2xx_is_ignored() {
    let (mut e, sent) = engine(DialectChoice::Legacy, Link::Http1);
    accept_initialize(&mut e, T0, &sent, "s1", json!({ "tools": {}, "tasks": {} }));
    drain(&mut e, T0);
    let sub = e.call_tool(T0, "job", json!({}), CallOptions::default());
    let (sent, _) = drain(&mut e, T0);
    let key = sent[0].0;
    e.handle_input(T0, head(key, 400, None));
    let body = "<html><body>Bad Request: no such tool</body></html>".to_owned();
    e.handle_input(
        T0,
        Input::Message {
            via: Some(key),
            body,
        },
    );
    e.handle_input(T0, Input::Ended { key });
    let (_, events) = drain(&mut e, T0);
    let error = failure(&events, sub).or_else(|| warnings(&events).first().map(|w| (*w).clone()));
    let error = error.unwrap_or_else(|| panic!("no failure: {events:?}"));
    assert_eq!(
        error.message,
        "HTTP 400, not JSON-RPC: <html><body>Bad Request: no such tool</body></html>"
    );
    // A 202 saying "Accepted" in plain text: nothing to warn about.
    let op = e.list_tasks(T0, None);
    let (sent, _) = drain(&mut e, T0);
    let key = sent[0].0;
    e.handle_input(T0, head(key, 202, None));
    let body = "Accepted".to_owned();
    e.handle_input(
        T0,
        Input::Message {
            via: Some(key),
            body,
        },
    );
    let (_, events) = drain(&mut e, T0);
    assert!(warnings(&events).is_empty(), "{op:?}: {events:?}");
}
