//! What the environment shows of the link to a server's origin, and the tab's memory of what was
//! learnt of it ([`crate::bridge::link`] decides what both mean).

use super::io::{in_node, next_hop, session_item, set_session_item};
use crate::bridge::link::{self, Seen};
use crate::engine::api::Link;

/// What this environment shows of the link to `url`'s origin.
pub fn seen(url: &str) -> Seen {
    match in_node() {
        true => Seen::Node,
        false => Seen::Browser(next_hop(url)),
    }
}

/// The text this tab's session storage keeps of the link learnt for `url`.
pub fn stored(url: &str) -> Option<String> {
    session_item(&link::storage_key(url))
}

/// Keeps the link learnt for `url` in this page's memory and its tab's session storage.
pub fn remember(url: &str, learnt: Link) {
    link::remember(url, learnt);
    set_session_item(&link::storage_key(url), link::stored_text(learnt));
}
