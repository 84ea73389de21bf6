//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing told means HTTP/1.1, the tight budget, as an
//! assumption the engine may revise (`Config::link_unseen`).

use super::io::{in_node, next_hop};
use super::TransportKind;
use crate::engine::api::Link;

/// The link for `transport` to `url` in this environment, and whether it is only assumed.
pub fn detect(transport: TransportKind, url: &str) -> (Link, bool) {
    match transport {
        TransportKind::WebSocket => (Link::WebSocket, false),
        TransportKind::Http if in_node() => (Link::Node, false),
        TransportKind::Http => match next_hop(url) {
            2 => (Link::Http2, false),
            told => (Link::Http1, told == 0),
        },
    }
}
