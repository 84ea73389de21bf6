//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing told means HTTP/1.1, the tight budget, as an
//! assumption the engine may revise (`Config::link_unseen`). What an engine learnt is kept per
//! server URL for the page's life: the next client of that server starts from it.

use super::io::{in_node, next_hop};
use super::TransportKind;
use crate::engine::api::Link;
use std::cell::Cell;

thread_local! {
    /// Links learnt in this page, by server URL (one per client that learnt: a `Vec`).
    static LEARNT: Cell<Vec<(String, Link)>> = const { Cell::new(Vec::new()) };
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

fn learnt(url: &str) -> Option<Link> {
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
