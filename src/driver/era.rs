//! The era an `Auto` negotiation settled on, remembered per server URL and identity (the
//! `identity` option, when the host gives one), so a reload opens the session without probing:
//! `localStorage` where there is one (it survives reloads), memory otherwise. The engine decides
//! what a remembered era means (`Config::known_era`); this only stores it.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::protocol::model::Dialect;

use super::persist::local;

thread_local! {
    static MEMORY: RefCell<HashMap<String, Dialect>> = RefCell::new(HashMap::new());
}

/// Where one server's era is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraKey(String);

impl EraKey {
    pub fn new(url: &str, identity: Option<&str>) -> EraKey {
        let scope = serde_json::to_string(&(url, identity)).unwrap_or_else(|_| url.to_owned());
        EraKey(format!("era|{scope}"))
    }

    /// The era remembered for this server, if any.
    pub fn recall(&self) -> Option<Dialect> {
        let stored = local::open().and_then(|s| s.read(&self.0));
        match stored {
            Some(text) => serde_json::from_str(&text).ok(),
            None => MEMORY.with(|m| m.borrow().get(&self.0).copied()),
        }
    }

    /// Remembers the era negotiated with this server.
    pub fn remember(&self, era: Dialect) {
        if self.recall() == Some(era) {
            return;
        }
        MEMORY.with(|m| m.borrow_mut().insert(self.0.clone(), era));
        if let (Some(s), Ok(text)) = (local::open(), serde_json::to_string(&era)) {
            // Storage full or blocked: memory still has it.
            let _ = s.write(&self.0, Some(&text));
        }
    }
}
