//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing seen yet means HTTP/1.1, the tight budget.

use super::io::{in_node, multiplexed};
use super::TransportKind;
use crate::engine::api::Link;

/// The link for `transport` to `url` in this environment.
pub fn detect(transport: TransportKind, url: &str) -> Link {
    match transport {
        TransportKind::WebSocket => Link::WebSocket,
        TransportKind::Http if in_node() => Link::Node,
        TransportKind::Http if multiplexed(url) => Link::Http2,
        TransportKind::Http => Link::Http1,
    }
}
