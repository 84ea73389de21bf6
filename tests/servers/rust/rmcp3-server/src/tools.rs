//! The shared tool set on rmcp 3.11. A call from a client that declared the tasks
//! extension becomes a task (`TaskManager::spawn`) for every tool except `quick`;
//! other calls run inline. `tasks/get|update|cancel` go straight to the SDK's
//! `TaskManager`.

// Progress/logging are deprecated in rmcp 3 (SEP-2577) but are what inline calls have.
#![allow(deprecated)]

use std::{borrow::Cow, time::Duration};

use rmcp::{
    handler::server::{router::tool::ToolRouter, tool::ToolCallContext, wrapper::Parameters},
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        ClientCapabilities, ContentBlock, CreateTaskResult, ElicitRequestParams, GetTaskParams,
        GetTaskResult, Implementation, InputRequest, InputRequests, InputRequiredResult,
        ProgressNotificationParam, ProtocolVersion, ServerCapabilities, ServerConfig,
        SubscriptionFilter, UpdateTaskParams,
    },
    schemars,
    service::RequestContext,
    task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions},
    tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler,
};
use serde::{de::DeserializeOwned, Deserialize};
use serde_json::{json, Value};

use crate::Mode;

#[derive(Clone)]
pub struct TaskServer {
    tool_router: ToolRouter<TaskServer>,
    tasks: TaskManager,
    mode: Mode,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LongJobArgs {
    /// Number of steps (default 3).
    pub steps: Option<u32>,
    /// Milliseconds per step (default 500).
    pub step_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailJobArgs {
    /// Delay before failing (default 200 ms).
    pub ms: Option<u64>,
    /// Return an `isError` tool result instead of a JSON-RPC error.
    pub is_error: Option<bool>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct SlowJobArgs {
    /// Milliseconds to sleep (default 2000).
    pub ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AskInputArgs {
    /// Question shown to the user.
    pub question: Option<String>,
    /// Questions asked one after another as a task (keys `q1`, `q2`, …; default 1).
    pub rounds: Option<u32>,
    /// Modern only: first ask a `confirm` question as an MRTR `input_required`
    /// result, and only create the task once it is answered.
    pub mrtr_first: Option<bool>,
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct TextArgs {
    /// Text to echo back.
    pub text: Option<String>,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn internal(e: impl std::fmt::Display) -> McpError {
    McpError::internal_error(e.to_string(), None)
}

fn parse<T: DeserializeOwned + Default>(request: &CallToolRequestParams) -> Result<T, McpError> {
    match &request.arguments {
        None => Ok(T::default()),
        Some(args) => serde_json::from_value(Value::Object(args.clone()))
            .map_err(|e| McpError::invalid_params(format!("bad arguments: {e}"), None)),
    }
}

/// An `elicitation/create` form asking for one string `answer`.
fn elicitation(question: &str) -> Result<InputRequest, McpError> {
    serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": question,
            "requestedSchema": {
                "type": "object",
                "properties": {"answer": {"type": "string", "description": "Your answer"}},
                "required": ["answer"],
            },
        },
    }))
    .map_err(internal)
}

/// `action` and `content.answer` of an elicitation result.
fn answer_of(result: &Value) -> String {
    let action = result.get("action").and_then(Value::as_str).unwrap_or("?");
    let answer = result
        .get("content")
        .and_then(|c| c.get("answer"))
        .and_then(Value::as_str)
        .unwrap_or("");
    format!("action={action} answer={answer}")
}

/// `ask_input` without a task on 2026-07-28: an MRTR `input_required` result
/// asking `q1`, then the answer once the retry carries `inputResponses.q1`.
fn inline_mrtr(request: &CallToolRequestParams) -> Result<CallToolResponse, McpError> {
    let args: AskInputArgs = parse(request)?;
    if let Some(response) = request.input_responses.as_ref().and_then(|r| r.get("q1")) {
        return Ok(CallToolResponse::Complete(text(format!(
            "ask_input: q1: {}",
            answer_of(response)
        ))));
    }
    let question = args.question.unwrap_or_else(|| "What is your name?".into());
    let mut requests = InputRequests::new();
    requests.insert("q1".into(), elicitation(&question)?);
    Ok(CallToolResponse::InputRequired(
        InputRequiredResult::from_input_requests(requests),
    ))
}

/// Sleeps `ms`, or returns `Cancelled` as soon as `tasks/cancel` arrives.
async fn sleep_or_cancel(ctx: &TaskContext, ms: u64) -> Result<(), TaskExit> {
    tokio::select! {
        () = ctx.cancelled() => Err(TaskExit::Cancelled),
        () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
    }
}

/// Builds a task body from a `TaskContext`.
type TaskBody = Box<dyn FnOnce(TaskContext) -> TaskFuture + Send>;

/// The task body for each tool, with its arguments checked before any task exists.
fn task_body(name: &str, request: &CallToolRequestParams) -> Result<TaskBody, McpError> {
    Ok(match name {
        "long_job" => {
            let args: LongJobArgs = parse(request)?;
            Box::new(move |ctx: TaskContext| {
                Box::pin(async move {
                    let steps = args.steps.unwrap_or(3);
                    for step in 1..=steps {
                        sleep_or_cancel(&ctx, args.step_ms.unwrap_or(500)).await?;
                        ctx.set_status_message(format!("step {step}/{steps}"));
                    }
                    Ok(text(format!("long_job done after {steps} steps")))
                })
            })
        }
        "fail_job" => {
            let args: FailJobArgs = parse(request)?;
            Box::new(move |ctx: TaskContext| {
                Box::pin(async move {
                    sleep_or_cancel(&ctx, args.ms.unwrap_or(200)).await?;
                    if args.is_error.unwrap_or(false) {
                        return Ok(CallToolResult::error(vec![ContentBlock::text(
                            "fail_job failed on purpose",
                        )]));
                    }
                    Err(TaskExit::Error(internal("fail_job failed on purpose")))
                })
            })
        }
        "ask_input" => {
            let args: AskInputArgs = parse(request)?;
            let question = args.question.unwrap_or_else(|| "What is your name?".into());
            let confirmed = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get("confirm"))
                .map(answer_of);
            Box::new(move |ctx: TaskContext| {
                Box::pin(async move {
                    let mut answers = Vec::new();
                    if let Some(c) = confirmed {
                        answers.push(format!("confirm: {c}"));
                    }
                    for round in 1..=args.rounds.unwrap_or(1).max(1) {
                        ctx.set_status_message(format!("waiting for answer {round}"));
                        let request = elicitation(&format!("{question} ({round})"))?;
                        let response = ctx.request_input(format!("q{round}"), request).await?;
                        answers.push(format!("q{round}: {}", answer_of(&response)));
                    }
                    Ok(text(format!("ask_input: {}", answers.join("; "))))
                })
            })
        }
        "needs_task" | "maybe_task" => {
            let args: TextArgs = parse(request)?;
            let name = name.to_string();
            Box::new(move |ctx: TaskContext| {
                Box::pin(async move {
                    sleep_or_cancel(&ctx, 300).await?;
                    Ok(text(format!("{name}: {}", args.text.unwrap_or_default())))
                })
            })
        }
        "slow_job" => {
            let args: SlowJobArgs = parse(request)?;
            Box::new(move |ctx: TaskContext| {
                Box::pin(async move {
                    let ms = args.ms.unwrap_or(2000);
                    sleep_or_cancel(&ctx, ms).await?;
                    Ok(text(format!("slow_job slept {ms} ms")))
                })
            })
        }
        other => {
            return Err(McpError::invalid_params(
                format!("unknown tool {other}"),
                None,
            ))
        }
    })
}

/// Tools that become tasks when the client declared the extension.
const TASK_TOOLS: [&str; 6] = [
    "long_job",
    "fail_job",
    "ask_input",
    "needs_task",
    "maybe_task",
    "slow_job",
];

/// Inline versions (no tasks extension declared); `#[tool_router]` also gives
/// the tool list and input schemas.
#[tool_router]
impl TaskServer {
    pub fn new(mode: Mode) -> Self {
        Self {
            tool_router: Self::tool_router(),
            tasks: TaskManager::new(),
            mode,
        }
    }

    #[tool(
        description = "Runs `steps` steps of `stepMs` ms, reporting each step, then returns text"
    )]
    async fn long_job(
        &self,
        Parameters(args): Parameters<LongJobArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let steps = args.steps.unwrap_or(3);
        let token = ctx.meta.get_progress_token();
        for step in 1..=steps {
            tokio::time::sleep(Duration::from_millis(args.step_ms.unwrap_or(500))).await;
            if let Some(token) = &token {
                let p: ProgressNotificationParam = serde_json::from_value(json!({
                    "progressToken": token, "progress": step, "total": steps,
                    "message": format!("step {step}/{steps}"),
                }))
                .map_err(internal)?;
                let _ = ctx.peer.notify_progress(p).await;
            }
        }
        Ok(text(format!("long_job done after {steps} steps")))
    }

    #[tool(
        description = "Fails after `ms` ms (JSON-RPC error, or an isError result with isError=true)"
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
        Err(internal("fail_job failed on purpose"))
    }

    #[tool(
        description = "Asks the user a question and returns the answer (a task uses input_required + tasks/update)"
    )]
    async fn ask_input(
        &self,
        Parameters(args): Parameters<AskInputArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        // Inline in a legacy session: a plain server->client elicitation request.
        let question = args.question.unwrap_or_else(|| "What is your name?".into());
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": question,
            "requestedSchema": {
                "type": "object",
                "properties": {"answer": {"type": "string", "description": "Your answer"}},
                "required": ["answer"],
            },
        }))
        .map_err(internal)?;
        let result = ctx
            .peer
            .create_elicitation(params)
            .await
            .map_err(|e| internal(format!("elicitation failed: {e}")))?;
        let result = serde_json::to_value(&result).map_err(internal)?;
        Ok(text(format!("ask_input: q1: {}", answer_of(&result))))
    }

    #[tool(description = "Answers at once; never runs as a task")]
    async fn quick(&self, Parameters(args): Parameters<TextArgs>) -> CallToolResult {
        text(format!("quick: {}", args.text.unwrap_or_default()))
    }

    #[tool(description = "Runs only as a task (needs the tasks extension); returns after 300 ms")]
    async fn needs_task(&self) -> Result<CallToolResult, McpError> {
        // Reached only without the extension: call_tool answers -32021 first.
        Err(McpError::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        ))
    }

    #[tool(
        description = "A task when the client declares the tasks extension, else inline; 300 ms"
    )]
    async fn maybe_task(&self, Parameters(args): Parameters<TextArgs>) -> CallToolResult {
        tokio::time::sleep(Duration::from_millis(300)).await;
        text(format!("maybe_task: {}", args.text.unwrap_or_default()))
    }

    #[tool(description = "Sleeps `ms` ms (default 2000), then returns text")]
    async fn slow_job(&self, Parameters(args): Parameters<SlowJobArgs>) -> CallToolResult {
        let ms = args.ms.unwrap_or(2000);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        text(format!("slow_job slept {ms} ms"))
    }
}

impl TaskServer {
    fn task_options(&self) -> TaskOptions {
        let mut options = TaskOptions::new();
        if let Some(ms) = self.mode.poll_ms {
            options = options.with_poll_interval_ms(ms);
        }
        if let Some(ms) = self.mode.ttl_ms {
            options = options.with_ttl_ms(ms);
        }
        options
    }

    /// MRTR round before the task: ask `confirm` unless it was answered.
    fn mrtr_first(
        &self,
        request: &CallToolRequestParams,
    ) -> Result<Option<CallToolResponse>, McpError> {
        let args: AskInputArgs = parse(request)?;
        let answered = request
            .input_responses
            .as_ref()
            .is_some_and(|r| r.contains_key("confirm"));
        if !args.mrtr_first.unwrap_or(false) || answered {
            return Ok(None);
        }
        let mut requests = InputRequests::new();
        requests.insert("confirm".into(), elicitation("Start the ask_input task?")?);
        Ok(Some(CallToolResponse::InputRequired(
            InputRequiredResult::from_input_requests(requests),
        )))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let wants_tasks = !self.mode.no_tasks
            && context
                .client_capabilities()
                .is_some_and(|caps| caps.supports_tasks());
        let name = request.name.to_string();
        let modern = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if name == "ask_input" && modern && !wants_tasks {
            // Modern has no server->client requests: MRTR rounds instead.
            return inline_mrtr(&request);
        }
        if wants_tasks && TASK_TOOLS.contains(&name.as_str()) {
            if name == "ask_input" && modern {
                if let Some(round) = self.mrtr_first(&request)? {
                    return Ok(round);
                }
            }
            let body = task_body(&name, &request)?;
            let task = self.tasks.spawn(self.task_options(), body);
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let tcc = ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }

    /// Accept `subscriptions/listen` (acknowledged; the SDK's filter has no task ids,
    /// so no `notifications/tasks` ever follow).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.mode.modern_only {
            Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.mode.no_tasks {
            ServerCapabilities::builder().enable_tools().build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("rmcp3-server", "3.11.0"))
    }
}
