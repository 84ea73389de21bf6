//! Which transport carries the messages, and which link the requests travel on, as far as a
//! request held open costs a connection: a WebSocket shares one socket; Node's fetch (also
//! Electron's main process) has no per-origin limit; a page or worker reads the HTTP version its
//! browser negotiated with the server's origin (`nextHopProtocol` of a resource already loaded
//! from it: the page itself, or any earlier request the server let it time). Nothing told means
//! HTTP/1.1, the tight budget, as an assumption the engine may revise (`Config::link_unseen`).
//! What an engine learnt is kept per server URL for the page's life: the next client of that
//! server starts from it.

use crate::engine::api::Link;
use std::cell::Cell;

thread_local! {
    /// Links learnt in this page, by server URL (one per client that learnt: a `Vec`).
    static LEARNT: Cell<Vec<(String, Link)>> = const { Cell::new(Vec::new()) };
}

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

/// The link for `transport`, given what the environment shows (`seen`, asked only for HTTP) and,
/// where the browser tells nothing, what was `learnt` for the server earlier; and whether it is
/// only assumed.
#[inline]
pub fn detect(
    transport: TransportKind,
    seen: impl FnOnce() -> Seen,
    learnt: impl FnOnce() -> Option<Link>,
) -> (Link, bool) {
    match transport {
        TransportKind::WebSocket => (Link::WebSocket, false),
        TransportKind::Http => match seen() {
            Seen::Node => (Link::Node, false),
            Seen::Browser(2) => (Link::Http2, false),
            Seen::Browser(0) => learnt().map_or((Link::Http1, true), |link| (link, false)),
            Seen::Browser(_) => (Link::Http1, false),
        },
    }
}

/// The link an engine learnt earlier in this page for the server at `url` (the latest).
pub fn learnt(url: &str) -> Option<Link> {
    LEARNT.with(|l| {
        let all = l.take();
        let link = (all.iter().rev()).find_map(|(u, link)| (u == url).then_some(*link));
        l.set(all);
        link
    })
}

/// Keeps the link an engine learnt for the server at `url`.
pub fn remember(url: &str, link: Link) {
    LEARNT.with(|l| {
        let mut all = l.take();
        all.push((url.to_owned(), link));
        l.set(all);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(seen: Seen) -> (Link, bool) {
        detect(TransportKind::Http, || seen, || None)
    }

    #[test]
    fn a_websocket_shares_one_socket_without_asking_the_environment() {
        let unasked = || -> Seen { unreachable!("a WebSocket's link needs no look") };
        assert_eq!(
            detect(TransportKind::WebSocket, unasked, || None),
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

    #[test]
    fn a_link_learnt_for_the_url_stands_where_the_browser_tells_nothing() {
        let url = "https://a.example/mcp";
        remember("https://b.example/mcp", Link::Http1);
        assert_eq!(learnt(url), None);
        remember(url, Link::Http1);
        remember(url, Link::Http2);
        assert_eq!(learnt(url), Some(Link::Http2));
        let detect_told =
            |told| detect(TransportKind::Http, || Seen::Browser(told), || learnt(url));
        assert_eq!(detect_told(0), (Link::Http2, false));
        // What the browser tells wins over what was learnt.
        assert_eq!(detect_told(1), (Link::Http1, false));
        assert_eq!(
            detect(TransportKind::Http, || Seen::Node, || learnt(url)),
            (Link::Node, false)
        );
    }
}
