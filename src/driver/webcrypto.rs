//! The Web Crypto operations OAuth needs (`crypto.subtle`, in pages, workers and Node): SHA-256
//! for PKCE, and ES256 signatures for the JWTs the client signs.

use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::global::describe;

/// `crypto.subtle` (pages need a secure context for it).
fn subtle() -> Result<JsValue, String> {
    let missing = || "crypto.subtle is unavailable (a page must be a secure context)".to_owned();
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| missing())?;
    Reflect::get(&crypto, &"subtle".into())
        .ok()
        .filter(JsValue::is_object)
        .ok_or_else(missing)
}

/// Calls `crypto.subtle[name](...args)` and awaits it.
async fn call(name: &str, args: &Array) -> Result<JsValue, String> {
    let subtle = subtle()?;
    let f: Function = Reflect::get(&subtle, &name.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| ["crypto.subtle.", name, " is unavailable"].concat())?;
    let p = f.apply(&subtle, args).map_err(|e| describe(&e))?;
    JsFuture::from(Promise::resolve(&p))
        .await
        .map_err(|e| describe(&e))
}

/// A plain object from its members.
fn object(members: &[(&str, &JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in members {
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

/// SHA-256 of `data`.
pub async fn sha256(data: &[u8]) -> Result<Vec<u8>, String> {
    let args = Array::of2(&"SHA-256".into(), &Uint8Array::from(data));
    Ok(Uint8Array::new(&call("digest", &args).await?).to_vec())
}

/// The ES256 signature (raw `r‖s`, the JWS form) of `data` with `key`: a `CryptoKey` (ECDSA
/// P-256, usage `sign`) or a private P-256 JWK, imported non-extractable for this signature.
pub async fn sign_es256(key: &JsValue, data: &[u8]) -> Result<Vec<u8>, String> {
    let ecdsa = JsValue::from_str("ECDSA");
    let is_crypto_key = Reflect::get(key, &"type".into())
        .ok()
        .and_then(|t| t.as_string())
        .is_some_and(|t| t == "private");
    let key = match is_crypto_key {
        true => key.clone(),
        false => {
            let alg = object(&[("name", &ecdsa), ("namedCurve", &"P-256".into())]);
            let usages = Array::of1(&"sign".into());
            let args = Array::of5(&"jwk".into(), key, &alg, &JsValue::FALSE, &usages);
            call("importKey", &args)
                .await
                .map_err(|e| ["the private key is not a P-256 JWK: ", &e].concat())?
        }
    };
    let alg = object(&[("name", &ecdsa), ("hash", &"SHA-256".into())]);
    let args = Array::of3(&alg, &key, &Uint8Array::from(data));
    let signature = call("sign", &args)
        .await
        .map_err(|e| ["signing with the private key failed: ", &e].concat())?;
    Ok(Uint8Array::new(&signature).to_vec())
}
