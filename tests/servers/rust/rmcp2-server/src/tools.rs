//! The shared tool set on rmcp 2.0: `long_job`, `fail_job`, `ask_input`, `quick`,
//! `needs_task`, `maybe_task`, `slow_job`. Task plumbing (`tasks/get|result|list|cancel`)
//! is the SDK's own `#[task_handler]`; only `call_tool` and `get_info` are written here.

// Logging is deprecated in rmcp 2 (SEP-2577) but is the only status channel it has.
#![allow(deprecated)]

use std::{sync::Arc, time::Duration};

use rmcp::{
    handler::server::{router::tool::ToolRouter, tool::ToolCallContext, wrapper::Parameters},
    model::{
        CallToolRequestParams, CallToolResult, ContentBlock, ElicitRequestParams, Extensions,
        LoggingMessageNotificationParam, ProgressNotificationParam, ServerCapabilities, ServerInfo,
        TasksCapability,
    },
    schemars,
    service::RequestContext,
    task_handler,
    task_manager::OperationProcessor,
    tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler,
};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Mutex;

/// `ErrorData` under the name the `#[task_handler]` expansion expects.
type McpError = ErrorData;

/// Marker put in the request extensions when `tools/call` carried `task`.
#[derive(Debug, Clone)]
struct AsTask(String);

/// One server per session (the SDK's factory model), so tasks are per session.
#[derive(Clone)]
pub struct TaskServer {
    tool_router: ToolRouter<TaskServer>,
    processor: Arc<Mutex<OperationProcessor>>,
    full_caps: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LongJobArgs {
    /// Number of steps (default 3).
    pub steps: Option<u32>,
    /// Milliseconds per step (default 500).
    pub step_ms: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailJobArgs {
    /// Delay before failing (default 200 ms).
    pub ms: Option<u64>,
    /// Return an `isError` tool result instead of a JSON-RPC error.
    pub is_error: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SlowJobArgs {
    /// Milliseconds to sleep (default 2000).
    pub ms: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AskInputArgs {
    /// Question shown to the user.
    pub question: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TextArgs {
    /// Text to echo back.
    pub text: Option<String>,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

/// `_meta` with the related-task key when the call runs as a task.
fn related_meta(ext: &Extensions) -> Option<Value> {
    ext.get::<AsTask>()
        .map(|t| json!({"io.modelcontextprotocol/related-task": {"taskId": t.0}}))
}

fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(e.to_string(), None))
}

#[tool_router]
impl TaskServer {
    pub fn new(full_caps: bool) -> Self {
        Self {
            tool_router: Self::tool_router(),
            processor: Arc::new(Mutex::new(OperationProcessor::new())),
            full_caps,
        }
    }

    #[tool(
        description = "Runs `steps` steps of `stepMs` ms, reporting each step, then returns text",
        execution(task_support = "optional")
    )]
    async fn long_job(
        &self,
        Parameters(args): Parameters<LongJobArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let steps = args.steps.unwrap_or(3);
        let step_ms = args.step_ms.unwrap_or(500);
        let token = ctx.meta.get_progress_token();
        for step in 1..=steps {
            tokio::time::sleep(Duration::from_millis(step_ms)).await;
            let message = format!("step {step}/{steps}");
            let meta = related_meta(&ctx.extensions);
            if let Some(token) = &token {
                let p: ProgressNotificationParam = from_json(json!({
                    "progressToken": token, "progress": step, "total": steps,
                    "message": message, "_meta": meta,
                }))?;
                let _ = ctx.peer.notify_progress(p).await;
            }
            let log: LoggingMessageNotificationParam = from_json(json!({
                "level": "info", "logger": "long_job", "data": message, "_meta": meta,
            }))?;
            #[allow(deprecated)]
            let _ = ctx.peer.notify_logging_message(log).await;
        }
        Ok(text(format!("long_job done after {steps} steps")))
    }

    #[tool(
        description = "Fails after `ms` ms (JSON-RPC error, or an isError result with isError=true)",
        execution(task_support = "optional")
    )]
    async fn fail_job(
        &self,
        Parameters(args): Parameters<FailJobArgs>,
    ) -> Result<CallToolResult, McpError> {
        tokio::time::sleep(Duration::from_millis(args.ms.unwrap_or(200))).await;
        if args.is_error.unwrap_or(false) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "fail_job failed on purpose",
            )]));
        }
        Err(McpError::internal_error("fail_job failed on purpose", None))
    }

    #[tool(
        description = "Asks the user a question (elicitation/create) and returns the answer",
        execution(task_support = "optional")
    )]
    async fn ask_input(
        &self,
        Parameters(args): Parameters<AskInputArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let question = args.question.unwrap_or_else(|| "What is your name?".into());
        let params: ElicitRequestParams = from_json(json!({
            "mode": "form",
            "message": question,
            "requestedSchema": {
                "type": "object",
                "properties": {"answer": {"type": "string", "description": "Your answer"}},
                "required": ["answer"],
            },
            "_meta": related_meta(&ctx.extensions),
        }))?;
        let result = ctx
            .peer
            .create_elicitation(params)
            .await
            .map_err(|e| McpError::internal_error(format!("elicitation failed: {e}"), None))?;
        let result = serde_json::to_value(&result).unwrap_or(Value::Null);
        let action = result.get("action").and_then(Value::as_str).unwrap_or("?");
        let answer = result
            .get("content")
            .and_then(|c| c.get("answer"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(text(format!("ask_input: action={action} answer={answer}")))
    }

    #[tool(description = "Answers at once; must not be called as a task")]
    async fn quick(&self, Parameters(args): Parameters<TextArgs>) -> CallToolResult {
        text(format!("quick: {}", args.text.unwrap_or_default()))
    }

    #[tool(
        description = "Must be called as a task; returns after 300 ms",
        execution(task_support = "required")
    )]
    async fn needs_task(&self, Parameters(args): Parameters<TextArgs>) -> CallToolResult {
        tokio::time::sleep(Duration::from_millis(300)).await;
        text(format!("needs_task: {}", args.text.unwrap_or_default()))
    }

    #[tool(
        description = "May be called as a task or not; returns after 300 ms",
        execution(task_support = "optional")
    )]
    async fn maybe_task(&self, Parameters(args): Parameters<TextArgs>) -> CallToolResult {
        tokio::time::sleep(Duration::from_millis(300)).await;
        text(format!("maybe_task: {}", args.text.unwrap_or_default()))
    }

    #[tool(
        description = "Sleeps `ms` ms (default 2000), then returns text",
        execution(task_support = "optional")
    )]
    async fn slow_job(&self, Parameters(args): Parameters<SlowJobArgs>) -> CallToolResult {
        let ms = args.ms.unwrap_or(2000);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        text(format!("slow_job slept {ms} ms"))
    }
}

#[tool_handler(router = self.tool_router)]
#[task_handler]
impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        // The SDK runs a task by calling `call_tool` again with the same params
        // (task id = the request id); mark it so tools can tag what they send.
        if request.task.is_some() {
            context.extensions.insert(AsTask(context.id.to_string()));
        }
        let tcc = ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }

    fn get_info(&self) -> ServerInfo {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        caps.tasks = Some(if self.full_caps {
            TasksCapability::server_default()
        } else {
            TasksCapability::default()
        });
        ServerInfo::new(caps)
            .with_server_info(rmcp::model::Implementation::new("rmcp2-server", "2.0.0"))
    }
}
