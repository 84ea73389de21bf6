//! HTTP exchanges: what each request sends, and what its response's head, chunks and end mean.

use crate::bridge::exchange::*;
use crate::engine::api::{Input, SendKey, Transmit, TransportError};

type Ex = Exchanges<&'static str>;

const KEY: SendKey = SendKey(1);
const LIMIT: usize = 1024;

fn post() -> Request {
    Request::Post(Transmit {
        key: KEY,
        body: "{\"jsonrpc\":\"2.0\"}".into(),
        headers: vec![("mcp-protocol-version".into(), "2025-11-25".into())],
        one_way: false,
        background: false,
    })
}

fn get(listening: bool, last_event_id: Option<&str>) -> Request {
    Request::Get {
        headers: Vec::new(),
        last_event_id: last_event_id.map(str::to_owned),
        listening,
    }
}

/// `req` in flight under [`KEY`], its head answered with `status` and `content_type`.
fn answered(req: Request, status: u16, content_type: &str) -> Ex {
    let mut ex = Ex::default();
    ex.start(KEY, &req, 0);
    assert_eq!(ex.body(KEY, status, Some(content_type), LIMIT), Ok(true));
    ex
}

/// What a chunk brought: its cursor, the messages its events carry, its error.
struct Got {
    cursor: Option<Input>,
    messages: Vec<Input>,
    error: Option<TransportError>,
}

fn events(chunk: Chunk) -> Got {
    let Chunk::Events(mut events) = chunk else {
        panic!("expected events, got {chunk:?}");
    };
    let all = std::mem::take(&mut events.events);
    Got {
        messages: all
            .into_iter()
            .filter_map(|ev| events.message(ev))
            .collect(),
        cursor: events.cursor,
        error: events.error,
    }
}

fn message(via: Option<SendKey>, body: &str) -> Input {
    Input::Message {
        via,
        body: body.into(),
    }
}

#[test]
fn a_post_sends_json_and_accepts_json_or_an_event_stream() {
    let req = post();
    assert_eq!(req.method(), "POST");
    let parts = req.parts();
    assert_eq!(parts.headers.len(), 1);
    assert_eq!(
        parts.fixed(),
        [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream")
        ]
    );
    assert_eq!(parts.body, Some("{\"jsonrpc\":\"2.0\"}"));
}

#[test]
fn a_get_sends_last_event_id_only_when_resuming() {
    let listen = get(true, None);
    assert_eq!(listen.method(), "GET");
    assert_eq!(listen.parts().fixed(), [("accept", "text/event-stream")]);
    assert_eq!(listen.parts().body, None);
    let resume = get(false, Some("ev-7"));
    assert_eq!(
        resume.parts().fixed(),
        [("accept", "text/event-stream"), ("last-event-id", "ev-7")]
    );
    let delete = Request::Delete(vec![("mcp-session-id".into(), "s".into())]);
    assert_eq!(delete.method(), "DELETE");
    assert_eq!(delete.parts().headers.len(), 1);
    assert!(delete.parts().fixed().is_empty());
}

#[test]
fn a_refused_fetch_names_what_was_refused() {
    let name = |at: u32| ["h", &at.to_string()].concat();
    let why = || "TypeError: nope".to_owned();
    assert_eq!(
        refused(-1.0, 2, name, why()),
        "fetch unavailable: TypeError: nope"
    );
    assert_eq!(
        refused(1.0, 2, name, why()),
        "bad header h1: TypeError: nope"
    );
    // A pair every request sends is never the caller's fault: the reason alone.
    assert_eq!(refused(2.0, 2, name, why()), "TypeError: nope");
}

#[test]
fn the_head_tells_the_engine_its_session_delay_and_challenge() {
    let header = |name: &str| match name {
        "mcp-session-id" => Some("sid-1".to_owned()),
        "retry-after" => Some("2".to_owned()),
        "www-authenticate" => Some("Bearer".to_owned()),
        _ => None,
    };
    let no_date = |_: &str| f64::NAN;
    assert_eq!(
        head_input(KEY, 503, header, 0, no_date),
        Input::Head {
            key: KEY,
            status: 503,
            session_id: Some("sid-1".into()),
            retry_after_ms: Some(2000),
            www_authenticate: Some("Bearer".into()),
        }
    );
}

#[test]
fn a_whole_body_is_one_message_at_its_end() {
    let mut ex = answered(post(), 200, "application/json");
    assert_eq!(
        ex.chunk(KEY, b"\xef\xbb\xbf{\"a\":".to_vec(), LIMIT),
        Chunk::Nothing
    );
    assert_eq!(ex.chunk(KEY, b"1}\n".to_vec(), LIMIT), Chunk::Nothing);
    assert_eq!(ex.end(KEY), Some(Some(message(Some(KEY), "{\"a\":1}"))));
    assert!(ex.live(KEY), "in flight until removed");
    assert!(ex.remove(KEY));
    assert_eq!(ex.end(KEY), None);
    assert!(!ex.remove(KEY));
}

#[test]
fn an_empty_body_ends_without_a_message() {
    let mut ex = answered(post(), 202, "text/plain");
    assert_eq!(ex.end(KEY), Some(None));
}

#[test]
fn a_whole_body_over_the_limit_fails_the_exchange() {
    let mut ex = Ex::default();
    ex.start(KEY, &post(), 0);
    assert_eq!(ex.body(KEY, 200, None, 8), Ok(true));
    assert_eq!(ex.chunk(KEY, b"12345".to_vec(), 8), Chunk::Nothing);
    assert_eq!(
        ex.chunk(KEY, b"6789".to_vec(), 8),
        Chunk::Failed(TransportError::network(
            "response body exceeds the 8-byte limit"
        ))
    );
}

#[test]
fn an_event_stream_tells_its_position_once_per_move_then_its_messages() {
    let mut ex = answered(post(), 200, "text/event-stream");
    let first = events(ex.chunk(
        KEY,
        b"id: 7\nretry: 500\ndata: {\"a\":1}\n\nevent: ping\ndata: hi\n\nda".to_vec(),
        LIMIT,
    ));
    assert_eq!(
        first.cursor,
        Some(Input::Cursor {
            key: KEY,
            last_event_id: Some("7".into()),
            retry_ms: Some(500),
        })
    );
    // A `ping` event whose data is no JSON object carries no message.
    assert_eq!(first.messages, [message(Some(KEY), "{\"a\":1}")]);
    assert_eq!(first.error, None);
    let second = events(ex.chunk(
        KEY,
        b"ta: {\"b\":2}\n\nevent: message\ndata: [3]\n\n".to_vec(),
        LIMIT,
    ));
    assert_eq!(second.cursor, None, "the same id and retry are told once");
    assert_eq!(
        second.messages,
        [message(Some(KEY), "{\"b\":2}"), message(Some(KEY), "[3]")]
    );
    let third = events(ex.chunk(KEY, b"id: 8\ndata: {}\n\n".to_vec(), LIMIT));
    assert_eq!(
        third.cursor,
        Some(Input::Cursor {
            key: KEY,
            last_event_id: Some("8".into()),
            retry_ms: Some(500),
        })
    );
    assert_eq!(
        ex.end(KEY),
        Some(None),
        "an event stream's end has no message"
    );
}

#[test]
fn an_event_over_the_limit_fails_over_limit_after_the_messages_before_it() {
    let mut ex = Ex::default();
    ex.start(KEY, &post(), 0);
    assert_eq!(ex.body(KEY, 200, Some("text/event-stream"), 16), Ok(true));
    let got = events(ex.chunk(
        KEY,
        b"data: {}\n\ndata: {\"long\":\"0123456789abcdef\"}\n\n".to_vec(),
        16,
    ));
    assert_eq!(got.messages, [message(Some(KEY), "{}")]);
    let error = got.error.expect("over the limit");
    assert!(error.over_limit);
    assert_eq!(error.http_status, None);
}

#[test]
fn a_listening_stream_that_is_no_event_stream_fails_with_its_status() {
    for (status, content_type) in [(200, "application/json"), (405, "text/event-stream")] {
        let mut ex = Ex::default();
        ex.start(KEY, &get(true, None), 0);
        let error = ex.body(KEY, status, Some(content_type), LIMIT).unwrap_err();
        assert_eq!(error.http_status, Some(status));
        assert_eq!(
            error.message,
            ["no event stream (HTTP ", &status.to_string(), ")"].concat()
        );
    }
    // A request's answer in any status and framing is read: the engine decides what it means.
    let mut ex = Ex::default();
    ex.start(KEY, &get(false, Some("1")), 0);
    assert_eq!(ex.body(KEY, 404, Some("application/json"), LIMIT), Ok(true));
}

#[test]
fn the_listening_streams_messages_belong_to_no_request() {
    let mut ex = answered(get(true, None), 200, "text/event-stream");
    let got = events(ex.chunk(KEY, b"data: {\"n\":1}\n\n".to_vec(), LIMIT));
    assert_eq!(got.messages, [message(None, "{\"n\":1}")]);
}

#[test]
fn chunks_before_the_head_or_after_the_abort_tell_nothing() {
    let mut ex = Ex::default();
    ex.start(KEY, &post(), 0);
    assert_eq!(ex.chunk(KEY, b"{}".to_vec(), LIMIT), Chunk::Nothing);
    assert!(ex.remove(KEY));
    assert_eq!(ex.body(KEY, 200, None, LIMIT), Ok(false));
    assert_eq!(ex.chunk(KEY, b"{}".to_vec(), LIMIT), Chunk::Nothing);
    assert_eq!(ex.end(KEY), None);
}

#[test]
fn removing_all_forgets_every_exchange_but_not_the_session_delete() {
    let mut ex = Ex::default();
    ex.start(SendKey(1), &post(), 0);
    ex.start(SendKey(2), &get(true, None), 0);
    ex.start(DELETE, &Request::Delete(Vec::new()), 10);
    let mut keys = Vec::new();
    ex.remove_all(|key| keys.push(key));
    keys.sort();
    assert_eq!(keys, [SendKey(1), SendKey(2)]);
    assert!(!ex.live(SendKey(1)));
    assert_eq!(ex.next_deadline(), Some(10 + DELETE_GRACE_MS));
}

#[test]
fn what_waits_for_the_session_delete_runs_once_it_ended() {
    let mut ex = Ex::default();
    assert_eq!(
        ex.after_delete("close"),
        Some("close"),
        "no DELETE: at once"
    );
    assert_eq!(ex.next_deadline(), None);
    ex.start(DELETE, &Request::Delete(Vec::new()), 1_000);
    assert!(
        !ex.live(DELETE),
        "the DELETE is no exchange of the engine's"
    );
    assert_eq!(ex.next_deadline(), Some(1_000 + DELETE_GRACE_MS));
    assert_eq!(ex.after_delete("close"), None);
    assert_eq!(ex.delete_ended(), Some("close"));
    assert_eq!(ex.next_deadline(), None);
    assert_eq!(ex.delete_ended(), None);
}

#[cfg(feature = "oauth")]
#[test]
fn the_authorization_a_request_sent_is_kept_while_it_is_in_flight() {
    let mut ex = Ex::default();
    ex.start(KEY, &post(), 0);
    assert_eq!(ex.used(KEY), None);
    ex.set_used(KEY, Some("Bearer a".into()));
    assert_eq!(ex.used(KEY).as_deref(), Some("Bearer a"));
    ex.remove(KEY);
    ex.set_used(KEY, Some("Bearer b".into()));
    assert_eq!(ex.used(KEY), None);
}
