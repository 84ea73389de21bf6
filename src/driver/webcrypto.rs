//! The Web Crypto operations OAuth needs, in `webcrypto.js`: SHA-256 for PKCE, and ES256
//! signatures for the JWTs the client signs.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::global::describe;

#[wasm_bindgen(module = "/src/driver/webcrypto.js")]
extern "C" {
    #[wasm_bindgen(js_name = sha256)]
    fn digest(data: &[u8]) -> Promise;
    #[wasm_bindgen(js_name = signEs256)]
    fn sign(key: &JsValue, data: &[u8]) -> Promise;
}

/// Awaits `p`'s bytes; a rejection is its message after `context`.
async fn bytes(p: Promise, context: &str) -> Result<Vec<u8>, String> {
    match JsFuture::from(p).await {
        Ok(v) => Ok(Uint8Array::new(&v).to_vec()),
        Err(e) => Err([context, &describe(&e)].concat()),
    }
}

/// SHA-256 of `data`.
pub async fn sha256(data: &[u8]) -> Result<Vec<u8>, String> {
    bytes(digest(data), "").await
}

/// The ES256 signature of `data` with `key` (a private `CryptoKey` or a private P-256 JWK).
pub async fn sign_es256(key: &JsValue, data: &[u8]) -> Result<Vec<u8>, String> {
    bytes(sign(key, data), "signing with the private key failed: ").await
}
