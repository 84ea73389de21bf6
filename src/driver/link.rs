//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing told means HTTP/1.1, the tight budget, as an
//! assumption the engine may revise (`Config::link_unseen`). What an engine learnt is kept per
//! origin for the page's life: the next client of that origin starts from it.

use super::io::{in_node, next_hop};
use super::TransportKind;
use crate::engine::api::Link;
use std::cell::RefCell;

thread_local! {
    /// Links learnt in this page, by origin (a handful of servers: a `Vec`).
    static LEARNT: RefCell<Vec<(String, Link)>> = const { RefCell::new(Vec::new()) };
}

/// The link for `transport` to `url` in this environment, and whether it is only assumed.
pub fn detect(transport: TransportKind, url: &str) -> (Link, bool) {
    match transport {
        TransportKind::WebSocket => (Link::WebSocket, false),
        TransportKind::Http if in_node() => (Link::Node, false),
        TransportKind::Http => match (next_hop(url), learnt(url)) {
            (2, _) => (Link::Http2, false),
            (0, Some(link)) => (link, false),
            (told, _) => (Link::Http1, told == 0),
        },
    }
}

/// `scheme://host[:port]` of `url`: up to its third `/` (bytes: no string searcher in the wasm).
fn origin(url: &str) -> &str {
    let slashes = url.bytes().enumerate().filter(|&(_, b)| b == b'/');
    let end = slashes.map(|(i, _)| i).nth(2).unwrap_or(url.len());
    url.get(..end).unwrap_or(url)
}

fn learnt(url: &str) -> Option<Link> {
    let origin = origin(url);
    LEARNT.with(|l| (l.borrow().iter()).find_map(|(o, link)| (o == origin).then_some(*link)))
}

/// Keeps the link an engine learnt for `url`'s origin.
pub fn remember(url: &str, link: Link) {
    let origin = origin(url);
    LEARNT.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|(o, _)| o != origin);
        l.push((origin.to_owned(), link));
    });
}
