//! MCP task test server on pmcp 2.23.0, public API only: `Server::builder()` with an `InMemoryTaskStore` and
//! `TypedTool`s whose `execution.taskSupport` is set; the SDK answers `tasks/*` in both eras (2025-11-25 `params.task`,
//! 2026-07-28 with the `io.modelcontextprotocol/tasks` extension). A task's work runs in a worker spawned from
//! `on_task_created` and reports through the store (status message, input requests, result or error).
//!
//! `pmcp-server [--port N] [--ws]` binds 127.0.0.1, prints `READY http://127.0.0.1:PORT/` (the SDK serves MCP at the
//! root path), exits on SIGTERM/SIGINT. `--ws`: the SDK's multi-client WebSocket server instead, `READY ws://…/`; it
//! serves many connections, each with a server of its own over the shared task store, and selects no subprotocol.
//! CORS: the SDK's default (`AllowedOrigins::localhost()`).

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use pmcp::server::streamable_http_server::StreamableHttpServer;
use pmcp::server::task_store::{CreatedTask, InMemoryTaskStore, TaskStore};
use pmcp::server::transport::{ClientId, EnhancedWebSocketConfig, EnhancedWebSocketServer};
use pmcp::server::typed_tool::TypedTool;
use pmcp::server::{ToolHandler, ToolOutput};
use pmcp::shared::TransportMessage;
use pmcp::types::elicitation::ElicitRequestParams;
use pmcp::types::protocol::{
    ProtocolVersion, LATEST_PROTOCOL_VERSION, PROTOCOL_VERSION_2026_07_28,
};
use pmcp::types::tasks::TaskStatus;
use pmcp::types::{
    CallToolResult, Content, InputRequest, InputRequests, TaskSupport, ToolExecution,
};
use pmcp::{RequestHandlerExtra, Server, Transport};
use serde_json::{json, Value};
use tokio::sync::mpsc;

type Store = Arc<dyn TaskStore>;
type Reply = Pin<Box<dyn Future<Output = pmcp::Result<Value>> + Send>>;

/// One task's handle on the store: its id and owner.
#[derive(Clone)]
struct TaskRef {
    store: Store,
    id: String,
    owner: String,
}

impl TaskRef {
    fn new(store: Store, created: CreatedTask) -> Self {
        Self {
            store,
            id: created.task.task_id,
            owner: created.owner_id,
        }
    }

    async fn status(&self) -> Option<TaskStatus> {
        self.store
            .get(&self.id, &self.owner)
            .await
            .ok()
            .map(|t| t.status)
    }

    /// Sleeps `ms` in 50 ms slices; false once the task was cancelled (or vanished).
    async fn work(&self, ms: u64) -> bool {
        let mut left = ms;
        while left > 0 {
            let slice = left.min(50);
            tokio::time::sleep(Duration::from_millis(slice)).await;
            left -= slice;
            if self.status().await != Some(TaskStatus::Working) {
                return false;
            }
        }
        true
    }

    async fn message(&self, text: String) {
        let _ = self
            .store
            .set_status_message(&self.id, &self.owner, Some(text))
            .await;
    }

    async fn complete(&self, result: CallToolResult) {
        if self
            .store
            .set_result(&self.id, &self.owner, result)
            .await
            .is_ok()
        {
            let _ = self
                .store
                .update_status(&self.id, &self.owner, TaskStatus::Completed, None)
                .await;
        }
    }

    async fn fail(&self, message: &str) {
        let error = json!({ "code": -32603, "message": message });
        if self
            .store
            .set_error(&self.id, &self.owner, error)
            .await
            .is_ok()
        {
            let _ = self
                .store
                .update_status(
                    &self.id,
                    &self.owner,
                    TaskStatus::Failed,
                    Some(message.to_string()),
                )
                .await;
        }
    }

    /// Asks for `{answer: string}` and waits for the answer delivered by `tasks/update` (None if cancelled).
    async fn ask(&self, message: &str) -> Option<Value> {
        let mut requests = InputRequests::new();
        let schema = json!({ "type": "object", "properties": { "answer": { "type": "string" } }, "required": ["answer"] });
        requests.insert(
            "answer".to_string(),
            InputRequest::Elicitation(Box::new(ElicitRequestParams::Form {
                message: message.to_string(),
                requested_schema: schema,
            })),
        );
        self.store
            .record_input_requests(&self.id, &self.owner, requests)
            .await
            .ok()?;
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            match self.status().await? {
                TaskStatus::InputRequired => continue,
                TaskStatus::Working => break,
                _ => return None,
            }
        }
        let snapshot = self
            .store
            .task_input_snapshot(&self.id, &self.owner)
            .await
            .ok()?;
        serde_json::to_value(snapshot.input_responses.get("answer")?).ok()
    }
}

/// A tool whose plain string answers become one text content as they are (a `TypedTool`'s answer would be
/// JSON-encoded into the text: `"\"quick: hi\""`); anything else (the task-shaped create value) passes unchanged.
struct PlainText<T>(T);

#[async_trait::async_trait]
impl<T: ToolHandler> ToolHandler for PlainText<T> {
    async fn handle(&self, args: Value, extra: RequestHandlerExtra) -> pmcp::Result<Value> {
        self.0.handle(args, extra).await
    }

    fn metadata(&self) -> Option<pmcp::types::ToolInfo> {
        self.0.metadata()
    }

    async fn handle_output(
        &self,
        args: Value,
        extra: RequestHandlerExtra,
    ) -> pmcp::Result<ToolOutput> {
        Ok(match self.0.handle(args, extra).await? {
            Value::String(s) => ToolOutput::Result(text(s)),
            other => ToolOutput::Payload(other),
        })
    }
}

fn text(s: String) -> CallToolResult {
    CallToolResult::new(vec![Content::text(s)])
}

fn arg(args: &Value, name: &str, default: u64) -> u64 {
    args.get(name).and_then(Value::as_u64).unwrap_or(default)
}

fn arg_str(args: &Value, name: &str, default: &str) -> String {
    args.get(name)
        .and_then(Value::as_str)
        .unwrap_or(default)
        .to_string()
}

/// The work of each task tool, run by the worker; `None` when the task was cancelled meanwhile.
async fn run(tool: &'static str, args: Value, task: TaskRef) {
    match tool {
        "long_job" => {
            let (steps, step_ms) = (arg(&args, "steps", 3), arg(&args, "stepMs", 200));
            for i in 1..=steps {
                task.message(format!("step {i}/{steps}")).await;
                if !task.work(step_ms).await {
                    return;
                }
            }
            task.complete(text(format!("long_job done: {steps} steps")))
                .await;
        }
        "fail_job" => {
            if !task.work(arg(&args, "ms", 100)).await {
                return;
            }
            if arg_str(&args, "how", "failed") == "iserror" {
                task.complete(CallToolResult::error(vec![Content::text(
                    "fail_job: tool error",
                )]))
                .await;
            } else {
                task.fail("fail_job: failed on purpose").await;
            }
        }
        "ask_input" => {
            let Some(reply) = task
                .ask(&arg_str(&args, "message", "What is your answer?"))
                .await
            else {
                return;
            };
            let action = reply
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string();
            let answer = reply
                .pointer("/content/answer")
                .and_then(Value::as_str)
                .map(str::to_string);
            task.complete(text(match (action.as_str(), answer) {
                ("accept", Some(a)) => format!("ask_input got answer: {a}"),
                _ => format!("ask_input got action: {action}"),
            }))
            .await;
        }
        "slow_job" => {
            let ms = arg(&args, "ms", 5000);
            if task.work(ms).await {
                task.complete(text(format!("slow_job done after {ms} ms")))
                    .await;
            }
        }
        _ => {
            let ms = arg(&args, "ms", 100);
            if task.work(ms).await {
                task.complete(text(format!("{tool} done"))).await;
            }
        }
    }
}

/// A task tool: with a task coming, hands `run` to a worker; without one, answers what it can inline.
fn task_tool(
    tool: &'static str,
    support: TaskSupport,
    schema: Value,
    store: Store,
) -> impl ToolHandler {
    let typed = TypedTool::new_with_schema(
        tool,
        schema,
        move |args: Value, extra: RequestHandlerExtra| -> Reply {
            if extra.will_create_task() {
                let store = Arc::clone(&store);
                extra.on_task_created(move |created| {
                    tokio::spawn(run(tool, args, TaskRef::new(store, created)));
                });
                return Box::pin(async {
                    Ok(json!({ "taskId": "minted-by-the-store", "status": "working" }))
                });
            }
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(arg(&args, "ms", 100))).await;
                Ok(Value::String(format!("{tool} done")))
            })
        },
    )
    .with_execution(ToolExecution::new().with_task_support(support));
    PlainText(typed)
}

fn schema(props: Value) -> Value {
    json!({ "type": "object", "properties": props })
}

/// The test server: the task tools share `store`, so every WebSocket client's server sees the same tasks.
fn build_server(store: Store) -> pmcp::Result<Server> {
    let ms = json!({ "ms": { "type": "integer" } });
    let required = TaskSupport::Required;
    let quick = PlainText(TypedTool::new_with_schema(
        "quick",
        schema(json!({ "text": { "type": "string" } })),
        |args: Value, _| -> Reply {
            Box::pin(async move {
                Ok(Value::String(format!(
                    "quick: {}",
                    arg_str(&args, "text", "hi")
                )))
            })
        },
    ));
    Server::builder()
        .name("mcp-task-client-test-pmcp")
        .version("0.0.0")
        .with_supported_protocol_versions([
            ProtocolVersion(LATEST_PROTOCOL_VERSION.to_string()),
            ProtocolVersion(PROTOCOL_VERSION_2026_07_28.to_string()),
        ])
        .tool(
            "long_job",
            task_tool(
                "long_job",
                required,
                schema(json!({ "steps": { "type": "integer" }, "stepMs": { "type": "integer" } })),
                store.clone(),
            ),
        )
        .tool(
            "fail_job",
            task_tool(
                "fail_job",
                required,
                schema(json!({ "ms": { "type": "integer" }, "how": { "type": "string" } })),
                store.clone(),
            ),
        )
        .tool(
            "ask_input",
            task_tool(
                "ask_input",
                required,
                schema(json!({ "message": { "type": "string" } })),
                store.clone(),
            ),
        )
        .tool(
            "needs_task",
            task_tool("needs_task", required, schema(ms.clone()), store.clone()),
        )
        .tool(
            "maybe_task",
            task_tool(
                "maybe_task",
                TaskSupport::Optional,
                schema(ms.clone()),
                store.clone(),
            ),
        )
        .tool(
            "slow_job",
            task_tool("slow_job", required, schema(ms), store.clone()),
        )
        .tool("quick", quick)
        .task_store(store)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut port = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0u16);
    let argv: Vec<String> = std::env::args().collect();
    if let Some(i) = argv.iter().position(|a| a == "--port") {
        port = argv.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(0);
    }

    let store: Store = Arc::new(InMemoryTaskStore::new());
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    if argv.iter().any(|a| a == "--ws") {
        tokio::select! {
            served = serve_websocket(store, port) => served?,
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        return Ok(());
    }
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let (bound, handle) =
        StreamableHttpServer::new_concurrent(addr, Arc::new(build_server(store)?))
            .start()
            .await?;
    println!("READY http://{bound}/");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
        _ = handle => {}
    }
    Ok(())
}

/// Serves any number of WebSocket clients, one after another and at once, on the SDK's multi-client
/// `EnhancedWebSocketServer`. It queues every client's messages into one stream and drives no `Server` itself, so
/// each client gets its own `Server` (the tools share `store`) over a [`ClientTransport`]. The SDK cannot report
/// its bound port, so port 0 is resolved first.
async fn serve_websocket(store: Store, port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let port = if port == 0 {
        std::net::TcpListener::bind(("127.0.0.1", 0))?
            .local_addr()?
            .port()
    } else {
        port
    };
    let mut sockets = EnhancedWebSocketServer::new(EnhancedWebSocketConfig {
        bind_addr: ([127, 0, 0, 1], port).into(),
        // The SDK ends any connection older than this, busy or not; a test connection must outlive its test.
        connection_timeout: Duration::from_secs(24 * 60 * 60),
        ..EnhancedWebSocketConfig::default()
    });
    sockets.start().await?;
    println!("READY ws://127.0.0.1:{port}/");
    let sockets = Arc::new(sockets);
    let mut inboxes: HashMap<ClientId, mpsc::UnboundedSender<TransportMessage>> = HashMap::new();
    loop {
        let (client, message) = sockets.receive_from_any().await?;
        if !inboxes.contains_key(&client) {
            let live = sockets.get_connected_clients().await;
            inboxes.retain(|id, _| live.contains(id));
            let (inbox, messages) = mpsc::unbounded_channel();
            let transport = ClientTransport {
                sockets: sockets.clone(),
                client,
                messages,
            };
            let server = build_server(store.clone())?;
            tokio::spawn(server.run(transport));
            inboxes.insert(client, inbox);
        }
        if let Some(inbox) = inboxes.get(&client) {
            // A client whose server has stopped gets no answer, as on a closed connection.
            let _ = inbox.send(message);
        }
    }
}

/// One client of the shared WebSocket server, as the `Transport` its own `Server` runs on.
#[derive(Debug)]
struct ClientTransport {
    sockets: Arc<EnhancedWebSocketServer>,
    client: ClientId,
    messages: mpsc::UnboundedReceiver<TransportMessage>,
}

#[async_trait::async_trait]
impl Transport for ClientTransport {
    async fn send(&mut self, message: TransportMessage) -> pmcp::Result<()> {
        self.sockets.send_to_client(self.client, message).await
    }

    async fn receive(&mut self) -> pmcp::Result<TransportMessage> {
        self.messages
            .recv()
            .await
            .ok_or_else(|| pmcp::Error::internal("WebSocket client disconnected"))
    }

    async fn close(&mut self) -> pmcp::Result<()> {
        self.messages.close();
        Ok(())
    }

    fn transport_type(&self) -> &'static str {
        "websocket"
    }
}
