//! MCP test server on `rmcp = "=2.0.0"`: legacy (2025-11-25) tasks through the SDK's
//! own `#[task_handler]` + `OperationProcessor`, over Streamable HTTP at `/mcp`.
//!
//! Options: `--port N` / `PORT` (0 = any free port); `--full-caps` (or
//! `RMCP2_FULL_CAPS=1`) advertises `tasks.{list,cancel,requests.tools.call}`
//! instead of the SDK default `tasks: {}`. Sessions are stateful (SSE responses):
//! the SDK's task store lives in the per-session server, so tasks are per session.

mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use task_test_common::Args;

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

#[tokio::main]
async fn main() {
    let args = match Args::parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rmcp2-server: {e}");
            std::process::exit(2);
        }
    };
    let full_caps = args.has("full-caps") || env_flag("RMCP2_FULL_CAPS");
    let config = StreamableHttpServerConfig::default();
    let service = StreamableHttpService::new(
        move || Ok(tools::TaskServer::new(full_caps)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    if let Err(e) = task_test_common::serve(app, args.port).await {
        eprintln!("rmcp2-server: {e}");
        std::process::exit(1);
    }
}
