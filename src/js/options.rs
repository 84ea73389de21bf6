//! Reads the option objects of the JS API.

use js_sys::{Function, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

#[cfg(feature = "oauth")]
use crate::driver::auth::AuthShell;
use crate::driver::{HeaderSource, TransportKind};
use crate::engine::api::{Augment, CallOptions, Config, DialectChoice, Link};
#[cfg(feature = "oauth")]
use crate::engine::auth::AuthConfig;

/// Parsed `ConnectOptions`.
pub struct Connect {
    pub transport: TransportKind,
    pub config: Config,
    pub headers: HeaderSource,
    pub websocket: Option<Function>,
    pub on_input: Option<Function>,
    pub on_warning: Option<Function>,
}

/// Parsed `CallOptions` / `WatchOptions`.
pub struct Call {
    pub options: CallOptions,
    pub signal: Option<AbortSignal>,
}

fn get(o: &JsValue, key: &str) -> JsValue {
    if !o.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `o[key]` read by `read` when set (`None` when undefined or null); `what` names the type expected.
fn typed<T>(
    o: &JsValue,
    key: &str,
    read: impl Fn(&JsValue) -> Option<T>,
    what: &str,
) -> Result<Option<T>, String> {
    let v = get(o, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    read(&v).map(Some).ok_or_else(|| must_be(key, what))
}

/// The message for an argument or option `name` that is not `what`.
pub fn must_be(name: &str, what: &str) -> String {
    [name, " must be ", what].concat()
}

fn string(o: &JsValue, key: &str) -> Result<Option<String>, String> {
    typed(o, key, JsValue::as_string, "a string")
}

fn millis(o: &JsValue, key: &str) -> Result<Option<u64>, String> {
    let read = |v: &JsValue| {
        let n = v.as_f64()?;
        (0.0..=9_007_199_254_740_991.0)
            .contains(&n)
            .then_some(n as u64)
    };
    typed(o, key, read, "a non-negative number")
}

/// A boolean option (`false` when unset).
fn boolean(o: &JsValue, key: &str) -> Result<bool, String> {
    Ok(typed(o, key, JsValue::as_bool, "a boolean")?.unwrap_or(false))
}

fn function(o: &JsValue, key: &str) -> Result<Option<Function>, String> {
    typed(o, key, |v| v.dyn_ref::<Function>().cloned(), "a function")
}

fn check_object(o: &JsValue, what: &str) -> Result<(), String> {
    if o.is_undefined() || o.is_null() || (o.is_object() && !o.is_function()) {
        Ok(())
    } else {
        Err(must_be(what, "an object"))
    }
}

/// A non-empty string argument (`what` names it in the error).
pub fn id(v: &JsValue, what: &str) -> Result<String, String> {
    match v.as_string() {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(must_be(what, "a non-empty string")),
    }
}

/// A JSON object argument; `undefined`/`null` → `{}`.
pub fn object(v: &JsValue, what: &str) -> Result<Value, String> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Object(Default::default()));
    }
    match super::convert::from_js(v)? {
        Some(o @ Value::Object(_)) => Ok(o),
        _ => Err(must_be(what, "a plain object")),
    }
}

/// An optional string argument.
pub fn optional_string(v: &JsValue, what: &str) -> Result<Option<String>, String> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| must_be(what, "a string"))
}

/// The server URL: a string the global `URL` parses (relative to the page, where there is one)
/// with an http(s) or ws(s) scheme. Returned as given.
pub fn url(v: &JsValue) -> Result<String, String> {
    let text = v
        .as_string()
        .ok_or_else(|| "url must be a string".to_owned())?;
    let global = js_sys::global();
    let ctor = Reflect::get(&global, &JsValue::from_str("URL"))
        .ok()
        .and_then(|c| c.dyn_into::<Function>().ok());
    let Some(ctor) = ctor else {
        return Ok(text);
    };
    let base = Reflect::get(&global, &JsValue::from_str("location"))
        .ok()
        .filter(|l| l.is_object())
        .map(|l| get(&l, "href"))
        .unwrap_or(JsValue::UNDEFINED);
    let args = js_sys::Array::of2(&JsValue::from_str(&text), &base);
    let parsed =
        Reflect::construct(&ctor, &args).map_err(|_| ["not a URL: \"", &text, "\""].concat())?;
    let scheme = get(&parsed, "protocol").as_string().unwrap_or_default();
    if matches!(scheme.as_str(), "http:" | "https:" | "ws:" | "wss:") {
        Ok(text)
    } else {
        Err([
            "unsupported URL scheme \"",
            &scheme,
            "\" in \"",
            &text,
            "\" (use http, https, ws or wss)",
        ]
        .concat())
    }
}

/// Reads `ConnectOptions` for `url`.
pub fn connect(url: &str, o: &JsValue) -> Result<Connect, String> {
    check_object(o, "options")?;
    let transport = transport(o, url)?;
    let mut config = engine_config(o, url, transport)?;
    let on_input = function(o, "onInput")?;
    if let Some(caps) = capabilities(o, on_input.is_some())? {
        config.client_capabilities = caps;
    }
    let client_name = config.client_name.clone();
    Ok(Connect {
        transport,
        config,
        headers: auth(
            o,
            url,
            &client_name,
            HeaderSource::from_js(&get(o, "headers"))?,
        )?,
        websocket: function(o, "WebSocket")?,
        on_input,
        on_warning: function(o, "onWarning")?,
    })
}

/// The `transport` option; by default WebSocket for a `ws:`/`wss:` URL, else HTTP.
fn transport(o: &JsValue, url: &str) -> Result<TransportKind, String> {
    let lower = url.to_ascii_lowercase();
    Ok(match string(o, "transport")?.as_deref() {
        None if lower.starts_with("ws:") || lower.starts_with("wss:") => TransportKind::WebSocket,
        None | Some("http") => TransportKind::Http,
        Some("websocket") => TransportKind::WebSocket,
        Some(other) => {
            return Err([
                "unknown transport \"",
                other,
                "\" (use \"http\" or \"websocket\")",
            ]
            .concat())
        }
    })
}

/// The engine's configuration from the options (capabilities apart: they depend on `onInput`).
fn engine_config(o: &JsValue, url: &str, transport: TransportKind) -> Result<Config, String> {
    let dialect = match string(o, "dialect")?.as_deref() {
        None | Some("auto") => DialectChoice::Auto,
        Some("modern") => DialectChoice::Modern,
        Some("legacy") => DialectChoice::Legacy,
        Some("draft") if cfg!(feature = "draft") => DialectChoice::Draft,
        Some("draft") => return Err("dialect \"draft\" (SEP-1686) needs the full build: import from \"mcp-task-client\" (not \"mcp-task-client/core\")".into()),
        Some(other) => return Err(["unknown dialect \"", other, "\""].concat()),
    };
    let mut config = Config {
        dialect,
        ..Config::default()
    };
    if let Some(n) = string(o, "clientName")? {
        config.client_name = n;
    }
    if let Some(v) = string(o, "clientVersion")? {
        config.client_version = v;
    }
    if let Some(t) = millis(o, "requestTimeoutMs")? {
        config.request_timeout_ms = t;
    }
    if let Some(m) = millis(o, "maxMessageBytes")? {
        config.max_message_bytes = usize::try_from(m).unwrap_or(usize::MAX);
    }
    if let Some(g) = millis(o, "resultGcMs")? {
        config.result_gc_ms = g;
    }
    config.link = link(o, url, transport)?;
    if let Some(s) = typed(o, "subscribe", JsValue::as_bool, "a boolean")? {
        config.subscribe = s;
    }
    config.delete_on_done = boolean(o, "deleteOnDone")?;
    Ok(config)
}

/// The `link` option; by default detected from the transport and the URL.
fn link(o: &JsValue, url: &str, transport: TransportKind) -> Result<Link, String> {
    Ok(match string(o, "link")?.as_deref() {
        None => crate::driver::link::detect(transport, url),
        Some("http1") => Link::Http1,
        Some("http2") => Link::Http2,
        Some("node") => Link::Node,
        Some("websocket") => Link::WebSocket,
        Some(other) => {
            return Err([
                "unknown link \"",
                other,
                "\" (use \"http1\", \"http2\", \"node\" or \"websocket\")",
            ]
            .concat())
        }
    })
}

/// The `capabilities` option; without it and without an input handler (`has_handler`) the host
/// can answer nothing: it declares nothing. `None`: the engine's default.
fn capabilities(o: &JsValue, has_handler: bool) -> Result<Option<Value>, String> {
    let caps = get(o, "capabilities");
    if !caps.is_undefined() && !caps.is_null() {
        return match super::convert::from_js(&caps)? {
            Some(v @ Value::Object(_)) => Ok(Some(v)),
            _ => Err("capabilities must be a plain object".into()),
        };
    }
    Ok((!has_handler).then(|| serde_json::json!({})))
}

/// Reads the `auth` option (OAuth for servers that answer 401, see `driver::auth`) on top of
/// the `headers` option's `base`.
#[cfg(feature = "oauth")]
fn auth(
    o: &JsValue,
    url: &str,
    client_name: &str,
    base: HeaderSource,
) -> Result<HeaderSource, String> {
    let a = get(o, "auth");
    if a.is_undefined() || a.is_null() {
        return Ok(base);
    }
    check_object(&a, "auth")?;
    let open =
        function(&a, "openAuthorization")?.ok_or("auth.openAuthorization must be a function")?;
    let redirect_uri = string(&a, "redirectUri")?.ok_or("auth.redirectUri must be a string")?;
    let store = get(&a, "store");
    let store = if store.is_undefined() || store.is_null() {
        None
    } else if get(&store, "load").is_function() && get(&store, "save").is_function() {
        Some(store)
    } else {
        return Err("auth.store must have load() and save(grant) functions".into());
    };
    let cfg = AuthConfig {
        server_url: url.to_owned(),
        redirect_uri,
        client_id: string(&a, "clientId")?,
        client_secret: string(&a, "clientSecret")?,
        client_metadata_url: string(&a, "clientMetadataUrl")?,
        client_name: string(&a, "clientName")?.unwrap_or_else(|| client_name.to_owned()),
        scope: string(&a, "scope")?,
    };
    Ok(base.with_auth(Some(AuthShell::new(cfg, open, store))))
}

/// The core build has no OAuth: the `auth` option is refused with where to find it.
#[cfg(not(feature = "oauth"))]
fn auth(o: &JsValue, _: &str, _: &str, base: HeaderSource) -> Result<HeaderSource, String> {
    let a = get(o, "auth");
    if a.is_undefined() || a.is_null() {
        return Ok(base);
    }
    Err("auth (OAuth) needs the full build: import from \"mcp-task-client\" (not \"mcp-task-client/core\")".into())
}

/// Reads `CallOptions` (`ttlMs`, `keepAliveMs`, `task`, `deleteOnDone`, `signal`).
pub fn call(o: &JsValue) -> Result<Call, String> {
    check_object(o, "options")?;
    let augment = match string(o, "task")?.as_deref() {
        None | Some("auto") => Augment::Auto,
        Some("always") => Augment::Always,
        Some("never") => Augment::Never,
        Some(other) => {
            return Err([
                "unknown task option \"",
                other,
                "\" (use \"auto\", \"always\" or \"never\")",
            ]
            .concat())
        }
    };
    let options = CallOptions {
        ttl_ms: millis(o, "ttlMs")?,
        keep_alive_ms: millis(o, "keepAliveMs")?,
        augment,
        delete_on_done: boolean(o, "deleteOnDone")?,
    };
    Ok(Call {
        options,
        signal: signal(o)?,
    })
}

/// Reads an optional `signal`.
pub fn signal(o: &JsValue) -> Result<Option<AbortSignal>, String> {
    let v = get(o, "signal");
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let has_aborted = Reflect::has(&v, &JsValue::from_str("aborted")).unwrap_or(false);
    let has_listen = get(&v, "addEventListener").is_function();
    if has_aborted && has_listen {
        Ok(Some(v.unchecked_into()))
    } else {
        Err("signal must be an AbortSignal".into())
    }
}
