//! The ledger of refresh tokens spent under the refresh lock: their SHA-256 digests (never the
//! tokens) in IndexedDB, whose transactions are ordered across the origin's tabs — a read begun
//! after the lock was granted sees what the previous holder committed before releasing it, which
//! a Web Storage read may not. What a digest found there means is [`crate::auth::shared`]'s.

#[cfg(feature = "tabs")]
use super::persist::Idb;
#[cfg(feature = "tabs")]
use super::webcrypto::sha256;
#[cfg(feature = "tabs")]
use crate::auth::shared::{is_spent, spend};
#[cfg(feature = "tabs")]
use crate::auth::url::base64;

/// How long a lock holder waits for the store to show the grant that spent its refresh token:
/// [`READS`] reads at most, `PAUSE_MS` apart (1 s).
pub const READS: usize = 50;
#[cfg(feature = "tabs")]
const PAUSE_MS: u32 = 20;

/// Without tab coordination there is no lock, hence no ledger.
#[cfg(not(feature = "tabs"))]
pub enum Spent {}

#[cfg(not(feature = "tabs"))]
impl Spent {
    pub async fn has(&self, _: &str) -> bool {
        match *self {}
    }

    pub async fn record(&self, _: &str) {
        match *self {}
    }

    pub async fn pause(&self) {
        match *self {}
    }
}

/// The ledger of one lock's refresh tokens (the row named as the lock).
#[cfg(feature = "tabs")]
pub struct Spent {
    db: Idb,
    key: String,
}

#[cfg(feature = "tabs")]
impl Spent {
    /// The ledger for the lock `key`; `None` where IndexedDB is missing or refused.
    pub async fn open(key: String) -> Option<Spent> {
        Some(Spent {
            db: Idb::open().await?,
            key,
        })
    }

    /// Whether `token` was spent under the lock (not when the ledger cannot be read).
    pub async fn has(&self, token: &str) -> bool {
        let Some(d) = digest(token).await else {
            return false;
        };
        let ledger = self.db.get(&self.key).await.ok().flatten();
        is_spent(ledger.as_deref(), &d)
    }

    /// Records `token` as spent, committed when this returns.
    pub async fn record(&self, token: &str) {
        if let Some(d) = digest(token).await {
            let edit = Box::new(move |old: Option<String>| Some(spend(old.as_deref(), &d)));
            let _ = self.db.update(&self.key, edit).await;
        }
    }

    /// Waits [`PAUSE_MS`] before the store is read again.
    pub async fn pause(&self) {
        gloo_timers::future::TimeoutFuture::new(PAUSE_MS).await;
    }
}

#[cfg(feature = "tabs")]
async fn digest(token: &str) -> Option<String> {
    Some(base64(&sha256(token.as_bytes()).await.ok()?, true))
}
