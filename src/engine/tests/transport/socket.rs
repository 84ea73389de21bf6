//! The WebSocket link: the engine asks for a new socket after a backoff that grows while sockets
//! keep failing and starts over once one opens.

use crate::engine::api::{Config, DialectChoice, Input, Link, Millis};
use crate::protocol::model::Dialect;
use crate::testkit::Harness;

/// Fails `n` sockets in a row, each as soon as it is asked for: the delays before each request.
fn fail_in_a_row(h: &mut Harness, n: usize) -> Vec<Millis> {
    let mut gaps = Vec::new();
    for _ in 0..n {
        let down = h.now;
        h.input(Input::Connection { up: false });
        let before = h.reconnects.len();
        h.run_for(120_000);
        assert_eq!(h.reconnects.len(), before + 1, "one new socket per failure");
        gaps.push(h.reconnects[before] - down);
    }
    gaps
}

#[test]
fn a_lost_socket_is_reopened_with_a_growing_backoff_that_starts_over_once_one_opens() {
    let cfg = Config {
        dialect: DialectChoice::Legacy,
        link: Link::WebSocket,
        ..Config::default()
    };
    let mut h = Harness::with_config(cfg, Dialect::Legacy, 5);
    h.run_for(1_000);
    assert!(
        h.reconnects.is_empty(),
        "no new socket while the first is up"
    );
    let gaps = fail_in_a_row(&mut h, 5);
    assert!(gaps[0] <= 1_500, "first retry within ~1 s: {gaps:?}");
    assert!(gaps[4] >= 8_000, "grown by the fifth: {gaps:?}");
    h.input(Input::Connection { up: true });
    h.run_for(120_000);
    let again = fail_in_a_row(&mut h, 1);
    assert!(
        again[0] <= 1_500,
        "starts over after a socket opened: {again:?}"
    );
}

#[test]
fn a_closed_client_asks_for_no_socket() {
    let mut h = Harness::new(DialectChoice::Legacy, Dialect::Legacy, 6);
    h.run_for(1_000);
    h.input(Input::Connection { up: false });
    h.engine.close(h.now);
    h.run_for(600_000);
    assert!(h.reconnects.is_empty());
}

/// A first socket that fails asking for `mcp` is tried once more without it; when that one fails
/// too, `connect` fails with a transport error naming both attempts (a server that selects no
/// subprotocol and then refuses a second connection).
#[test]
fn a_first_socket_is_tried_once_without_the_subprotocol_then_fails_naming_both() {
    use crate::engine::api::ErrorKind;
    use crate::engine::{first_socket_failed, FirstSocket};
    assert_eq!(
        first_socket_failed(true, Some("refused".into())),
        FirstSocket::WithoutSubprotocol
    );
    let FirstSocket::Fail(e) = first_socket_failed(false, None) else {
        panic!("the retry's failure ends the connect");
    };
    assert_eq!(e.kind, ErrorKind::Transport);
    assert!(
        e.message.contains("`mcp` subprotocol and again without it"),
        "{}",
        e.message
    );
    let FirstSocket::Fail(e) = first_socket_failed(false, Some("bad URL".into())) else {
        panic!("the retry's failure ends the connect");
    };
    assert_eq!(e.message, "bad URL", "what the constructor threw");
}
