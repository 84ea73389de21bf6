//! Which transport carries the messages, and which link the requests travel on, as far as a
//! request held open costs a connection: a WebSocket shares one socket; Node's fetch (also
//! Electron's main process) has no per-origin limit; a page or worker reads the HTTP version its
//! browser negotiated with the server's origin (`nextHopProtocol` of a resource already loaded
//! from it: the page itself, or any earlier request the server let it time). Nothing told means
//! HTTP/1.1 (a budget of three held results), as an assumption the engine may revise (`Config::link_unseen`).
//! What an engine learnt is kept per server URL for the page's life, and in the tab's session
//! storage where it works: the next client of that server starts from it, after a reload too.
//! What storage gives back is read strictly: anything but a link written there is ignored, and
//! the link is learnt again.

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

/// The link learnt for the server at `url`: earlier in this page (the latest), else what the
/// tab's session storage kept (`stored`, asked only then).
pub fn learnt(url: &str, stored: impl FnOnce() -> Option<String>) -> Option<Link> {
    learnt_in_page(url).or_else(|| stored().as_deref().and_then(parse_stored))
}

/// The session storage key of the link learnt for the server at `url`.
pub fn storage_key(url: &str) -> String {
    ["mcp-task-client link ", url].concat()
}

/// The text session storage keeps of a learnt link.
pub fn stored_text(link: Link) -> &'static str {
    match link {
        Link::Http2 => "http2",
        _ => "http1",
    }
}

/// The link a stored text names; `None` for anything [`stored_text`] does not write.
fn parse_stored(text: &str) -> Option<Link> {
    match text {
        "http2" => Some(Link::Http2),
        "http1" => Some(Link::Http1),
        _ => None,
    }
}

/// The link an engine learnt earlier in this page for the server at `url` (the latest).
fn learnt_in_page(url: &str) -> Option<Link> {
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
        let nothing = || None;
        remember("https://b.example/mcp", Link::Http1);
        assert_eq!(learnt(url, nothing), None);
        remember(url, Link::Http1);
        remember(url, Link::Http2);
        assert_eq!(learnt(url, nothing), Some(Link::Http2));
        let stale = || Some("http1".to_owned());
        assert_eq!(
            learnt(url, stale),
            Some(Link::Http2),
            "the page's memory first"
        );
        let detect_told = |told| {
            detect(
                TransportKind::Http,
                || Seen::Browser(told),
                || learnt(url, nothing),
            )
        };
        assert_eq!(detect_told(0), (Link::Http2, false));
        // What the browser tells wins over what was learnt.
        assert_eq!(detect_told(1), (Link::Http1, false));
        assert_eq!(
            detect(TransportKind::Http, || Seen::Node, || learnt(url, nothing)),
            (Link::Node, false)
        );
    }

    #[test]
    fn a_link_stored_by_an_earlier_page_of_the_tab_stands_and_garbage_is_learnt_again() {
        let url = "https://c.example/mcp";
        for link in [Link::Http1, Link::Http2] {
            let text = stored_text(link);
            assert_eq!(learnt(url, || Some(text.to_owned())), Some(link));
            let detected = detect(
                TransportKind::Http,
                || Seen::Browser(0),
                || learnt(url, || Some(text.to_owned())),
            );
            assert_eq!(detected, (link, false), "{text}");
        }
        for garbled in [
            "",
            "HTTP2",
            "h2",
            "http2 ",
            "node",
            "{\"link\":\"http2\"}",
            "\u{0}",
        ] {
            let stored = || Some(garbled.to_owned());
            assert_eq!(learnt(url, stored), None, "{garbled:?}");
            let detected = detect(
                TransportKind::Http,
                || Seen::Browser(0),
                || learnt(url, stored),
            );
            assert_eq!(detected, (Link::Http1, true), "{garbled:?}: learnt again");
        }
        assert_ne!(storage_key(url), storage_key("https://a.example/mcp"));
    }
}
