//! The `auth` option, read from the JS object the caller gave (its plain options are
//! [`crate::bridge::settings`]).

use wasm_bindgen::prelude::*;

#[cfg(feature = "oauth")]
use crate::auth::AuthConfig;
#[cfg(not(feature = "oauth"))]
use crate::bridge::settings::FULL_BUILD;
#[cfg(feature = "oauth")]
use crate::driver::auth::AuthShell;
use crate::driver::HeaderSource;

/// The `auth` option as given (OAuth for servers that answer 401, see `driver::auth`; read here,
/// as only the full build has it) on top of the `headers` option's `base`.
#[cfg(feature = "oauth")]
pub fn read(
    a: &JsValue,
    url: &str,
    client_name: &str,
    base: HeaderSource,
) -> Result<HeaderSource, String> {
    use js_sys::{Function, Reflect};
    if a.is_undefined() || a.is_null() {
        return Ok(base);
    }
    if !a.is_object() || a.is_function() {
        return Err("auth must be an object".into());
    }
    let get = |k: &str| Reflect::get(a, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    let string = |k: &str| -> Result<Option<String>, String> {
        let v = get(k);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        v.as_string()
            .map(Some)
            .ok_or_else(|| ["auth.", k, " must be a string"].concat())
    };
    // `client_credentials`: a machine client (no page; its id and secret are checked by the flow).
    let machine = string("grant")?.as_deref() == Some("client_credentials");
    let (open, redirect_uri) = if machine {
        (None, String::new())
    } else {
        let open = get("openAuthorization")
            .dyn_into::<Function>()
            .map_err(|_| "auth.openAuthorization must be a function")?;
        let redirect = string("redirectUri")?.ok_or("auth.redirectUri must be a string")?;
        (Some(open), redirect)
    };
    let store = get("store");
    let store = if store.is_undefined() || store.is_null() {
        None
    } else if Reflect::get(&store, &"load".into()).is_ok_and(|f| f.is_function())
        && Reflect::get(&store, &"save".into()).is_ok_and(|f| f.is_function())
    {
        Some(store)
    } else {
        return Err("auth.store must have load() and save(grant) functions".into());
    };
    // `private_key_jwt`: the key is Web Crypto's to use (a `CryptoKey` or a private JWK object).
    let key = get("privateKey");
    let key = match key.is_object() && !key.is_function() {
        true if machine => Some(key),
        true => return Err("auth.privateKey needs grant: \"client_credentials\"".into()),
        false if key.is_undefined() || key.is_null() => None,
        false => return Err("auth.privateKey must be a CryptoKey or a private JWK".into()),
    };
    let cfg = AuthConfig {
        server_url: url.to_owned(),
        redirect_uri,
        client_id: string("clientId")?,
        client_secret: string("clientSecret")?,
        client_metadata_url: string("clientMetadataUrl")?,
        client_name: string("clientName")?.unwrap_or_else(|| client_name.to_owned()),
        scope: string("scope")?,
        client_credentials: machine,
        private_key_jwt: key.is_some(),
        key_id: string("keyId")?,
        dpop: match get("dpop") {
            v if v.is_undefined() || v.is_null() => false,
            v => v.as_bool().ok_or("auth.dpop must be a boolean")?,
        },
    };
    Ok(base.with_auth(Some(AuthShell::new(cfg, open, store, key))))
}

/// The core build has no OAuth: the `auth` option is refused with where to find it.
#[cfg(not(feature = "oauth"))]
pub fn read(a: &JsValue, _: &str, _: &str, base: HeaderSource) -> Result<HeaderSource, String> {
    if a.is_undefined() || a.is_null() {
        return Ok(base);
    }
    Err(["auth (OAuth)", FULL_BUILD].concat())
}
