//! What the plain options of `connect` ([`read`]) and of a call ([`call_options`]) mean. The JS
//! client checked each option's type (a named choice is one of its names) and passes them as one
//! JSON object; what depends on other options or on the build (the draft dialect, tab sharing)
//! is checked here, with the text a caller sees.

use super::link::{self, Seen, TransportKind};
use crate::engine::api::{Augment, Cadence, CallOptions, Config, DialectChoice, Link};
use crate::json::Value;

/// `connect`'s settings, read.
pub struct Settings {
    /// The server's URL.
    pub url: String,
    pub transport: TransportKind,
    pub config: Config,
    pub shared: Option<Sharing>,
    /// Whether the caller answers input requests (`onInput`).
    pub answers_input: bool,
}

/// The tab sharing `persist: true` asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sharing {
    /// Scope records, locks and channels to this user as well as to the server URL.
    pub identity: Option<String>,
    /// Keep task outcomes in storage too.
    pub persist_results: bool,
    /// Coordinate tabs (`tabs: false`: every tab its own leader).
    pub coordinate: bool,
}

/// The text of an option only the full build has.
pub const FULL_BUILD: &str =
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

/// Reads the settings `s` (the URL among them); `seen` tells what the environment shows of the
/// link to a URL's origin, asked only when the link is detected, and `stored` what the tab's
/// session storage kept of the link learnt for a URL, asked only where nothing was shown.
#[inline]
pub fn read(
    s: &Value,
    seen: impl FnOnce(&str) -> Seen,
    stored: impl FnOnce(&str) -> Option<String>,
) -> Result<Settings, String> {
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
    let learnt = || link::learnt(url, || stored(url));
    (config.link, config.link_unseen) = link(string(s, "link"), transport, || seen(url), learnt);
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
#[inline]
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
#[inline]
fn dialect(d: Option<&str>) -> Result<DialectChoice, String> {
    Ok(match d {
        Some("modern") => DialectChoice::Modern,
        Some("legacy") => DialectChoice::Legacy,
        Some("draft") if cfg!(feature = "draft") => DialectChoice::Draft,
        Some("draft") => return Err(["dialect \"draft\" (SEP-1686)", FULL_BUILD].concat()),
        _ => DialectChoice::Auto,
    })
}

/// The `link` option (`"http1"`, `"http2"`, `"node"`, `"websocket"` or `"learn"`, the default):
/// detected from the transport and the URL (a link learnt earlier for the URL included); where
/// the browser tells nothing, HTTP/1.1 that the engine may revise from its requests (`true`).
/// `"http1"` opts out of learning.
#[inline]
fn link(
    l: Option<&str>,
    transport: TransportKind,
    seen: impl FnOnce() -> Seen,
    learnt: impl FnOnce() -> Option<Link>,
) -> (Link, bool) {
    let named = match l {
        None | Some("learn") => return link::detect(transport, seen, learnt),
        Some("http2") => Link::Http2,
        Some("node") => Link::Node,
        Some("websocket") => Link::WebSocket,
        Some(_) => Link::Http1,
    };
    (named, false)
}

/// `persist`, `identity`, `persistResults`, `tabs`; `None` unless `persist: true`.
#[inline]
fn shared(s: &Value) -> Result<Option<Sharing>, String> {
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
    Ok(Some(Sharing {
        identity,
        persist_results,
        coordinate: flag(s, "tabs").unwrap_or(true),
    }))
}

/// The options of `callTool` and `request`, read from their checked values `o`.
#[inline]
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
