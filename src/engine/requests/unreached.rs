//! Requests that got no HTTP response at all. In Node the connection failed. In a page the server
//! is down or unreachable, or its CORS policy refuses this origin or the request headers the
//! dialect needs: the page cannot tell which, so the error names them all with the URL. When the
//! server answered a request without the 2026-07-28 headers and none carrying them, the cause is
//! known: its preflight refuses them. A probe lost that way while `initialize` gets through is a
//! deviation said once: the 2025-11-25 era is used.

use crate::engine::api::{ClientError, ErrorKind, Link};

/// What a preflight must allow for the 2026-07-28 era beyond the 2025-11-25 headers.
const MODERN_HEADERS: &str = "Mcp-Method, Mcp-Name and MCP-Protocol-Version for this page's origin";
/// The request headers each era sends, as a preflight must allow them.
const LEGACY_NEEDS: &str = "Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and the headers option's (Authorization), and expose Mcp-Session-Id";
const MODERN_NEEDS: &str = "Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID and the headers option's (Authorization)";
const MODERN_REFUSED: &str = "the server's CORS policy refuses this page's 2026-07-28 requests: its preflight must allow the request headers ";
const FELL_BACK: &str = "server/discover got no response while initialize did: the server's CORS policy refuses the 2026-07-28 request headers, so the 2025-11-25 era is used; for 2026-07-28 its preflight must allow ";

/// What to say of a request to `url` over `link` that got no response (`raw`: what the runtime
/// said); `modern`: the session speaks 2026-07-28, and (`refused`) its headers are known refused.
pub(super) fn unreached(url: &str, link: Link, modern: bool, refused: bool, raw: &str) -> String {
    if !link.in_page() {
        let why = ": the connection failed or was refused (";
        return ["no response from ", url, why, raw, ")"].concat();
    }
    if refused {
        return [MODERN_REFUSED, MODERN_HEADERS, "; URL ", url].concat();
    }
    let needs = if modern { MODERN_NEEDS } else { LEGACY_NEEDS };
    let why = "): the server is down or unreachable, or its CORS policy refuses this page's origin or request headers; it must allow ";
    ["no response from ", url, " (", raw, why, needs].concat()
}

/// The warning that `initialize` answered after the probe got no response in a page.
pub(crate) fn modern_refused() -> ClientError {
    ClientError::new(ErrorKind::Transport, [FELL_BACK, MODERN_HEADERS].concat())
}
