//! A server that answers requests with HTTP 202 and writes their responses into another stream
//! of the session: each request stays pending under its own timeout, its response is matched by
//! id wherever it comes, the listening stream is opened at once if it is closed, the host is
//! warned once, and a response that never comes fails the request naming the 202.

use crate::json::{json, Value};

use crate::engine::api::{
    ClientError, Config, DialectChoice, End, ErrorKind, Event, Input, Link, Millis, Output,
    SendKey, SubId, TransportError,
};
use crate::engine::Engine;
use crate::testkit::{accept_initialize, answer, events_of, feed, head, outputs, T0};

fn listens(out: &[Output]) -> Vec<SendKey> {
    out.iter()
        .filter_map(|o| match o {
            Output::Listen { key, .. } => Some(*key),
            _ => None,
        })
        .collect()
}

fn warnings(events: &[Event]) -> Vec<ClientError> {
    events
        .iter()
        .filter_map(|ev| match ev {
            Event::Warning { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect()
}

fn end_of(events: &[Event], sub: SubId) -> Option<End> {
    events.iter().find_map(|ev| match ev {
        Event::Done { sub: s, end, .. } if *s == sub => Some(end.clone()),
        _ => None,
    })
}

/// A legacy session `s1` over Node, ready: the engine and its listening stream's key.
fn ready() -> (Engine, SendKey) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::Node,
        ..Config::default()
    };
    let mut e = Engine::new(cfg, 5, T0);
    let sent = transmitted(&outputs(&mut e, T0));
    accept_initialize(&mut e, T0, &sent, "s1", json!({}));
    let out = outputs(&mut e, T0);
    // The stream opens once the `initialized` notification was answered.
    assert!(listens(&out).is_empty(), "{out:?}");
    let initialized = transmitted(&out)
        .into_iter()
        .find(|(_, b)| b["method"] == "notifications/initialized");
    let Some((initialized, _)) = initialized else {
        panic!("no initialized notification: {out:?}")
    };
    e.handle_input(T0, head(initialized, 202, Some("s1")));
    let out = outputs(&mut e, T0);
    let [listening] = listens(&out)[..] else {
        panic!("one listening stream: {out:?}")
    };
    e.handle_input(T0, head(listening, 200, Some("s1")));
    (e, listening)
}

/// The transmissions among `out`: (key, body).
fn transmitted(out: &[Output]) -> Vec<(SendKey, Value)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Transmit(t) => Some((t.key, serde_json::from_str(&t.body).unwrap())),
            _ => None,
        })
        .collect()
}

/// Sends a `resources/read` at `now`, answered HTTP 202 with an empty body: its subscription,
/// JSON-RPC id, and what the engine output once the 202 ended.
fn accepted(e: &mut Engine, now: Millis) -> (SubId, Value, Vec<Output>) {
    let sub = e.request(
        now,
        "resources/read",
        json!({ "uri": "x" }),
        Default::default(),
    );
    let sent = transmitted(&outputs(e, now));
    let [(key, body)] = &sent[..] else {
        panic!("one request: {sent:?}")
    };
    e.handle_input(now, head(*key, 202, Some("s1")));
    e.handle_input(now, Input::Ended { key: *key });
    (sub, body["id"].clone(), outputs(e, now))
}

/// A JSON-RPC result for request `id`.
fn response(id: &Value, n: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": { "contents": [n] } })
}

fn finished(evs: &[Event], sub: SubId) {
    match end_of(evs, sub) {
        Some(End::Finished { outcome, .. }) => assert!(outcome.is_some(), "{sub:?}"),
        other => panic!("{sub:?} finished with its response: {other:?}"),
    }
}

#[test]
fn responses_to_requests_answered_202_are_matched_on_the_other_streams() {
    let (mut e, _) = ready();
    let (first, first_id, out) = accepted(&mut e, T0 + 10);
    let evs = events_of(&out);
    assert_eq!(end_of(&evs, first), None, "still pending: {evs:?}");
    let warned = warnings(&evs);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].message.contains("HTTP 202"), "{warned:?}");

    let (second, second_id, out) = accepted(&mut e, T0 + 20);
    assert!(
        warnings(&events_of(&out)).is_empty(),
        "warned once per session"
    );

    // The first response comes on the listening stream.
    feed(&mut e, T0 + 30, None, response(&first_id, 1));
    finished(&events_of(&outputs(&mut e, T0 + 30)), first);

    // The second on a third request's SSE stream, before that request's own answer.
    let third = e.request(
        T0 + 40,
        "resources/read",
        json!({ "uri": "y" }),
        Default::default(),
    );
    let [(key, body)] = &transmitted(&outputs(&mut e, T0 + 40))[..] else {
        panic!("one request")
    };
    e.handle_input(T0 + 40, head(*key, 200, Some("s1")));
    feed(&mut e, T0 + 50, Some(*key), response(&second_id, 2));
    answer(
        &mut e,
        T0 + 50,
        *key,
        &body["id"],
        json!({ "contents": [3] }),
    );
    let evs = events_of(&outputs(&mut e, T0 + 50));
    finished(&evs, second);
    finished(&evs, third);
}

#[test]
fn a_202_whose_response_never_comes_fails_at_the_timeout_naming_it() {
    let (mut e, _) = ready();
    let timeout = Config::default().request_timeout_ms;
    let (sub, _, _) = accepted(&mut e, T0);
    let evs = events_of(&outputs(&mut e, T0 + timeout - 1));
    assert_eq!(end_of(&evs, sub), None, "pending until its timeout");
    let evs = events_of(&outputs(&mut e, T0 + timeout));
    let Some(End::Failed { error }) = end_of(&evs, sub) else {
        panic!("failed at its timeout: {evs:?}")
    };
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert_eq!(error.http_status, Some(202));
    assert!(error.message.contains("HTTP 202"), "{}", error.message);
}

#[test]
fn a_202_reopens_a_closed_listening_stream_at_once() {
    let (mut e, listening) = ready();
    // The stream ends; the server asks for 30 s before it is reopened.
    e.handle_input(
        T0,
        Input::Cursor {
            key: listening,
            last_event_id: Some("ev-1".into()),
            retry_ms: Some(30_000),
        },
    );
    e.handle_input(T0, Input::Ended { key: listening });
    assert!(listens(&outputs(&mut e, T0 + 100)).is_empty());
    let (sub, id, out) = accepted(&mut e, T0 + 100);
    let [again] = listens(&out)[..] else {
        panic!("the listening stream opens with the 202: {out:?}")
    };
    e.handle_input(T0 + 100, head(again, 200, Some("s1")));
    feed(&mut e, T0 + 150, None, response(&id, 1));
    finished(&events_of(&outputs(&mut e, T0 + 150)), sub);
    assert!(
        listens(&outputs(&mut e, T0 + 60_000)).is_empty(),
        "no second stream from the old schedule"
    );
}

#[test]
fn a_202_on_a_session_whose_listening_stream_was_refused_fails_at_once() {
    let (mut e, listening) = ready();
    e.handle_input(
        T0,
        Input::Failed {
            key: listening,
            error: TransportError {
                http_status: Some(405),
                ..TransportError::network("no event stream")
            },
        },
    );
    let (sub, _, out) = accepted(&mut e, T0);
    assert!(
        listens(&out).is_empty(),
        "a refused stream is not asked again"
    );
    let evs = events_of(&out);
    let Some(End::Failed { error }) = end_of(&evs, sub) else {
        panic!("nowhere for its response to come: {evs:?}")
    };
    assert_eq!(error.http_status, Some(202));
    assert!(error.message.contains("HTTP 202"), "{}", error.message);
}

#[test]
fn list_tools_answered_202_gets_its_tools_from_the_listening_stream() {
    let (mut e, _) = ready();
    let op = e.list_tools(T0);
    let [(key, body)] = &transmitted(&outputs(&mut e, T0))[..] else {
        panic!("one tools/list")
    };
    assert_eq!(body["method"], "tools/list");
    e.handle_input(T0, head(*key, 202, Some("s1")));
    e.handle_input(T0, Input::Ended { key: *key });
    let out = outputs(&mut e, T0);
    assert!(transmitted(&out).is_empty(), "not asked again: {out:?}");
    let tools = json!({ "tools": [{ "name": "job", "inputSchema": { "type": "object" } }] });
    let response = json!({ "jsonrpc": "2.0", "id": body["id"], "result": tools });
    feed(&mut e, T0 + 20, None, response);
    let evs = events_of(&outputs(&mut e, T0 + 20));
    let listed = evs.iter().find_map(|ev| match ev {
        Event::Reply { op: o, result } if *o == op => Some(result.clone()),
        _ => None,
    });
    let Some(Ok(listed)) = listed else {
        panic!("the listing settles with the tools: {evs:?}")
    };
    assert_eq!(listed["tools"][0]["name"], "job");
}

/// A server may refuse a GET that reaches it before `notifications/initialized` (arcade answers
/// 400 "Not initialized"): the listening stream opens only once the notification was answered.
#[test]
fn the_listening_stream_waits_for_the_initialized_notification() {
    let (_, listening) = ready();
    assert_ne!(listening, SendKey(0));
}
