//! The era an `Auto` negotiation settled on, remembered per server URL and identity (the
//! `identity` option, when the host gives one), so a reload opens the session without probing:
//! `localStorage` where there is one (it survives reloads), memory otherwise. The engine decides
//! what a remembered era means (`Config::known_era`); this only stores it.

use std::cell::RefCell;

use crate::protocol::model::Dialect;

use super::persist::{local, Scope};

thread_local! {
    /// Servers this page talked to (a handful: a list is smaller in wasm than a map).
    static MEMORY: RefCell<Vec<(String, Dialect)>> = const { RefCell::new(Vec::new()) };
}

/// Where one server's era is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraKey(String);

impl EraKey {
    pub fn new(url: &str, identity: Option<&str>) -> EraKey {
        EraKey(["era|", &Scope::new(url, identity).key].concat())
    }

    /// The era remembered for this server, if any.
    pub fn recall(&self) -> Option<Dialect> {
        let stored = local::open().and_then(|s| s.read(&self.0));
        match stored {
            Some(text) => parse(&text),
            None => MEMORY.with(|m| m.borrow().iter().find(|(k, _)| *k == self.0).map(|e| e.1)),
        }
    }

    /// Remembers the era negotiated with this server.
    pub fn remember(&self, era: Dialect) {
        if self.recall() == Some(era) {
            return;
        }
        MEMORY.with(|m| {
            let mut m = m.borrow_mut();
            m.retain(|(k, _)| *k != self.0);
            m.push((self.0.clone(), era));
        });
        if let Some(s) = local::open() {
            // Storage full or blocked: memory still has it.
            let _ = s.write(&self.0, Some(name(era)));
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
