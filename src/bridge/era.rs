//! The era an `Auto` negotiation settled on, remembered per server URL and identity (the
//! `identity` option, when the host gives one), so a reload opens the session without probing.
//! The engine decides what a remembered era means (`Config::known_era`); this names where one
//! server's era is kept and reads it back. It is stored as the dialect's bare name (no JSON
//! reader in the binary for this).

use super::scope::{Scope, PREFIX};
use crate::protocol::model::Dialect;

/// Where one server's era is kept: its item's name in `localStorage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraKey(String);

impl EraKey {
    pub fn new(url: &str, identity: Option<&str>) -> EraKey {
        EraKey([PREFIX, "era|", &Scope::new(url, identity).key].concat())
    }

    /// The item's name.
    pub fn item(&self) -> &str {
        &self.0
    }
}

/// The era a stored item names (`None`: nothing stored, or not a dialect's name).
#[inline]
pub fn read(stored: Option<&str>) -> Option<Dialect> {
    let stored = stored?;
    Dialect::ALL.into_iter().find(|d| d.name() == stored)
}

/// What to store for the negotiated `era` when the item names `stored`: nothing when it already
/// names that era.
#[inline]
pub fn to_store(stored: Option<Dialect>, era: Dialect) -> Option<&'static str> {
    (stored != Some(era)).then_some(era.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_era_reads_back_from_what_is_stored_for_it() {
        for era in Dialect::ALL {
            let stored = to_store(None, era);
            assert_eq!(read(stored), Some(era));
            assert_eq!(to_store(read(stored), era), None);
        }
        assert_eq!(read(Some("Modern")), None);
        assert_eq!(read(Some("\"modern\"")), None);
        assert_eq!(read(None), None);
    }

    #[test]
    fn an_era_already_stored_is_not_written_again() {
        assert_eq!(to_store(Some(Dialect::Modern), Dialect::Modern), None);
        let legacy = read(Some("legacy"));
        assert_eq!(to_store(legacy, Dialect::Modern), Some("modern"));
        assert_eq!(
            to_store(read(Some("junk")), Dialect::Legacy),
            Some("legacy")
        );
    }

    #[test]
    fn each_server_and_identity_has_its_own_item() {
        let a = EraKey::new("https://a/mcp", None);
        assert_eq!(a.item(), r#"mcp-task-client/era|["https://a/mcp",null]"#);
        assert_ne!(a, EraKey::new("https://a/mcp", Some("u")));
        assert_ne!(a, EraKey::new("https://b/mcp", None));
    }
}
