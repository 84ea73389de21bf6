//! Shared plumbing for the rmcp test servers: command-line/env options, CORS,
//! a request-counting middleware (`GET /stats`, `POST /stats/reset`), and a
//! `serve` helper that prints `READY <url>` and exits on SIGTERM/SIGINT.

mod stats;

use std::net::SocketAddr;

use axum::{
    http::{header, HeaderName, Method},
    Router,
};
use tower_http::cors::{Any, CorsLayer};

pub use stats::{stats_routes, Stats};

/// Headers a browser client may send (and `Mcp-Session-Id` it must read back).
const ALLOWED_HEADERS: [&str; 7] = [
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
    "authorization",
    "content-type",
];

/// The modern (2026-07-28) request headers, refused with `STRICT_CORS=1`.
const MODERN_HEADERS: [&str; 2] = ["mcp-method", "mcp-name"];

/// CORS for any origin, with the MCP headers allowed and `Mcp-Session-Id` exposed.
/// `STRICT_CORS=1`: only the 2025-11-25 request headers (a common configuration).
pub fn cors() -> CorsLayer {
    let strict = std::env::var("STRICT_CORS").is_ok_and(|v| v == "1");
    let allow: Vec<HeaderName> = ALLOWED_HEADERS
        .iter()
        .filter(|h| !(strict && MODERN_HEADERS.contains(h)))
        .map(|h| HeaderName::from_static(h))
        .chain([header::ACCEPT])
        .collect();
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers(allow)
        .expose_headers([HeaderName::from_static("mcp-session-id")])
}

/// Command-line arguments: `--port N` (else `PORT`, else 0 = any free port) and
/// free-form flags (`--name` or `--name=value`) for the server to interpret.
#[derive(Debug, Clone, Default)]
pub struct Args {
    pub port: u16,
    pub flags: Vec<(String, Option<String>)>,
}

impl Args {
    /// Parses `std::env::args()`; unknown flags are kept for the caller.
    pub fn parse() -> Result<Self, String> {
        let mut port = match std::env::var("PORT") {
            Ok(v) if !v.is_empty() => v.parse().map_err(|_| format!("bad PORT {v:?}"))?,
            _ => 0,
        };
        let mut flags = Vec::new();
        let mut it = std::env::args().skip(1);
        while let Some(arg) = it.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                return Err(format!("unexpected argument {arg:?}"));
            };
            let (name, value) = match flag.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (flag.to_string(), None),
            };
            if name == "port" {
                let v = match value {
                    Some(v) => v,
                    None => it.next().ok_or("--port needs a value")?,
                };
                port = v.parse().map_err(|_| format!("bad --port {v:?}"))?;
            } else {
                flags.push((name, value));
            }
        }
        Ok(Self { port, flags })
    }

    /// True when `--name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    /// The value of `--name=value`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// Binds 127.0.0.1:`port`, prints `READY http://127.0.0.1:<port>/mcp`, and serves
/// `app` (with stats counting and CORS added) until SIGTERM or SIGINT.
pub async fn serve(app: Router, port: u16) -> std::io::Result<()> {
    let stats = Stats::default();
    let app = app
        .merge(stats_routes(stats.clone()))
        .layer(axum::middleware::from_fn_with_state(stats, stats::count))
        .layer(cors());
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
    let addr = listener.local_addr()?;
    println!("READY http://{addr}/mcp");
    let server = axum::serve(listener, app);
    tokio::select! {
        res = server => res,
        () = shutdown_signal() => {
            eprintln!("signal received, exiting");
            Ok(())
        }
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // Without signal handlers, fall back to Ctrl-C only.
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
