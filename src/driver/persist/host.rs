//! A coordination host's store (`persist: { redis }` in Node): JSON text values by key, kept
//! outside the process. The host makes each read-modify-write atomic across processes; it may
//! run an edit more than once (a concurrent write made it retry), and the last run counts.

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::idb::{edit_with, texts, Edit};

#[wasm_bindgen]
extern "C" {
    /// The host's `store`.
    #[derive(Clone)]
    pub type HostStore;
    #[wasm_bindgen(method, catch)]
    fn get(this: &HostStore, key: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn scan(this: &HostStore, prefix: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn update(this: &HostStore, key: &str, edit: &JsValue) -> Result<Promise, JsValue>;
}

impl HostStore {
    /// The host's `store`, when `host` has one.
    pub fn of(host: &JsValue) -> Option<HostStore> {
        let s = js_sys::Reflect::get(host, &"store".into()).ok()?;
        s.is_object().then(|| s.unchecked_into())
    }

    /// Every value whose key starts with `prefix` (none when the host cannot answer).
    pub async fn values(&self, prefix: &str) -> Vec<String> {
        let Ok(p) = self.scan(prefix) else {
            return Vec::new();
        };
        texts(
            JsFuture::from(p).await.unwrap_or(JsValue::NULL),
            JsValue::as_string,
        )
    }

    /// One value (`None` when missing or the host cannot answer).
    pub async fn value(&self, key: &str) -> Option<String> {
        JsFuture::from(self.get(key).ok()?).await.ok()?.as_string()
    }

    /// Replaces the value under `key` with `f(old)` (`None`: delete); returns the new one, or
    /// `Err` when the host could not store it.
    pub async fn edit(&self, key: &str, f: Edit) -> Result<Option<String>, JsValue> {
        let start =
            |edit: &JsValue| (self.update(key, edit)).unwrap_or_else(|e| Promise::reject(&e));
        edit_with(f, &start).await
    }
}
