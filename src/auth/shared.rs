//! A grant shared through a store by several clients (the tabs of an origin): one refreshes at a
//! time, under a lock named for the authorization server and the client, and one that gets the
//! lock after another refreshed takes the grant that one stored instead of refreshing with a
//! refresh token a rotating server has already consumed (RFC 9700 §4.14.2). A store's write may
//! reach the next lock holder late (Web Storage across tabs): the refresh tokens spent under the
//! lock are also kept in a ledger of their digests, in storage read in order, so that the next
//! holder waits for the store rather than spend one again.

use super::token::Grant;
use super::Millis;

/// What to do once the refresh lock is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn {
    /// Another client refreshed meanwhile: use the grant it stored.
    Adopt(Grant),
    /// Refresh this grant (the stored one when it is newer: its refresh token is the live one).
    Refresh(Grant),
}

/// The name of the lock every client refreshing `grant`'s tokens takes: the same authorization
/// server (its issuer, else its token endpoint) and the same client.
pub fn lock_name(grant: &Grant) -> String {
    let server = match grant.issuer.is_empty() {
        true => &grant.token_endpoint,
        false => &grant.issuer,
    };
    [
        "mcp-task-client:oauth-refresh ",
        server,
        " ",
        &grant.client.client_id,
    ]
    .concat()
}

/// What a client holding the lock does at `now`, `held` being its grant and `stored` what the
/// store holds now (read after the lock was granted). A stored grant for the same client,
/// endpoint and resource with other tokens is newer: adopted while its access token lives,
/// refreshed with its own refresh token once expired. Anything else: refresh `held`.
pub fn on_lock(held: &Grant, stored: Option<Grant>, now: Millis) -> Turn {
    let newer = stored.filter(|s| {
        s.access_token != held.access_token
            && s.client.client_id == held.client.client_id
            && s.token_endpoint == held.token_endpoint
            && s.resource == held.resource
    });
    match newer {
        Some(s) if s.expires_at.is_none_or(|t| now < t) => Turn::Adopt(s),
        Some(s) if s.refresh_token.is_some() => Turn::Refresh(s),
        _ => Turn::Refresh(held.clone()),
    }
}

/// After a refresh of `held` failed: the grant another client stored meanwhile, if any (without a
/// lock to serialize refreshes, a rotating server refuses the loser's reused refresh token).
pub fn after_failed_refresh(held: &Grant, stored: Option<Grant>, now: Millis) -> Option<Grant> {
    match on_lock(held, stored, now) {
        Turn::Adopt(g) => Some(g),
        Turn::Refresh(_) => None,
    }
}

/// How many spent refresh tokens the ledger remembers.
const LEDGER_LEN: usize = 8;

/// The refresh token a refresh from `old` to `new` spent, when the server rotated it (one that
/// keeps its refresh token lets it be used again: nothing to record).
pub fn rotated<'a>(old: &'a Grant, new: &Grant) -> Option<&'a str> {
    let spent = old.refresh_token.as_deref()?;
    (new.refresh_token.as_deref() != Some(spent)).then_some(spent)
}

/// `ledger` (digests separated by spaces, anything else read as digests too) with `digest` added
/// last, the oldest dropped beyond [`LEDGER_LEN`].
pub fn spend(ledger: Option<&str>, digest: &str) -> String {
    let kept = || digests(ledger).filter(|d| *d != digest);
    let dropped = (kept().count() + 1).saturating_sub(LEDGER_LEN);
    let mut out = String::new();
    for d in kept().skip(dropped).chain([digest]) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(d);
    }
    out
}

/// Whether the refresh token whose digest is `digest` was spent under the lock: the store read
/// after the lock was granted is older than the grant that spent it.
pub fn is_spent(ledger: Option<&str>, digest: &str) -> bool {
    digests(ledger).any(|d| d == digest)
}

fn digests(ledger: Option<&str>) -> impl Iterator<Item = &str> {
    ledger
        .unwrap_or_default()
        .split(' ')
        .filter(|d| !d.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Client;

    fn grant(access: &str, refresh: &str, expires_at: u64) -> Grant {
        Grant {
            access_token: access.into(),
            dpop: false,
            refresh_token: Some(refresh.into()),
            expires_at: Some(expires_at),
            scope: None,
            client: Client {
                client_id: "c1".into(),
                client_secret: None,
                auth_method: "none".into(),
            },
            token_endpoint: "https://as/token".into(),
            issuer: "https://as".into(),
            resource: "https://rs/mcp".into(),
        }
    }

    #[test]
    fn the_lock_is_named_for_the_issuer_and_the_client() {
        let g = grant("a1", "r1", 10);
        assert_eq!(lock_name(&g), "mcp-task-client:oauth-refresh https://as c1");
        let other_client = Grant {
            client: Client {
                client_id: "c2".into(),
                ..g.client.clone()
            },
            ..g.clone()
        };
        assert_ne!(lock_name(&g), lock_name(&other_client));
        let old = Grant {
            issuer: String::new(),
            ..g
        };
        assert_eq!(
            lock_name(&old),
            "mcp-task-client:oauth-refresh https://as/token c1"
        );
    }

    #[test]
    fn a_tab_that_waited_for_the_lock_adopts_the_grant_another_tab_stored() {
        let held = grant("a1", "r1", 1_000);
        let stored = grant("a2", "r2", 5_000);
        assert_eq!(
            on_lock(&held, Some(stored.clone()), 1_000),
            Turn::Adopt(stored.clone()),
            "the other tab's refresh consumed r1: no second refresh"
        );
        assert_eq!(
            on_lock(&held, Some(stored.clone()), 5_000),
            Turn::Refresh(stored),
            "the stored grant expired too: refresh it with its own (live) refresh token"
        );
    }

    #[test]
    fn the_first_tab_to_hold_the_lock_refreshes_its_own_grant() {
        let held = grant("a1", "r1", 1_000);
        assert_eq!(on_lock(&held, None, 1_000), Turn::Refresh(held.clone()));
        assert_eq!(
            on_lock(&held, Some(held.clone()), 1_000),
            Turn::Refresh(held.clone())
        );
        let foreign = [
            Grant {
                resource: "https://other/mcp".into(),
                ..grant("a2", "r2", 9_000)
            },
            Grant {
                token_endpoint: "https://other/token".into(),
                ..grant("a2", "r2", 9_000)
            },
        ];
        for g in foreign {
            assert_eq!(
                on_lock(&held, Some(g), 1_000),
                Turn::Refresh(held.clone()),
                "a grant for another resource or server is not this one's successor"
            );
        }
        let dead = Grant {
            refresh_token: None,
            ..grant("a2", "r2", 900)
        };
        assert_eq!(on_lock(&held, Some(dead), 1_000), Turn::Refresh(held));
    }

    #[test]
    fn only_a_rotated_refresh_token_is_recorded_as_spent() {
        let old = grant("a1", "r1", 1_000);
        assert_eq!(rotated(&old, &grant("a2", "r2", 5_000)), Some("r1"));
        let kept = Grant {
            refresh_token: None,
            ..grant("a2", "r1", 5_000)
        };
        assert_eq!(
            rotated(&old, &kept),
            Some("r1"),
            "an answer without one drops it"
        );
        assert_eq!(rotated(&old, &grant("a2", "r1", 5_000)), None);
        let none = Grant {
            refresh_token: None,
            ..old
        };
        assert_eq!(rotated(&none, &grant("a2", "r2", 5_000)), None);
    }

    #[test]
    fn the_ledger_remembers_the_last_spent_refresh_tokens() {
        assert!(!is_spent(None, "d1"));
        let one = spend(None, "d1");
        assert!(is_spent(Some(&one), "d1"));
        assert!(!is_spent(Some(&one), "d2"));
        assert!(!is_spent(Some(&one), "d"), "whole digests only");
        assert_eq!(spend(Some(&one), "d1"), "d1", "recorded once");
        let mut ledger = one;
        for i in 2..=LEDGER_LEN + 1 {
            ledger = spend(Some(&ledger), &format!("d{i}"));
        }
        assert!(!is_spent(Some(&ledger), "d1"), "the oldest is dropped");
        assert!(is_spent(Some(&ledger), "d2"));
        assert_eq!(ledger.split(' ').count(), LEDGER_LEN);
        assert_eq!(
            spend(Some("  junk "), "d1"),
            "junk d1",
            "whatever storage holds never panics"
        );
    }

    #[test]
    fn a_failed_refresh_takes_a_grant_stored_meanwhile_only() {
        let held = grant("a1", "r1", 1_000);
        let stored = grant("a2", "r2", 5_000);
        assert_eq!(
            after_failed_refresh(&held, Some(stored.clone()), 1_000),
            Some(stored)
        );
        assert_eq!(after_failed_refresh(&held, Some(held.clone()), 1_000), None);
        assert_eq!(after_failed_refresh(&held, None, 1_000), None);
    }
}
