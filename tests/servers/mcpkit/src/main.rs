//! MCP task test server on mcpkit 0.7.0 (2025-11-25 tasks), public API only: an `#[mcp_server]` whose `#[tool]`s
//! declare `task_support`, served over Streamable HTTP by `mcpkit_axum::McpRouter` (POST `/mcp`, SSE GET `/mcp/sse`).
//! Macro tools get no request context, so there is no `ask_input` (elicitation) here.
//!
//! `mcpkit-server [--port N] [--cors]` binds 127.0.0.1, prints `READY http://127.0.0.1:PORT/mcp`, exits on
//! SIGTERM/SIGINT. CORS/Origin: the router's defaults (no CORS; only loopback origins accepted); `--cors` =
//! `McpRouter::with_cors()` (any origin, method and header; nothing exposed).

// The `#[tool]` macro names each argument after its parameter: `stepMs` must be spelled so.
#![allow(non_snake_case)]

use std::time::Duration;

use mcpkit::prelude::*;
use mcpkit_axum::McpRouter;

struct Tools;

async fn sleep_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

#[mcp_server(name = "mcp-task-client-test-mcpkit", version = "0.0.0")]
impl Tools {
    #[tool(
        description = "A task of `steps` steps of `stepMs` ms",
        task_support = "required"
    )]
    async fn long_job(&self, steps: Option<u64>, stepMs: Option<u64>) -> ToolOutput {
        let steps = steps.unwrap_or(3);
        for _ in 0..steps {
            sleep_ms(stepMs.unwrap_or(200)).await;
        }
        ToolOutput::text(format!("long_job done: {steps} steps"))
    }

    #[tool(
        description = "Fails after `ms` ms with an isError result",
        task_support = "required"
    )]
    async fn fail_job(&self, ms: Option<u64>, how: Option<String>) -> ToolOutput {
        sleep_ms(ms.unwrap_or(100)).await;
        let _ = how;
        ToolOutput::error("fail_job: failed on purpose")
    }

    #[tool(description = "A short required task", task_support = "required")]
    async fn needs_task(&self, ms: Option<u64>) -> ToolOutput {
        sleep_ms(ms.unwrap_or(100)).await;
        ToolOutput::text("needs_task done")
    }

    #[tool(description = "As a task or inline", task_support = "optional")]
    async fn maybe_task(&self, ms: Option<u64>) -> ToolOutput {
        sleep_ms(ms.unwrap_or(100)).await;
        ToolOutput::text("maybe_task done")
    }

    #[tool(
        description = "A long task, to outlive a short ttl or be cancelled",
        task_support = "required"
    )]
    async fn slow_job(&self, ms: Option<u64>) -> ToolOutput {
        let ms = ms.unwrap_or(5000);
        sleep_ms(ms).await;
        ToolOutput::text(format!("slow_job done after {ms} ms"))
    }

    #[tool(description = "A plain tool (never a task)")]
    async fn quick(&self, text: Option<String>) -> ToolOutput {
        ToolOutput::text(format!("quick: {}", text.unwrap_or_else(|| "hi".into())))
    }
}

/// The router needs resources and prompts too: none here.
impl ResourceHandler for Tools {
    async fn list_resources(&self, _ctx: &Context<'_>) -> Result<Vec<Resource>, McpError> {
        Ok(Vec::new())
    }

    async fn read_resource(
        &self,
        uri: &str,
        _ctx: &Context<'_>,
    ) -> Result<Vec<ResourceContents>, McpError> {
        Err(McpError::invalid_params(
            "resources/read",
            format!("no resource {uri}"),
        ))
    }
}

impl PromptHandler for Tools {
    async fn list_prompts(&self, _ctx: &Context<'_>) -> Result<Vec<Prompt>, McpError> {
        Ok(Vec::new())
    }

    async fn get_prompt(
        &self,
        name: &str,
        _args: Option<serde_json::Map<String, serde_json::Value>>,
        _ctx: &Context<'_>,
    ) -> Result<GetPromptResult, McpError> {
        Err(McpError::invalid_params(
            "prompts/get",
            format!("no prompt {name}"),
        ))
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
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let bound = listener.local_addr()?;
    let mut router = McpRouter::new(Tools);
    if argv.iter().any(|a| a == "--cors") {
        router = router.with_cors();
    }
    let app = router.into_router();
    println!("READY http://{bound}/mcp");
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        })
        .await?;
    Ok(())
}
