//! The `localStorage` fallback (where IndexedDB is missing): the same keys, one item each.
//! Read-modify-write is synchronous, hence atomic within a page; across pages the caller holds a
//! Web Lock where there is one.

use wasm_bindgen::prelude::*;

use crate::bridge::scope::PREFIX;

#[wasm_bindgen]
extern "C" {
    #[derive(Clone)]
    pub type WebStorage;
    #[wasm_bindgen(method, catch, js_name = getItem)]
    fn get_item(this: &WebStorage, key: &str) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = setItem)]
    fn set_item(this: &WebStorage, key: &str, value: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeItem)]
    fn remove_item(this: &WebStorage, key: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn key(this: &WebStorage, index: u32) -> Result<Option<String>, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    fn length(this: &WebStorage) -> Result<u32, JsValue>;
}

/// `globalThis.localStorage` (reading it may throw where storage is blocked).
pub fn open() -> Option<WebStorage> {
    let s = crate::driver::io::local_storage();
    (!s.is_undefined()).then(|| s.unchecked_into())
}

impl WebStorage {
    pub fn read(&self, key: &str) -> Option<String> {
        self.get_item(&[PREFIX, key].concat()).ok().flatten()
    }

    pub fn write(&self, key: &str, value: Option<&str>) -> Result<(), JsValue> {
        let k = [PREFIX, key].concat();
        match value {
            Some(v) => self.set_item(&k, v),
            None => self.remove_item(&k),
        }
    }

    /// Values of every key starting with `prefix`.
    pub fn scan(&self, prefix: &str) -> Vec<String> {
        let full = [PREFIX, prefix].concat();
        let n = self.length().unwrap_or(0);
        (0..n)
            .filter_map(|i| self.key(i).ok().flatten())
            .filter(|k| k.starts_with(&full))
            .filter_map(|k| self.get_item(&k).ok().flatten())
            .collect()
    }
}
