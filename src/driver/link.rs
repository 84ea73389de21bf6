//! What the environment shows of the link to a server's origin ([`crate::bridge::link`] decides
//! what it means).

use super::io::{in_node, next_hop};
use crate::bridge::link::Seen;

/// What this environment shows of the link to `url`'s origin.
pub fn seen(url: &str) -> Seen {
    match in_node() {
        true => Seen::Node,
        false => Seen::Browser(next_hop(url)),
    }
}
