//! Which transport carries the messages, and which link the requests travel on, as far as a
//! request held open costs a connection: a WebSocket shares one socket; Node's fetch (also
//! Electron's main process) has no per-origin limit; a page or worker reads the HTTP version its
//! browser negotiated with the server's origin (`nextHopProtocol` of a resource already loaded
//! from it: the page itself, or any earlier request the server let it time). Nothing told means
//! HTTP/1.1, the tight budget, as an assumption the engine may revise (`Config::link_unseen`).

use crate::engine::api::Link;

/// Which transport carries the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransportKind {
    /// Streamable HTTP (POST + JSON/SSE bodies, legacy GET listening stream, DELETE).
    #[default]
    Http,
    /// One JSON-RPC message per text frame over `new WebSocket(url, "mcp")`.
    WebSocket,
}

/// What the environment tells of the link to the server's origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Node's fetch (or Electron's main process): no per-origin limit.
    Node,
    /// The HTTP major version the browser shows for the origin (0: none told).
    Browser(u32),
}

/// The link for `transport`, given what the environment shows (`seen`, asked only for HTTP), and
/// whether it is only assumed.
#[inline]
pub fn detect(transport: TransportKind, seen: impl FnOnce() -> Seen) -> (Link, bool) {
    match transport {
        TransportKind::WebSocket => (Link::WebSocket, false),
        TransportKind::Http => match seen() {
            Seen::Node => (Link::Node, false),
            Seen::Browser(2) => (Link::Http2, false),
            Seen::Browser(told) => (Link::Http1, told == 0),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(seen: Seen) -> (Link, bool) {
        detect(TransportKind::Http, || seen)
    }

    #[test]
    fn a_websocket_shares_one_socket_without_asking_the_environment() {
        let unasked = || -> Seen { unreachable!("a WebSocket's link needs no look") };
        assert_eq!(
            detect(TransportKind::WebSocket, unasked),
            (Link::WebSocket, false)
        );
    }

    #[test]
    fn http_in_node_has_no_per_origin_limit() {
        assert_eq!(http(Seen::Node), (Link::Node, false));
    }

    #[test]
    fn a_page_untold_assumes_http1_and_says_so() {
        assert_eq!(http(Seen::Browser(2)), (Link::Http2, false));
        assert_eq!(http(Seen::Browser(1)), (Link::Http1, false));
        assert_eq!(http(Seen::Browser(0)), (Link::Http1, true));
    }
}
