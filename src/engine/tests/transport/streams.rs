//! Scripted by hand: resuming a request's SSE stream with `GET` + `Last-Event-ID` (bounded, with
//! backoff, the original request settled by the redelivered answer), HTTP 401/403 (resent once when
//! the credentials can change, then `Unauthorized` with the parsed challenge, the status never in
//! `code`), and SEP-1034 defaults in accepted elicitations.

use crate::json::{json, Value};

use crate::engine::api::{
    ClientError, Config, DialectChoice, End, ErrorKind, Event, Input, Millis, Output, SendKey,
    SubId,
};
use crate::engine::requests::resume::MAX_RESUMES;
use crate::engine::Engine;
use crate::testkit::{
    accept_initialize, answer, drain, events_of, feed, head, outputs, read_resource, T0,
};

fn wake(e: &mut Engine, now: Millis) -> Millis {
    match e.poll_output(now) {
        Output::Wake(at) => at,
        other => panic!("expected a wake, got {other:?}"),
    }
}

/// A host whose credentials may change between requests (a header provider).
fn legacy(dialect: DialectChoice) -> Engine {
    Engine::new(
        Config {
            dialect,
            renews_credentials: true,
            ..Config::default()
        },
        11,
        T0,
    )
}

/// A legacy session `s1`, ready.
fn legacy_ready() -> Engine {
    ready(legacy(DialectChoice::Legacy))
}

/// `e`'s legacy session `s1`, ready.
fn ready(mut e: Engine) -> Engine {
    let (sent, _) = drain(&mut e, T0);
    accept_initialize(&mut e, T0, &sent, "s1", json!({}));
    drain(&mut e, T0);
    e
}

/// A plain request in flight: its subscription, stream key and JSON-RPC id.
fn request(e: &mut Engine) -> (SubId, SendKey, Value) {
    let (sub, sent) = read_resource(e, T0);
    let Some((key, body)) = sent
        .into_iter()
        .find(|(_, b)| b["method"] == "resources/read")
    else {
        panic!("no resources/read sent")
    };
    (sub, key, body["id"].clone())
}

/// A plain request whose SSE stream (200) carried event `event` with `retry_ms`, then ended at
/// `at` unanswered: its subscription and JSON-RPC id.
fn cut_stream(e: &mut Engine, event: &str, retry_ms: Option<u64>, at: Millis) -> (SubId, Value) {
    let (sub, key, id) = request(e);
    e.handle_input(T0, head(key, 200, Some("s1")));
    e.handle_input(T0, cursor(key, event, retry_ms));
    e.handle_input(at, Input::Ended { key });
    (sub, id)
}

fn cursor(key: SendKey, id: &str, retry_ms: Option<u64>) -> Input {
    Input::Cursor {
        key,
        last_event_id: Some(id.to_owned()),
        retry_ms,
    }
}

fn done(events: &[Event], sub: SubId) -> Option<&End> {
    events.iter().find_map(|ev| match ev {
        Event::Done { sub: s, end, .. } if *s == sub => Some(end),
        _ => None,
    })
}

fn failed(events: &[Event], sub: SubId) -> ClientError {
    match done(events, sub) {
        Some(End::Failed { error }) => error.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// A resumption `GET`: its key, headers and `Last-Event-ID`.
type Resumption = (SendKey, Vec<(String, String)>, String);

/// The resumption `GET` among `out`.
fn resumed(out: &[Output]) -> Option<Resumption> {
    out.iter().find_map(|o| match o {
        Output::Resume {
            key,
            headers,
            last_event_id,
        } => Some((*key, headers.clone(), last_event_id.clone())),
        _ => None,
    })
}

#[test]
fn a_post_stream_closed_before_its_answer_is_resumed_and_the_request_resolves() {
    let mut e = legacy_ready();
    let (sub, id) = cut_stream(&mut e, "event-1", Some(500), T0 + 50);
    let out = outputs(&mut e, T0 + 50);
    assert!(resumed(&out).is_none(), "not before `retry` ms: {out:?}");
    let events = events_of(&out);
    assert!(
        events.is_empty(),
        "the request neither failed nor warned: {events:?}"
    );
    assert_eq!(
        wake(&mut e, T0 + 50),
        T0 + 550,
        "resumed after exactly `retry` ms"
    );

    let out = outputs(&mut e, T0 + 550);
    let Some((get, headers, last)) = resumed(&out) else {
        panic!("no resumption: {out:?}")
    };
    assert_eq!(last, "event-1");
    assert!(
        headers.contains(&("Mcp-Session-Id".into(), "s1".into())),
        "{headers:?}"
    );
    assert!(
        headers.iter().any(|(k, _)| k == "MCP-Protocol-Version"),
        "{headers:?}"
    );

    e.handle_input(T0 + 560, head(get, 200, Some("s1")));
    e.handle_input(T0 + 560, cursor(get, "event-2", Some(500)));
    answer(&mut e, T0 + 560, get, &id, json!({ "contents": [] }));
    let out = outputs(&mut e, T0 + 560);
    assert!(
        out.contains(&Output::Abort { key: get }),
        "the resumption GET is closed once answered: {out:?}"
    );
    let events = events_of(&out);
    match done(&events, sub) {
        Some(End::Finished { outcome, .. }) => {
            assert!(outcome.is_some(), "the redelivered answer is the outcome")
        }
        other => panic!("expected the original request to finish: {other:?}"),
    }
}

#[test]
fn resumptions_without_a_new_event_are_bounded_and_back_off() {
    let mut e = legacy_ready();
    let (sub, _) = cut_stream(&mut e, "e1", Some(300), T0);
    let mut now = T0;
    let mut delays = Vec::new();
    let mut progressed = false;
    loop {
        let out = outputs(&mut e, now);
        let events = events_of(&out);
        if done(&events, sub).is_some() {
            let error = failed(&events, sub);
            assert_eq!(error.kind, ErrorKind::Transport);
            assert_eq!(error.http_status, Some(200));
            assert_eq!(error.code, None, "an HTTP status is never a JSON-RPC code");
            break;
        }
        let at = wake(&mut e, now);
        assert!(at < T0 + 600_000, "gave up in bounded time");
        delays.push(at - now);
        now = at;
        let Some((get, _, last)) = resumed(&outputs(&mut e, now)) else {
            panic!("no resumption at {now}")
        };
        e.handle_input(now, head(get, 200, Some("s1")));
        // One new event once: the attempts count again from zero.
        if !progressed && delays.len() == 3 {
            progressed = true;
            e.handle_input(now, cursor(get, "e2", None));
        } else {
            assert!(last == "e1" || last == "e2");
        }
        e.handle_input(now, Input::Ended { key: get });
    }
    assert_eq!(delays.len() as u32, 3 + MAX_RESUMES, "{delays:?}");
    assert_eq!(delays[0], 300, "the first waits the server's `retry`");
    assert_eq!(delays[3], 300, "after a new event, `retry` again");
    assert!(
        delays.iter().all(|&d| (300..=45_000).contains(&d)),
        "{delays:?}"
    );
    assert!(
        delays[4] >= 300 && delays[5] > delays[3],
        "backs off: {delays:?}"
    );
}

#[test]
fn a_refused_resumption_or_a_stream_without_ids_fails_with_the_status_not_a_code() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, head(key, 200, Some("s1")));
    e.handle_input(T0, Input::Ended { key });
    let (_, events) = drain(&mut e, T0);
    let error = failed(&events, sub);
    assert_eq!((error.http_status, error.code), (Some(200), None));
    assert!(error.message.contains("HTTP 200"), "{}", error.message);

    let (sub, _) = cut_stream(&mut e, "e1", None, T0);
    let at = wake(&mut e, T0);
    assert_eq!(at, T0 + 1_000, "no `retry`: one second");
    let Some((get, _, _)) = resumed(&outputs(&mut e, at)) else {
        panic!("no resumption")
    };
    e.handle_input(at, head(get, 405, Some("s1")));
    e.handle_input(at, Input::Ended { key: get });
    let (_, events) = drain(&mut e, at);
    let error = failed(&events, sub);
    assert_eq!((error.http_status, error.code), (Some(405), None));
}

#[test]
fn a_stream_broken_by_the_network_is_resumed_too() {
    let mut e = legacy_ready();
    let (sub, key, id) = request(&mut e);
    e.handle_input(T0, head(key, 200, Some("s1")));
    e.handle_input(T0, cursor(key, "e1", Some(200)));
    let error = crate::engine::api::TransportError::network("network error");
    e.handle_input(T0, Input::Failed { key, error });
    let Some((get, _, _)) = resumed(&outputs(&mut e, T0 + 200)) else {
        panic!("no resumption")
    };
    answer(&mut e, T0 + 210, get, &id, json!({ "contents": [] }));
    let (_, events) = drain(&mut e, T0 + 210);
    assert!(matches!(done(&events, sub), Some(End::Finished { .. })));
}

/// The fault matrix's oversized poll: the message after the last event id is over the size limit,
/// so resuming would bring it again; the request fails with the size error (no resumption).
#[test]
fn a_stream_broken_by_an_oversized_message_is_not_resumed() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, head(key, 200, Some("s1")));
    e.handle_input(T0, cursor(key, "e1", Some(200)));
    let error = crate::engine::api::TransportError {
        over_limit: true,
        ..crate::engine::api::TransportError::network(
            "SSE line or event exceeds the 1048576-byte limit",
        )
    };
    e.handle_input(T0, Input::Failed { key, error });
    let out = outputs(&mut e, T0 + 5_000);
    assert!(resumed(&out).is_none(), "{out:?}");
    let error = failed(&events_of(&out), sub);
    assert!(error.message.contains("limit"), "{}", error.message);
}

fn www_auth() -> Input {
    Input::Head {
        key: SendKey(0),
        status: 401,
        session_id: None,
        retry_after_ms: None,
        www_authenticate: Some(
            r#"Bearer error="invalid_token", scope="mcp:read, mcp:write", resource_metadata="https://as.example/.well-known/oauth-protected-resource""#
                .into(),
        ),
    }
}

fn refused(key: SendKey, status: u16) -> Input {
    match www_auth() {
        Input::Head {
            session_id,
            retry_after_ms,
            www_authenticate,
            ..
        } => Input::Head {
            key,
            status,
            session_id,
            retry_after_ms,
            www_authenticate,
        },
        other => other,
    }
}

#[test]
fn a_401_is_sent_once_more_then_fails_as_unauthorized_with_the_challenge() {
    let mut e = legacy_ready();
    let (sub, key, id) = request(&mut e);
    e.handle_input(T0, refused(key, 401));
    let out = outputs(&mut e, T0);
    assert!(out.contains(&Output::Abort { key }), "{out:?}");
    let again: Vec<&crate::engine::api::Transmit> = out
        .iter()
        .filter_map(|o| match o {
            Output::Transmit(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(again.len(), 1, "sent once more: {out:?}");
    let body: Value = serde_json::from_str(&again[0].body).unwrap_or_default();
    assert_eq!(body["method"], "resources/read");
    assert_ne!(body["id"], id, "a new request");
    assert!(
        !out.iter().any(|o| matches!(o, Output::Event(_))),
        "{out:?}"
    );

    e.handle_input(T0, refused(again[0].key, 401));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "not a third time: {sent:?}");
    let error = failed(&events, sub);
    assert_eq!(error.kind, ErrorKind::Unauthorized);
    assert_eq!((error.http_status, error.code), (Some(401), None));
    let auth = error.auth.unwrap_or_default();
    assert_eq!(auth.error.as_deref(), Some("invalid_token"));
    assert_eq!(auth.scope.as_deref(), Some("mcp:read, mcp:write"));
    assert_eq!(
        auth.resource_metadata.as_deref(),
        Some("https://as.example/.well-known/oauth-protected-resource")
    );
    assert!(auth
        .www_authenticate
        .is_some_and(|h| h.starts_with("Bearer ")));
}

#[test]
fn a_401_fails_at_once_when_nothing_can_change_the_credentials() {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        ..Config::default()
    };
    let mut e = ready(Engine::new(cfg, 11, T0));
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, refused(key, 401));
    let (sent, events) = drain(&mut e, T0);
    assert!(
        sent.is_empty(),
        "the same credentials are not sent again: {sent:?}"
    );
    let error = failed(&events, sub);
    assert_eq!(
        (error.kind, error.http_status),
        (ErrorKind::Unauthorized, Some(401))
    );
}

#[test]
fn a_401_then_a_fresh_token_succeeds_and_a_403_is_not_retried() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, refused(key, 401));
    let (sent, _) = drain(&mut e, T0);
    let (key2, body) = (sent[0].0, sent[0].1.clone());
    e.handle_input(T0, head(key2, 200, Some("s1")));
    answer(&mut e, T0, key2, &body["id"], json!({ "contents": [] }));
    let (_, events) = drain(&mut e, T0);
    assert!(matches!(done(&events, sub), Some(End::Finished { .. })));

    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, refused(key, 403));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "a 403 is not retried: {sent:?}");
    let error = failed(&events, sub);
    assert_eq!(
        (error.kind, error.http_status),
        (ErrorKind::Unauthorized, Some(403))
    );
}

/// A 403 with no challenge at all (a server refusing a page's origin) says nothing of
/// credentials: it fails the request as a transport refusal naming the status, not retried.
#[test]
fn a_403_without_a_challenge_is_a_refusal_not_unauthorized() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, head(key, 403, None));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "a 403 is not retried: {sent:?}");
    let error = failed(&events, sub);
    assert_eq!(
        (error.kind, error.http_status),
        (ErrorKind::Transport, Some(403))
    );
    assert!(
        error.message.contains("refuses this request"),
        "{}",
        error.message
    );
}

#[test]
fn a_403_insufficient_scope_is_sent_once_more_for_step_up() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    let step_up = |key| Input::Head {
        key,
        status: 403,
        session_id: None,
        retry_after_ms: None,
        www_authenticate: Some(r#"Bearer error="insufficient_scope", scope="files:write""#.into()),
    };
    e.handle_input(T0, step_up(key));
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "sent once more after step-up: {sent:?}");
    assert!(events.is_empty(), "{events:?}");
    e.handle_input(T0, step_up(sent[0].0));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "not a third time: {sent:?}");
    let error = failed(&events, sub);
    assert_eq!(error.http_status, Some(403));
    assert_eq!(
        error.auth.unwrap_or_default().scope.as_deref(),
        Some("files:write")
    );
}

#[test]
fn a_401_on_initialize_resends_the_handshake_then_reports_unauthorized() {
    let mut e = legacy(DialectChoice::Legacy);
    let (sent, _) = drain(&mut e, T0);
    e.handle_input(T0, refused(sent[0].0, 401));
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].1["method"], "initialize");
    assert!(events.is_empty(), "{events:?}");
    e.handle_input(T0, refused(sent[0].0, 401));
    let (_, events) = drain(&mut e, T0);
    let warned = events.iter().find_map(|ev| match ev {
        Event::Warning {
            task_id: None,
            error,
        } => Some(error.clone()),
        _ => None,
    });
    let Some(error) = warned else {
        panic!("the connect failure is reported: {events:?}")
    };
    assert_eq!(
        (error.kind, error.http_status),
        (ErrorKind::Unauthorized, Some(401))
    );
}

#[test]
fn accepted_elicitations_get_the_schema_defaults_the_host_left_out() {
    let mut e = legacy_ready();
    let ask = json!({ "jsonrpc": "2.0", "id": 3, "method": "elicitation/create", "params": {
        "message": "who?", "requestedSchema": { "type": "object", "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "verified": { "type": "boolean", "default": true } } } } });
    feed(&mut e, T0, None, ask);
    let (_, events) = drain(&mut e, T0);
    let Some(input) = events.iter().find_map(|ev| match ev {
        Event::Input { id, .. } => Some(*id),
        _ => None,
    }) else {
        panic!("no input surfaced: {events:?}")
    };
    let content = json!({ "name": "Ann", "verified": false });
    e.answer_input(
        T0,
        input,
        Ok(json!({ "action": "accept", "content": content })),
    );
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        sent[0].1["result"],
        json!({ "action": "accept", "content": { "name": "Ann", "verified": false, "age": 30 } })
    );
}

/// A 401 whose `DPoP` challenge asks for a nonce.
#[cfg(feature = "oauth")]
fn nonce_refused(key: SendKey) -> Input {
    Input::Head {
        key,
        status: 401,
        session_id: None,
        retry_after_ms: None,
        www_authenticate: Some(r#"DPoP error="use_dpop_nonce", algs="ES256""#.into()),
    }
}

#[cfg(feature = "oauth")]
#[test]
fn a_dpop_nonce_challenge_is_one_more_resend_on_top_of_the_renewals() {
    let mut e = legacy_ready();
    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, refused(key, 401));
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "renewed and sent once more");
    e.handle_input(T0, nonce_refused(sent[0].0));
    let (sent, events) = drain(&mut e, T0);
    assert_eq!(
        sent.len(),
        1,
        "sent again with the server's nonce: {events:?}"
    );
    e.handle_input(T0, nonce_refused(sent[0].0));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty(), "a second nonce challenge is not honoured");
    assert_eq!(failed(&events, sub).kind, ErrorKind::Unauthorized);

    let (sub, key, _) = request(&mut e);
    e.handle_input(T0, nonce_refused(key));
    let (sent, _) = drain(&mut e, T0);
    e.handle_input(T0, refused(sent[0].0, 401));
    let (sent, _) = drain(&mut e, T0);
    assert_eq!(sent.len(), 1, "a nonce first leaves the renewal's resend");
    e.handle_input(T0, refused(sent[0].0, 401));
    let (sent, events) = drain(&mut e, T0);
    assert!(sent.is_empty());
    assert_eq!(failed(&events, sub).kind, ErrorKind::Unauthorized);
}
