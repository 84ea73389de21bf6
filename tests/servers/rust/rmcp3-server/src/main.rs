//! MCP test server on `rmcp = "=3.11.0"`: protocol 2026-07-28 with the
//! `io.modelcontextprotocol/tasks` extension (the SDK's `TaskManager`), over
//! Streamable HTTP at `/mcp`.
//!
//! Options (flags or `RMCP3_MODE`, a comma list of the same words):
//! - `--modern-only` / `modern`: only `2026-07-28` (a legacy `initialize` gets -32022);
//!   the default is dual-era (2026-07-28 plus 2024-11-05…2025-11-25 via `initialize`).
//! - `--sse` / `sse`: SSE response bodies for modern requests instead of JSON.
//! - `--no-tasks` / `notasks`: no tasks extension in the capabilities (discover, initialize), and
//!   every tool runs inline: a server offering tasks in no era.
//! - `--poll-ms=N` (`RMCP3_POLL_MS`): suggested poll interval (SDK default 1000).
//! - `--ttl-ms=N` (`RMCP3_TTL_MS`): task TTL (SDK default 300000).
//! - `--port N` / `PORT` (0 = any free port).

mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use task_test_common::Args;

/// How this process serves.
#[derive(Debug, Clone)]
pub struct Mode {
    pub modern_only: bool,
    pub sse: bool,
    pub no_tasks: bool,
    pub poll_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
}

fn number(args: &Args, flag: &str, env: &str) -> Result<Option<u64>, String> {
    let raw = match args.value(flag) {
        Some(v) => Some(v.to_string()),
        None => std::env::var(env).ok().filter(|v| !v.is_empty()),
    };
    raw.map(|v| v.parse().map_err(|_| format!("bad {flag} value {v:?}")))
        .transpose()
}

fn mode(args: &Args) -> Result<Mode, String> {
    let env = std::env::var("RMCP3_MODE").unwrap_or_default();
    let words: Vec<&str> = env
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(bad) = words
        .iter()
        .find(|w| !["dual", "modern", "sse", "notasks"].contains(w))
    {
        return Err(format!("unknown RMCP3_MODE word {bad:?}"));
    }
    for (name, _) in &args.flags {
        if ![
            "modern-only",
            "sse",
            "dual",
            "no-tasks",
            "poll-ms",
            "ttl-ms",
        ]
        .contains(&name.as_str())
        {
            return Err(format!("unknown flag --{name}"));
        }
    }
    Ok(Mode {
        modern_only: args.has("modern-only") || words.contains(&"modern"),
        sse: args.has("sse") || words.contains(&"sse"),
        no_tasks: args.has("no-tasks") || words.contains(&"notasks"),
        poll_ms: number(args, "poll-ms", "RMCP3_POLL_MS")?,
        ttl_ms: number(args, "ttl-ms", "RMCP3_TTL_MS")?,
    })
}

#[tokio::main]
async fn main() {
    let (args, mode) = match Args::parse().and_then(|a| mode(&a).map(|m| (a, m))) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("rmcp3-server: {e}");
            std::process::exit(2);
        }
    };
    eprintln!("rmcp3-server mode: {mode:?}");
    let config = StreamableHttpServerConfig::default().with_json_response(!mode.sse);
    // One task store for the whole process: modern requests are stateless, so a
    // per-request server must still find the tasks created by earlier requests.
    let server = tools::TaskServer::new(mode);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    if let Err(e) = task_test_common::serve(app, args.port).await {
        eprintln!("rmcp3-server: {e}");
        std::process::exit(1);
    }
}
