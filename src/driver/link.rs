//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing seen yet means HTTP/1.1, the tight budget.

use super::io::{in_node, multiplexed};
use super::TransportKind;
use crate::engine::api::Link;

/// Whether a URL's authority (`host[:port]`) ends at byte `b`: the path, query or fragment.
fn ends_authority(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'#')
}

/// `scheme://host[:port]` of a URL.
fn origin(url: &str) -> &str {
    let after_scheme = crate::protocol::find(url, "://").map_or(0, |i| i + 3);
    let end = url
        .get(after_scheme..)
        .and_then(|rest| rest.bytes().position(ends_authority))
        .map_or(url.len(), |i| after_scheme + i);
    url.get(..end).unwrap_or(url)
}

/// The link for `transport` to `url` in this environment.
pub fn detect(transport: TransportKind, url: &str) -> Link {
    match transport {
        TransportKind::WebSocket => Link::WebSocket,
        TransportKind::Http if in_node() => Link::Node,
        TransportKind::Http if multiplexed(&origin(url).to_ascii_lowercase()) => Link::Http2,
        TransportKind::Http => Link::Http1,
    }
}
