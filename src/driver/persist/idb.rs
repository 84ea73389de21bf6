//! A tiny key/value layer over IndexedDB (its requests and transactions in `full.js`): one
//! database, one object store of `{k, v}` rows (`v` is JSON text), atomic read-modify-write
//! inside one `readwrite` transaction.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A read-modify-write of one stored value (`None`: delete). Boxed, so that the storage code is
/// compiled once rather than once per caller's closure; `FnMut`, as a host store may retry it.
pub(super) type Edit = Box<dyn FnMut(Option<String>) -> Option<String>>;

#[wasm_bindgen(module = "/src/driver/full.js")]
extern "C" {
    #[wasm_bindgen(js_name = idbOpen)]
    fn idb_open(name: &str, version: u32) -> Promise;
    #[wasm_bindgen(js_name = idbScan)]
    fn idb_scan(db: &JsValue, prefix: &str) -> Promise;
    #[wasm_bindgen(js_name = idbGet)]
    fn idb_get(db: &JsValue, key: &str) -> Promise;
    #[wasm_bindgen(js_name = idbUpdate)]
    fn idb_update(db: &JsValue, key: &str, edit: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = idbDelete)]
    fn idb_delete(db: &JsValue, key: &str) -> Promise;
    #[wasm_bindgen(js_name = idbClose)]
    fn idb_close(db: &JsValue);
}

const DB_NAME: &str = "mcp-task-client";
const DB_VERSION: u32 = 1;
/// How long opening the database may take before it is taken as unavailable.
const OPEN_TIMEOUT_MS: u32 = 3_000;

/// An open database (closed on drop).
pub struct Idb {
    db: JsValue,
}

impl Drop for Idb {
    fn drop(&mut self) {
        idb_close(&self.db);
    }
}

/// What `read` finds in each of `rows` (one instantiation for every store's scan).
pub(super) fn texts(rows: JsValue, read: fn(&JsValue) -> Option<String>) -> Vec<String> {
    let rows: Array = rows.dyn_into().unwrap_or_default();
    rows.iter().filter_map(|r| read(&r)).collect()
}

/// Runs a store's read-modify-write of one value: `start` is handed `f` as a JS function (the
/// old text, or nothing → the new text, or `null` to delete) and returns the promise of what
/// was stored. Shared by IndexedDB and a coordination host's store.
pub(super) async fn edit_with(
    mut f: Edit,
    start: &dyn Fn(&JsValue) -> Promise,
) -> Result<Option<String>, JsValue> {
    let edit = Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |old: JsValue| {
        f(old.as_string()).map_or(JsValue::NULL, |v| JsValue::from_str(&v))
    });
    let stored = JsFuture::from(start(edit.as_ref())).await;
    drop(edit);
    Ok(stored?.as_string())
}

impl Idb {
    /// Opens (creating on first use) the database; `None` where IndexedDB is missing or refused,
    /// or when the open has not settled within [`OPEN_TIMEOUT_MS`] (a browser bug, a blocked
    /// upgrade: no caller may hang on it).
    pub async fn open() -> Option<Idb> {
        let opening = JsFuture::from(idb_open(DB_NAME, DB_VERSION));
        let timeout = gloo_timers::future::TimeoutFuture::new(OPEN_TIMEOUT_MS);
        let db = match futures::future::select(opening, timeout).await {
            futures::future::Either::Left((db, _)) => db.ok()?,
            futures::future::Either::Right(_) => return None,
        };
        (!db.is_null()).then(|| Idb { db })
    }

    /// Every value whose key starts with `prefix`.
    pub async fn scan(&self, prefix: &str) -> Result<Vec<String>, JsValue> {
        let rows = JsFuture::from(idb_scan(&self.db, prefix)).await?;
        Ok(texts(rows, JsValue::as_string))
    }

    /// Reads one value.
    pub async fn get(&self, key: &str) -> Result<Option<String>, JsValue> {
        Ok(JsFuture::from(idb_get(&self.db, key)).await?.as_string())
    }

    /// Atomically replaces the value under `key` with `f(old)` (`None`: delete) and waits until
    /// the transaction committed. Returns what `f` returned.
    pub async fn update(&self, key: &str, f: Edit) -> Result<Option<String>, JsValue> {
        edit_with(f, &|edit| idb_update(&self.db, key, edit)).await
    }

    /// Deletes one key.
    pub async fn delete(&self, key: &str) -> Result<(), JsValue> {
        JsFuture::from(idb_delete(&self.db, key)).await.map(drop)
    }
}
