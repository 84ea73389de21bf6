//! MCP task test server on turbomcp 4.0.0-alpha.5, public API only: a `#[server]` with `#[tool]`s, the
//! `TasksExtension` (2026-07-28 `io.modelcontextprotocol/tasks`) taskifying the task tools, served by `serve_http`
//! (a 2025-11-25 `initialize` works too, but without tasks: `params.task` is ignored).
//! Input inside a task is `ctx.client.elicit` (the SDK turns it into `inputRequests` / an `elicitation/create`).
//!
//! `turbomcp-server [--port N] [--any-origin]` binds 127.0.0.1, prints `READY http://127.0.0.1:PORT/mcp`, exits on
//! SIGTERM/SIGINT. The SDK has no port 0 report, so a free port is picked first. CORS: off (the SDK's default, which
//! also refuses foreign origins); `--any-origin` = `HttpConfig::allow_any_origin()` (permissive CORS).

// The `#[tool]` macro names each argument after its parameter: `stepMs` must be spelled so, in a struct it generates.
#![allow(non_snake_case)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use turbomcp::ext_tasks::TasksExtension;
use turbomcp::http::{serve_http, HttpConfig};
use turbomcp::prelude::*;

const TASK_TOOLS: [&str; 6] = [
    "long_job",
    "fail_job",
    "ask_input",
    "needs_task",
    "maybe_task",
    "slow_job",
];

#[derive(Clone)]
struct Tools;

async fn sleep_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

#[server(name = "mcp-task-client-test-turbomcp", version = "0.0.0")]
impl Tools {
    /// A task of `steps` steps of `stepMs` ms.
    #[tool]
    async fn long_job(&self, steps: Option<u64>, stepMs: Option<u64>) -> McpResult<String> {
        let steps = steps.unwrap_or(3);
        for _ in 0..steps {
            sleep_ms(stepMs.unwrap_or(200)).await;
        }
        Ok(format!("long_job done: {steps} steps"))
    }

    /// Fails after `ms` ms: "failed" with an internal error, "iserror" with a tool-execution error.
    #[tool]
    async fn fail_job(&self, ms: Option<u64>, how: Option<String>) -> McpResult<String> {
        sleep_ms(ms.unwrap_or(100)).await;
        Err(match how.as_deref() {
            Some("iserror") => McpError::tool_execution_failed("fail_job", "tool error"),
            _ => McpError::internal("fail_job: failed on purpose"),
        })
    }

    /// Asks for `{answer: string}` by form elicitation, then returns it.
    #[tool]
    async fn ask_input(&self, ctx: &CallToolContext, message: Option<String>) -> McpResult<String> {
        let schema = json!({ "type": "object", "properties": { "answer": { "type": "string" } }, "required": ["answer"] });
        let message = message.unwrap_or_else(|| "What is your answer?".into());
        let outcome = ctx
            .client
            .elicit("answer", neutral::ElicitParams::new(message, schema))
            .await?;
        if !outcome.accepted() {
            return Ok("ask_input got action: decline".into());
        }
        let answer = outcome
            .content
            .get("answer")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        Ok(format!("ask_input got answer: {answer}"))
    }

    /// A short required task.
    #[tool]
    async fn needs_task(&self, ms: Option<u64>) -> McpResult<String> {
        sleep_ms(ms.unwrap_or(100)).await;
        Ok("needs_task done".into())
    }

    /// As a task or inline.
    #[tool]
    async fn maybe_task(&self, ms: Option<u64>) -> McpResult<String> {
        sleep_ms(ms.unwrap_or(100)).await;
        Ok("maybe_task done".into())
    }

    /// A long task, to outlive a short ttl or be cancelled.
    #[tool]
    async fn slow_job(&self, ms: Option<u64>) -> McpResult<String> {
        let ms = ms.unwrap_or(5000);
        sleep_ms(ms).await;
        Ok(format!("slow_job done after {ms} ms"))
    }

    /// A plain tool (never a task).
    #[tool]
    async fn quick(&self, text: Option<String>) -> McpResult<String> {
        Ok(format!("quick: {}", text.unwrap_or_else(|| "hi".into())))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().collect();
    let mut port = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0u16);
    if let Some(i) = argv.iter().position(|a| a == "--port") {
        port = argv.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(0);
    }
    if port == 0 {
        port = std::net::TcpListener::bind(("127.0.0.1", 0))?
            .local_addr()?
            .port();
    }
    let mut config = HttpConfig::new();
    if argv.iter().any(|a| a == "--any-origin") {
        config = config.allow_any_origin();
    }
    let shutdown = config.shutdown_token();
    let service = Tools
        .into_server()
        .with_extension(Arc::new(TasksExtension::new().task_tools(TASK_TOOLS)))
        .build();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let serving = tokio::spawn(serve_http(addr, service, config));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            println!("READY http://{addr}/mcp");
            break;
        }
        sleep_ms(25).await;
    }
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = term.recv() => shutdown.cancel(),
        _ = tokio::signal::ctrl_c() => shutdown.cancel(),
        _ = serving => {}
    }
    Ok(())
}
