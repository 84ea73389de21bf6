//! The Web Crypto operations OAuth needs, in `full.js`: SHA-256 for PKCE, and ES256
//! signatures for the JWTs the client signs.

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::global::describe;
use crate::auth::jwt::PublicJwk;

#[wasm_bindgen(module = "/src/driver/full.js")]
extern "C" {
    #[wasm_bindgen(js_name = sha256)]
    fn digest(data: &[u8]) -> Promise;
    #[wasm_bindgen(js_name = signEs256)]
    fn sign(key: &JsValue, data: &[u8]) -> Promise;
    #[wasm_bindgen(js_name = dpopKey)]
    fn make_dpop_key(name: Option<String>) -> Promise;
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

/// An ES256 key pair: the non-extractable private key, and the public key as a JWK; with a
/// `name`, the one kept under it in IndexedDB where the host has it.
pub async fn dpop_key(name: Option<String>) -> Result<(JsValue, PublicJwk), String> {
    let fail = |e: &JsValue| ["no DPoP key: ", &describe(e)].concat();
    let made: Array = JsFuture::from(make_dpop_key(name))
        .await
        .map_err(|e| fail(&e))?
        .into();
    let coordinate = |i| made.get(i).as_string().unwrap_or_default();
    let public = PublicJwk {
        x: coordinate(1),
        y: coordinate(2),
    };
    Ok((made.get(0), public))
}

/// The ES256 signature of `data` with `key` (a private `CryptoKey` or a private P-256 JWK).
pub async fn sign_es256(key: &JsValue, data: &[u8]) -> Result<Vec<u8>, String> {
    bytes(sign(key, data), "signing with the private key failed: ").await
}
