//! The era an `Auto` negotiation settled on, remembered per server URL and identity (the
//! `identity` option, when the host gives one), so a reload opens the session without probing:
//! `localStorage` where there is one (it survives reloads), this page's memory otherwise (`io.js`
//! keeps it). The engine decides what a remembered era means (`Config::known_era`); this only
//! stores it.

use crate::protocol::model::Dialect;

use super::io;
use super::persist::{Scope, PREFIX};

/// Where one server's era is kept: its item's name in `localStorage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraKey(String);

impl EraKey {
    pub fn new(url: &str, identity: Option<&str>) -> EraKey {
        EraKey([PREFIX, "era|", &Scope::new(url, identity).key].concat())
    }

    /// The era remembered for this server, if any.
    pub fn recall(&self) -> Option<Dialect> {
        parse(&io::recall(&self.0)?)
    }

    /// Remembers the era negotiated with this server.
    pub fn remember(&self, era: Dialect) {
        if self.recall() != Some(era) {
            io::remember(&self.0, name(era));
        }
    }
}

/// The dialect's name as JS spells it; stored as this bare word (no JSON deserializer in the
/// binary for this).
pub fn name(era: Dialect) -> &'static str {
    match era {
        Dialect::Modern => "modern",
        Dialect::Legacy => "legacy",
        Dialect::Draft => "draft",
    }
}

fn parse(text: &str) -> Option<Dialect> {
    [Dialect::Modern, Dialect::Legacy, Dialect::Draft]
        .into_iter()
        .find(|d| name(*d) == text)
}
