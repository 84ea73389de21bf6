//! The legacy GET listening stream: the engine reopens it where it stopped, waits as long as a
//! busy server asks and gives it up when the server refuses it.

use crate::json::json;

use crate::engine::api::{
    Config, DialectChoice, Event, Input, Link, Millis, SendKey, TransportError,
};
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

/// A legacy session over HTTP, its listening stream just opened: (harness, the stream's key).
fn listening(link: Link) -> (Harness, SendKey) {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, 3);
    h.run_for(1_000);
    let [(_, key, None)] = h.listened[..] else {
        panic!("one listening stream, from the start: {:?}", h.listened);
    };
    (h, key)
}

fn head(h: &mut Harness, key: SendKey, status: u16, retry_after_ms: Option<Millis>) {
    h.input(Input::Head {
        key,
        status,
        session_id: None,
        retry_after_ms,
        www_authenticate: None,
    });
}

/// How the driver reports an answer that is not an event stream.
fn refused(status: u16) -> TransportError {
    TransportError {
        http_status: Some(status),
        ..TransportError::network("no event stream")
    }
}

#[test]
fn an_ended_stream_is_reopened_after_the_servers_retry_from_its_last_event() {
    let (mut h, key) = listening(Link::Node);
    head(&mut h, key, 200, None);
    h.input(Input::Cursor {
        key,
        last_event_id: Some("ev-7".into()),
        retry_ms: Some(2_000),
    });
    h.input(Input::Ended { key });
    let ended = h.now;
    h.run_for(1_900);
    assert_eq!(h.listened.len(), 1, "not before the server's retry");
    h.run_for(200);
    let (at, again, from) = h.listened[1].clone();
    assert_eq!(at - ended, 2_000);
    assert_ne!(again, key, "a new stream has a key of its own");
    assert_eq!(
        from.as_deref(),
        Some("ev-7"),
        "resumed from its last event id"
    );
}

#[test]
fn a_busy_server_is_asked_again_after_its_retry_after() {
    let (mut h, key) = listening(Link::Node);
    head(&mut h, key, 503, Some(7_000));
    h.input(Input::Failed {
        key,
        error: refused(503),
    });
    let failed = h.now;
    h.run_for(6_900);
    assert_eq!(h.listened.len(), 1, "not before Retry-After");
    h.run_for(200);
    assert_eq!(h.listened.len(), 2);
    assert_eq!(h.listened[1].0 - failed, 7_000);
}

#[test]
fn a_refused_stream_is_given_up_for_the_session() {
    for status in [405, 404, 200] {
        let (mut h, key) = listening(Link::Node);
        head(&mut h, key, status, None);
        h.input(Input::Failed {
            key,
            error: refused(status),
        });
        h.run_for(600_000);
        assert_eq!(h.listened.len(), 1, "HTTP {status}: never asked again");
    }
}

#[test]
fn failures_back_off_and_a_message_resets_the_backoff() {
    let (mut h, mut key) = listening(Link::Node);
    let mut gaps = Vec::new();
    for _ in 0..4 {
        let failed = h.now;
        h.input(Input::Failed {
            key,
            error: TransportError::network("fetch failed"),
        });
        h.run_for(60_000);
        let (at, next, _) = h.listened.last().cloned().unwrap();
        gaps.push(at - failed);
        key = next;
    }
    assert!(
        gaps.windows(2).all(|w| w[1] > w[0]) && gaps[0] <= 1_500 && gaps[3] >= 4_000,
        "growing delays: {gaps:?}"
    );
    head(&mut h, key, 200, None);
    let status = json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": {} });
    h.input(Input::Message {
        via: None,
        body: status.to_string(),
    });
    let ended = h.now;
    h.input(Input::Ended { key });
    h.run_for(60_000);
    let (at, _, _) = h.listened.last().cloned().unwrap();
    assert!(at - ended <= 1_500, "a first attempt again: {}", at - ended);
}

#[test]
fn closing_the_client_closes_the_stream() {
    let (mut h, key) = listening(Link::Node);
    h.engine.close(h.now);
    h.pump();
    assert!(h.aborted.iter().any(|(_, k)| *k == key));
    h.run_for(600_000);
    assert_eq!(h.listened.len(), 1);
}

/// Warnings the host got that name cut listening streams.
fn cut_warnings(h: &Harness) -> Vec<String> {
    (h.events.iter())
        .filter_map(|e| match e {
            Event::Warning { error, .. } if error.message.contains("cut every") => {
                Some(error.message.clone())
            }
            _ => None,
        })
        .collect()
}

/// Streams that each run `life` ms, then end cleanly: when each next one opened after its cut.
fn cut_every(h: &mut Harness, mut key: SendKey, life: Millis, cuts: usize) -> Vec<Millis> {
    let mut gaps = Vec::new();
    for _ in 0..cuts {
        head(h, key, 200, None);
        h.run_for(life);
        let cut = h.now;
        h.input(Input::Ended { key });
        h.run_for(60_000);
        let (at, next, _) = h.listened.last().cloned().unwrap();
        assert_ne!(next, key, "reopened");
        gaps.push(at - cut);
        key = next;
    }
    gaps
}

#[test]
fn a_stream_cut_cleanly_after_a_while_is_reopened_at_once_and_the_cuts_named_once() {
    // A proxy closes the stream after 10 s idle; the server's keep-alive would come at 15 s.
    let (mut h, key) = listening(Link::Node);
    let gaps = cut_every(&mut h, key, 10_000, 6);
    assert!(gaps.iter().all(|&g| g == 0), "reopened at once: {gaps:?}");
    let warned = cut_warnings(&h);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("every 10 s"), "{warned:?}");
}

#[test]
fn a_stream_that_ends_right_away_still_backs_off() {
    let (mut h, key) = listening(Link::Node);
    let gaps = cut_every(&mut h, key, 0, 4);
    assert!(
        gaps.windows(2).all(|w| w[1] > w[0]) && gaps[3] >= 4_000,
        "growing delays: {gaps:?}"
    );
    assert!(cut_warnings(&h).is_empty());
}

#[test]
fn a_cut_stream_still_waits_for_the_servers_retry() {
    let (mut h, key) = listening(Link::Node);
    h.input(Input::Cursor {
        key,
        last_event_id: Some("ev-3".into()),
        retry_ms: Some(2_000),
    });
    let gaps = cut_every(&mut h, key, 10_000, 4);
    assert_eq!(gaps, [2_000; 4]);
    let (_, _, from) = h.listened.last().cloned().unwrap();
    assert_eq!(
        from.as_deref(),
        Some("ev-3"),
        "resumed from its last event id"
    );
}
