//! Which link the requests travel on, as far as a request held open costs a connection: a
//! WebSocket shares one socket; Node's fetch (also Electron's main process) has no per-origin
//! limit; a page or worker reads the HTTP version its browser negotiated with the server's origin
//! (`nextHopProtocol` of a resource already loaded from it: the page itself, or any earlier
//! request the server let it time). Nothing seen yet means HTTP/1.1, the tight budget.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::TransportKind;
use crate::engine::api::Link;

fn field(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Node or Electron's main process: a `process.versions.node` and no `document`.
fn in_node() -> bool {
    let global = js_sys::global();
    let node = field(&field(&field(&global, "process"), "versions"), "node");
    node.is_string() && field(&global, "document").is_undefined()
}

/// Whether a URL's authority (`host[:port]`) ends at byte `b`: the path, query or fragment.
fn ends_authority(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'#')
}

/// `scheme://host[:port]` of a URL.
fn origin(url: &str) -> &str {
    let after_scheme = crate::protocol::find(url, "://").map_or(0, |i| i + 3);
    let end = url
        .get(after_scheme..)
        .and_then(|rest| rest.bytes().position(ends_authority))
        .map_or(url.len(), |i| after_scheme + i);
    url.get(..end).unwrap_or(url)
}

/// Whether the browser reached `url`'s origin over HTTP/2 or HTTP/3 already.
fn multiplexed(url: &str) -> bool {
    let origin = origin(url).to_ascii_lowercase();
    let performance = field(&js_sys::global(), "performance");
    let by_type = field(&performance, "getEntriesByType");
    let Some(by_type) = by_type.dyn_ref::<js_sys::Function>() else {
        return false;
    };
    ["navigation", "resource"].iter().any(|kind| {
        let entries = by_type
            .call1(&performance, &JsValue::from_str(kind))
            .ok()
            .and_then(|v| v.dyn_into::<Array>().ok());
        entries.is_some_and(|entries| {
            entries.iter().any(|e| {
                let name = field(&e, "name").as_string().unwrap_or_default();
                let protocol = field(&e, "nextHopProtocol").as_string().unwrap_or_default();
                let same = name.to_ascii_lowercase().starts_with(&origin)
                    && name
                        .get(origin.len()..)
                        .is_some_and(|r| r.bytes().next().is_none_or(ends_authority));
                same && (protocol == "h2" || protocol.starts_with("h3"))
            })
        })
    })
}

/// The link for `transport` to `url` in this environment.
pub fn detect(transport: TransportKind, url: &str) -> Link {
    match transport {
        TransportKind::WebSocket => Link::WebSocket,
        TransportKind::Http if in_node() => Link::Node,
        TransportKind::Http if multiplexed(url) => Link::Http2,
        TransportKind::Http => Link::Http1,
    }
}
