//! The negotiated era remembered per server ([`EraKey`]): `localStorage` where there is one (it
//! survives reloads), this page's memory otherwise (`io.js` keeps it).

use super::io;
use crate::bridge::era::{self, EraKey};
use crate::protocol::model::Dialect;

/// The era remembered for this server, if any.
pub fn recall(key: &EraKey) -> Option<Dialect> {
    era::read(io::recall(key.item()).as_deref())
}

/// Remembers the era negotiated with this server.
pub fn remember(key: &EraKey, negotiated: Dialect) {
    if let Some(name) = era::to_store(recall(key), negotiated) {
        io::remember(key.item(), name);
    }
}
