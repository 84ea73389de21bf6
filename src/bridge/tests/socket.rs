//! The WebSocket's state: the first socket, the subprotocol, later sockets, sending.

use crate::bridge::socket::*;
use crate::engine::api::ErrorKind;

type S = Socket<&'static str>;

/// A socket waiting for its first connection, made and asking for `mcp`.
fn first() -> S {
    let mut s = S::default();
    s.wait_first("connect");
    assert_eq!(s.opening(), Some("mcp"));
    s.made(true);
    s
}

#[test]
fn the_first_socket_opening_connects_and_later_ones_tell_the_engine() {
    let mut s = first();
    assert!(!s.sendable(), "not before it opened");
    assert_eq!(s.opened(), Opened::First("connect"));
    assert!(s.sendable());
    assert_eq!(s.closed(None), Closed::Later);
    assert!(!s.sendable());
    assert_eq!(s.opening(), Some("mcp"));
    s.made(true);
    assert_eq!(s.opened(), Opened::Again);
}

#[test]
fn a_first_socket_refused_with_mcp_is_tried_once_without_it() {
    let mut s = first();
    assert_eq!(s.closed(None), Closed::WithoutSubprotocol);
    assert_eq!(s.opening(), None);
    s.made(true);
    match s.closed(None) {
        Closed::First("connect", e) => {
            assert_eq!(e.kind, ErrorKind::Transport);
            assert!(e.message.contains("without it"), "{}", e.message);
        }
        other => panic!("connect should fail: {other:?}"),
    }
}

#[test]
fn once_a_socket_opened_without_mcp_none_asks_for_it_again() {
    let mut s = first();
    assert_eq!(s.closed(None), Closed::WithoutSubprotocol);
    assert_eq!(s.opening(), None);
    s.made(true);
    assert_eq!(s.opened(), Opened::First("connect"));
    assert_eq!(s.closed(None), Closed::Later);
    assert_eq!(s.opening(), None);
}

#[test]
fn a_constructor_that_throws_fails_connect_with_what_it_threw() {
    let mut s = S::default();
    s.wait_first("connect");
    assert_eq!(s.opening(), Some("mcp"));
    s.made(false);
    assert_eq!(
        s.closed(Some("SyntaxError: bad URL".into())),
        Closed::WithoutSubprotocol
    );
    assert_eq!(s.opening(), None);
    s.made(false);
    match s.closed(Some("SyntaxError: bad URL".into())) {
        Closed::First(_, e) => assert_eq!(e.message, "SyntaxError: bad URL"),
        other => panic!("connect should fail: {other:?}"),
    }
}

#[test]
fn a_close_reported_for_no_socket_is_already_handled() {
    let mut s = first();
    assert_eq!(s.opened(), Opened::First("connect"));
    assert!(s.close(), "a socket was there to close");
    assert!(!s.close());
    assert!(!s.sendable());
    assert_eq!(s.closed(None), Closed::Handled);
}

#[test]
fn a_frame_sent_while_down_fails_as_not_connected() {
    let e = not_connected();
    assert_eq!(e.message, "WebSocket is not connected");
    assert_eq!(e.http_status, None);
    assert!(!e.unreached);
}
