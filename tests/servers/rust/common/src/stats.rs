//! Counts the JSON-RPC requests and notifications posted to `/mcp`, read from the
//! body before it is forwarded. `GET /stats` returns
//! `{byMethod:{m:n}, tasksGetByTask:{taskId:n}, requests:[{t, method, taskId}]}`;
//! `POST /stats/reset` clears it.

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
    time::{SystemTime, UNIX_EPOCH},
};

use axum::{
    body::{to_bytes, Body},
    extract::{Request, State},
    http::{Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use serde::Serialize;
use serde_json::Value;

/// Largest body the middleware buffers; larger ones are refused with 413.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// One counted message.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// Milliseconds since the Unix epoch when the message arrived.
    t: u64,
    method: String,
    task_id: Option<String>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    by_method: BTreeMap<String, u64>,
    tasks_get_by_task: BTreeMap<String, u64>,
    requests: Vec<Entry>,
}

/// Shared, resettable counters.
#[derive(Debug, Clone, Default)]
pub struct Stats(Arc<Mutex<Counts>>);

impl Stats {
    fn record(&self, message: &Value) {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return; // a response from the client, not counted
        };
        let task_id = message
            .get("params")
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *counts.by_method.entry(method.to_string()).or_default() += 1;
        if method == "tasks/get" {
            if let Some(id) = &task_id {
                *counts.tasks_get_by_task.entry(id.clone()).or_default() += 1;
            }
        }
        counts.requests.push(Entry {
            t,
            method: method.to_string(),
            task_id,
        });
    }

    fn snapshot(&self) -> Value {
        let counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        serde_json::to_value(&*counts).unwrap_or(Value::Null)
    }

    fn reset(&self) {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *counts = Counts::default();
    }
}

/// `GET /stats` and `POST /stats/reset`.
pub fn stats_routes(stats: Stats) -> Router {
    Router::new()
        .route(
            "/stats",
            get(|State(s): State<Stats>| async move { Json(s.snapshot()) }),
        )
        .route(
            "/stats/reset",
            post(|State(s): State<Stats>| async move {
                s.reset();
                Json(serde_json::json!({"ok": true}))
            }),
        )
        .with_state(stats)
}

/// Middleware: buffers a POST body to `/mcp`, counts the messages in it, and
/// forwards the request unchanged.
pub async fn count(State(stats): State<Stats>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !request.uri().path().starts_with("/mcp") {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => return (StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response(),
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Array(batch)) => batch.iter().for_each(|m| stats.record(m)),
        Ok(message) => stats.record(&message),
        Err(_) => {} // let the MCP service answer malformed bodies itself
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}
