//! What the options of `connect` ([`read`]) and of a call ([`call_options`]) mean. The JS client
//! checked each option's type (a named choice is one of its names) and passes the plain ones as
//! one JSON object; what depends on other options or on the build (the draft dialect, tab sharing)
//! is checked here, with the text a caller sees.

use crate::json::Value;
use wasm_bindgen::prelude::*;

#[cfg(feature = "oauth")]
use crate::auth::AuthConfig;
#[cfg(feature = "oauth")]
use crate::driver::auth::AuthShell;
use crate::driver::tabs::SharedOptions;
use crate::driver::{HeaderSource, TransportKind};
use crate::engine::api::{Augment, Cadence, CallOptions, Config, DialectChoice, Link};

/// `connect`'s settings, read.
pub struct Settings {
    /// The server's URL.
    pub url: String,
    pub transport: TransportKind,
    pub config: Config,
    pub shared: Option<SharedOptions>,
    /// Whether the caller answers input requests (`onInput`).
    pub answers_input: bool,
}

/// The text of an option only the full build has.
const FULL_BUILD: &str =
    " needs the full build: import from \"mcp-task-client\" (not \"mcp-task-client/core\")";

/// The string member `key` of the checked values `s`.
pub fn string<'a>(s: &'a Value, key: &str) -> Option<&'a str> {
    s.get(key).and_then(Value::as_str)
}

fn millis(s: &Value, key: &str) -> Option<u64> {
    s.get(key).and_then(Value::as_f64).map(|n| n as u64)
}

/// The boolean member `key` of the checked values `s`.
pub fn flag(s: &Value, key: &str) -> Option<bool> {
    s.get(key).and_then(Value::as_bool)
}

/// Reads the settings `s` (the URL among them).
pub fn read(s: &Value) -> Result<Settings, String> {
    let url = string(s, "url").unwrap_or_default();
    let transport = transport(string(s, "transport"), url);
    let answers_input = flag(s, "onInput").unwrap_or(false);
    let mut config = Config {
        dialect: dialect(string(s, "dialect"))?,
        ..Config::default()
    };
    if let Some(n) = string(s, "clientName") {
        config.client_name = n.to_owned();
    }
    if let Some(v) = string(s, "clientVersion") {
        config.client_version = v.to_owned();
    }
    if let Some(t) = millis(s, "requestTimeoutMs") {
        config.request_timeout_ms = t;
    }
    if let Some(m) = millis(s, "maxMessageBytes") {
        config.max_message_bytes = usize::try_from(m).unwrap_or(usize::MAX);
    }
    if let Some(g) = millis(s, "resultGcMs") {
        config.result_gc_ms = g;
    }
    (config.link, config.link_unseen) = link(string(s, "link"), url, transport);
    config.cadence = match string(s, "cadence") {
        Some("requests") => Cadence::Requests,
        _ => Cadence::Latency,
    };
    config.url = url.to_owned();
    if let Some(b) = flag(s, "subscribe") {
        config.subscribe = b;
    }
    config.delete_on_done = flag(s, "deleteOnDone").unwrap_or(false);
    // Without capabilities and without an input handler the host can answer nothing: it
    // declares nothing.
    match s.get("capabilities") {
        Some(c) => config.client_capabilities = c.clone(),
        None if !answers_input => config.client_capabilities = Value::Object(Default::default()),
        None => {}
    }
    Ok(Settings {
        url: url.to_owned(),
        transport,
        config,
        shared: shared(s)?,
        answers_input,
    })
}

/// The `transport` option (`"http"` or `"websocket"`); by default WebSocket for a `ws:`/`wss:`
/// URL, else HTTP.
fn transport(t: Option<&str>, url: &str) -> TransportKind {
    let lower = url.to_ascii_lowercase();
    match t {
        Some("websocket") => TransportKind::WebSocket,
        None if lower.starts_with("ws:") || lower.starts_with("wss:") => TransportKind::WebSocket,
        _ => TransportKind::Http,
    }
}

/// The `dialect` option (`"auto"`, `"modern"`, `"legacy"` or `"draft"`, which only the full build
/// speaks).
fn dialect(d: Option<&str>) -> Result<DialectChoice, String> {
    Ok(match d {
        Some("modern") => DialectChoice::Modern,
        Some("legacy") => DialectChoice::Legacy,
        Some("draft") if cfg!(feature = "draft") => DialectChoice::Draft,
        Some("draft") => return Err(["dialect \"draft\" (SEP-1686)", FULL_BUILD].concat()),
        _ => DialectChoice::Auto,
    })
}

/// The `link` option (`"http1"`, `"http2"`, `"node"`, `"websocket"` or `"learn"`); by default
/// detected from the transport and the URL (a link learnt earlier in the page for the URL
/// included), HTTP/1.1 where the browser tells nothing; `"learn"` lets the engine revise that
/// assumption from its requests (`true`).
fn link(l: Option<&str>, url: &str, transport: TransportKind) -> (Link, bool) {
    let named = match l {
        None => return (crate::driver::link::detect(transport, url).0, false),
        Some("learn") => return crate::driver::link::detect(transport, url),
        Some("http2") => Link::Http2,
        Some("node") => Link::Node,
        Some("websocket") => Link::WebSocket,
        Some(_) => Link::Http1,
    };
    (named, false)
}

/// `persist`, `identity`, `persistResults`, `tabs`; `None` unless `persist: true`.
fn shared(s: &Value) -> Result<Option<SharedOptions>, String> {
    let identity = string(s, "identity").map(str::to_owned);
    let persist_results = flag(s, "persistResults").unwrap_or(false);
    if !flag(s, "persist").unwrap_or(false) {
        if identity.is_some() || persist_results {
            return Err("identity and persistResults need persist: true".into());
        }
        return Ok(None);
    }
    if cfg!(not(feature = "tabs")) {
        return Err(["persist", FULL_BUILD].concat());
    }
    Ok(Some(SharedOptions {
        identity,
        persist_results,
        coordinate: flag(s, "tabs").unwrap_or(true),
        #[cfg(feature = "tabs")]
        host: None,
    }))
}

/// The options of `callTool` and `request`, read from their checked values `o`.
pub fn call_options(o: &Value) -> CallOptions {
    let augment = match string(o, "task") {
        Some("always") => Augment::Always,
        Some("never") => Augment::Never,
        _ => Augment::Auto,
    };
    CallOptions {
        ttl_ms: millis(o, "ttlMs"),
        keep_alive_ms: millis(o, "keepAliveMs"),
        augment,
        delete_on_done: flag(o, "deleteOnDone").unwrap_or(false),
    }
}

/// The `auth` option as given (OAuth for servers that answer 401, see `driver::auth`; read here,
/// as only the full build has it) on top of the `headers` option's `base`.
#[cfg(feature = "oauth")]
pub fn auth(
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
pub fn auth(a: &JsValue, _: &str, _: &str, base: HeaderSource) -> Result<HeaderSource, String> {
    if a.is_undefined() || a.is_null() {
        return Ok(base);
    }
    Err(["auth (OAuth)", FULL_BUILD].concat())
}
