//! The JS-facing data shapes. Each is a plain serde type handed to JS as JSON (`convert::to_js`:
//! plain objects, `null` for `None`); `tsify` generates its TypeScript declaration from the same
//! type, so the `.d.ts` describes exactly what is serialized. The task model and the error kinds
//! are the engine's own types (declared where they are defined). Shapes that hold functions
//! or host objects (options, `AbortSignal`) are declared by hand in [`MANUAL_TS`].

use crate::json::Value;
use serde::Serialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

use crate::engine::api::{self, End};
use crate::engine::verdict::{self, Ending};
use crate::json::{push_quoted, Object, ToJson};
use crate::protocol::auth::AuthChallenge;
use crate::protocol::model;

/// Hand-written declarations: JSON values, options with functions, tool listings, the error class.
#[wasm_bindgen(typescript_custom_section)]
const MANUAL_TS: &'static str = r#"
/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Extra request headers: a record, a `Headers`/`Map`, or pairs. */
export type HeaderCollection = Record<string, string> | Iterable<readonly [string, string]>;
/** Called before every HTTP request; may be async (e.g. to refresh a token). */
export type HeaderProvider = () => HeaderCollection | undefined | Promise<HeaderCollection | undefined>;

/** A `WebSocket`-compatible constructor (the global one, or `WebSocket` from the `ws` package). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => object;

/** What the package keeps of an authorization: tokens, expiry, client and token endpoint. */
export type AuthGrant = JsonObject;

/** Where grants live (default: memory, gone with the client). Share one store between tabs and
 *  they follow each other's refreshes. The package persists nothing on its own. */
export interface AuthStore {
  load(): AuthGrant | undefined | Promise<AuthGrant | undefined>;
  save(grant: AuthGrant): void | Promise<void>;
}

export interface AuthOptions {
  /** Default `"authorization_code"` (a user authorizes in a page). `"client_credentials"`: a
   *  machine client (Node) authenticating with `clientId` and `clientSecret` or `privateKey` at
   *  the token endpoint, no page, no `redirectUri` or `openAuthorization`. */
  grant?: "authorization_code" | "client_credentials";
  /** Where the authorization server sends the user back; must match exactly. */
  redirectUri?: string;
  /** Sends the user to `url` (popup, system browser…) and resolves with the URL they came back
   *  on (the redirect URI with `code` and `state`). Required for `"authorization_code"`. */
  openAuthorization?(url: string): Promise<string | URL>;
  /** A pre-registered client id (used first). */
  clientId?: string;
  /** Its secret: only for hosts that can keep one (Node, Electron's main process). */
  clientSecret?: string;
  /** `"client_credentials"` only: authenticate with a JWT signed by this ES256 key instead of a
   *  secret (`private_key_jwt`, RFC 7523): a Web Crypto `CryptoKey` (ECDSA P-256, usage `sign`,
   *  best non-extractable) or a private P-256 JWK. */
  privateKey?: CryptoKey | JsonWebKey;
  /** The key's id (`kid`) when the authorization server knows several of the client's keys. */
  keyId?: string;
  /** Sender-constrained tokens (DPoP, RFC 9449): token and MCP requests carry a proof signed by a
   *  non-extractable ES256 key this client makes (in IndexedDB with a `store`, else in memory); a `DPoP` token is
   *  sent as `Authorization: DPoP`. Server nonces are honoured with one resend. */
  dpop?: boolean;
  /** The HTTPS URL of this client's metadata document, used as its id where supported. */
  clientMetadataUrl?: string;
  /** Sent with dynamic registration (default: `clientName`). */
  clientName?: string;
  /** Scopes to ask for when the server names none. */
  scope?: string;
  store?: AuthStore;
}

export interface ConnectOptions {
  /** Default: `"websocket"` for ws:/wss: URLs, else `"http"`. */
  transport?: "http" | "websocket";
  /**
   * Default `"auto"`: the era in which the server offers tasks (`server/discover` with the tasks
   * extension, else `initialize`), remembered per URL for the next connect; a server that declares
   * `tasks` the SEP-1686 draft way (boolean members, `delete`) is spoken to as `"draft"`. Choose
   * `"draft"` for a draft server that declares nothing (`auto` then warns once). A forced dialect
   * the server does not speak rejects `connect` with kind `"unsupported"`. The core build
   * (`mcp-task-client/core`) has no draft dialect: `"draft"` rejects `connect` with kind
   * `"invalidInput"`, and `auto` never picks it.
   */
  dialect?: "auto" | "modern" | "legacy" | "draft";
  /** Auth (or other) headers, sent on every HTTP request. */
  headers?: HeaderCollection | HeaderProvider;
  /** OAuth 2.1 for servers that answer 401 (MCP authorization): discovery, registration, PKCE,
   *  refresh and step-up are done for you; HTTP only. Helpers: `mcp-task-client/auth`. */
  auth?: AuthOptions;
  /** Answers the server's elicitation/sampling/roots requests: narrow on `request.method`, return
   *  that method's result (a throw or rejection is sent to the server as an error). */
  onInput?: InputHandler;
  /** Gives up connecting when it aborts: `connect` rejects with kind `aborted` (the reason in
   *  `cause`) and whatever was opened is closed. */
  signal?: AbortSignal;
  /** Client capabilities to declare (default: elicitation + sampling with `onInput`, none without).
   *  On a 2025-11-25 server the full build also declares `tasks` for those it declares (it runs a
   *  task-augmented elicitation/sampling request as a task); the core build declares no `tasks`
   *  (not even one given here) and answers such a request as a plain one. */
  capabilities?: JsonObject;
  /** Recoverable problems (a failed poll, garbage from the server); tracking goes on. */
  onWarning?: (warning: ClientWarning) => void;
  /** Override the global `WebSocket` (Node 20 without `--experimental-websocket`). */
  WebSocket?: WebSocketConstructor;
  clientName?: string;
  clientVersion?: string;
  /** Per-request timeout in ms (default 60 000). */
  requestTimeoutMs?: number;
  /** Largest accepted server message in bytes (default 16 MiB). */
  maxMessageBytes?: number;
  /** How long a finished task's result stays retrievable after its last subscriber leaves (ms). */
  resultGcMs?: number;
  /**
   * What carries the requests, which bounds how many blocking `tasks/result` stay open while legacy tasks run
   * (each delivers its task's outcome the moment it ends; polls then only back it up). Default `"learn"`: detected —
   * `"websocket"` for the WebSocket transport, `"node"` in Node or Electron's main process (no per-origin
   * connection limit), `"http2"` in a browser that already reached the server's origin over HTTP/2 or HTTP/3
   * (`nextHopProtocol`; another origin shows it only if it sends `Timing-Allow-Origin`), `"http1"` where it saw
   * HTTP/1.x (6 connections per origin: results are held only for input). Where the browser tells nothing: what was
   * learnt for the URL earlier in the tab (`sessionStorage`, reloads included), else HTTP/1.1 (tasks polled) until the
   * requests prove otherwise: once more tasks run than the browser has connections, the oldest tasks hold their
   * results for a moment; a status request answered behind them proves HTTP/2 (every running task then holds its
   * result), one stuck behind them HTTP/1.1 (no result is closed: those held answer when their tasks end, and no new
   * one is held). `"http1"` opts out of learning.
   */
  link?: "http1" | "http2" | "node" | "websocket" | "learn";
  /**
   * How often a task that nothing pushes about is polled while the page is visible. `"latency"` (default): at the
   * server's interval after each answer for the task's whole life, from the moment it was created (as the official
   * clients poll). `"requests"`: the interval while the task is young, then a tenth of its age (at most 20 s):
   * fewer requests for long tasks, a later callback. A hidden page backs off either way.
   */
  cadence?: "latency" | "requests";
  /**
   * Subscribe to status pushes where the dialect needs it (modern `subscriptions/listen`, one request per
   * batch of new tasks; default true). `false`: polling alone, for a server known not to push.
   */
  subscribe?: boolean;
  /**
   * Delete every task on the server once its result was delivered, where the dialect can
   * (draft `tasks/delete`); on other dialects it does nothing (unlike the call option).
   */
  deleteOnDone?: boolean;
}

export interface CallOptions {
  /** Requested task lifetime in ms from creation (legacy and modern; the draft has none). */
  ttlMs?: number;
  /** Draft: how long the server should keep the task and its result after it ended, in ms. */
  keepAliveMs?: number;
  /**
   * Delete the task on the server once its result was delivered (draft `tasks/delete`).
   * Other dialects have no delete: the call is rejected (`invalidInput`) before it is sent.
   */
  deleteOnDone?: boolean;
  /** Stop waiting (locally; nothing is sent). An already-aborted signal sends nothing at all. */
  signal?: AbortSignal;
  /**
   * `"auto"` (default) follows the tool's `execution.taskSupport`. `"always"` on a request that
   * cannot be a task (`ping`, listings, `tasks/*`, …) is rejected (`invalidInput`) before it is sent.
   */
  task?: "auto" | "always" | "never";
}

export interface WatchOptions {
  signal?: AbortSignal;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The server's `tools/list` result. */
export interface ToolList {
  tools: Tool[];
  nextCursor?: string;
  [key: string]: unknown;
}

"#;

pub use crate::engine::api::ErrorKind;
pub use crate::protocol::model::{Dialect, Outcome, Task, TaskStatus};

/// What `onInput` receives: the request plus the task it belongs to (declared in `typescript.rs`
/// as a union keyed by `method`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequestEvent {
    pub key: String,
    pub method: String,
    pub params: Value,
    pub task_id: Option<String>,
}

/// The fields of an [`McpTaskError`](ErrorKind), as plain data.
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct ErrorInfo {
    pub kind: ErrorKind,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(type = "JsonValue")]
    pub data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The HTTP status of the response that failed (`code` is only ever a JSON-RPC code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// What an HTTP 401/403 said about authorization (kind `unauthorized`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthInfo>,
}

/// The `WWW-Authenticate` challenge of an HTTP 401/403, raw and parsed (its `Bearer` parameters),
/// for a host running its own OAuth (RFC 9728 `resource_metadata`, RFC 6750 `scope`, `error`).
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct AuthInfo {
    /// The raw header (`null` when the server sent none, or a browser page cannot read it: the
    /// server must list it in `Access-Control-Expose-Headers`).
    pub www_authenticate: Option<String>,
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl From<AuthChallenge> for AuthInfo {
    fn from(a: AuthChallenge) -> Self {
        Self {
            www_authenticate: a.www_authenticate,
            resource_metadata: a.resource_metadata,
            scope: a.scope,
            error: a.error,
            error_description: a.error_description,
        }
    }
}

impl ErrorInfo {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            code: None,
            data: None,
            task_id: None,
            http_status: None,
            auth: None,
        }
    }

    pub fn with_task(mut self, task_id: Option<String>) -> Self {
        self.task_id = task_id;
        self
    }
}

impl From<verdict::Failure> for ErrorInfo {
    fn from(f: verdict::Failure) -> Self {
        let (how, message, data) = match f {
            verdict::Failure::Error(e) => return e.into(),
            verdict::Failure::Ended { how, message, data } => (how, message, data),
        };
        let kind = match how {
            Ending::Aborted => ErrorKind::Aborted,
            Ending::Cancelled => ErrorKind::Cancelled,
            Ending::Expired => ErrorKind::Expired,
            Ending::TaskFailed => ErrorKind::TaskFailed,
        };
        Self {
            data,
            ..Self::new(kind, message)
        }
    }
}

impl From<api::ClientError> for ErrorInfo {
    fn from(e: api::ClientError) -> Self {
        Self {
            kind: e.kind,
            message: e.message,
            code: e.code,
            data: e.data,
            task_id: None,
            http_status: e.http_status,
            auth: e.auth.map(|a| (*a).into()),
        }
    }
}

/// How a handle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum DoneKind {
    /// The task (or plain request) reached a terminal state.
    Finished,
    /// The caller stopped waiting; nothing was sent.
    Aborted,
    /// The request could not be made or tracked.
    Failed,
}

/// What `onDone` receives, exactly once per handle.
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct TaskDone {
    pub kind: DoneKind,
    pub task_id: Option<String>,
    /// The final status when there was a task (the last one seen, when the handle was stopped).
    pub status: Option<TaskStatus>,
    /// The final snapshot (the last one seen, when the handle was stopped).
    pub task: Option<Task>,
    pub outcome: Option<Outcome>,
    /// Why there is no result: set whenever the request did not succeed (the same error
    /// `result()` rejects with), `null` when it did.
    pub error: Option<ErrorInfo>,
}

impl TaskDone {
    /// The record of `end`; `last` is the handle's last snapshot.
    pub fn from_end(task_id: Option<String>, end: End, last: Option<model::Task>) -> Self {
        let failure = verdict::verdict(&end, last.as_ref()).err();
        let (kind, task, outcome) = match end {
            End::Finished { task, outcome } => {
                let task = task.or(last);
                let outcome = outcome.or_else(|| task.as_ref().and_then(|t| t.outcome.clone()));
                (DoneKind::Finished, task, outcome)
            }
            End::Aborted => (DoneKind::Aborted, last, None),
            End::Failed { .. } => (DoneKind::Failed, last, None),
        };
        let task_id = task_id.or_else(|| task.as_ref().map(|t| t.task_id.clone()));
        Self {
            kind,
            error: failure.map(|f| ErrorInfo::from(f).with_task(task_id.clone())),
            task_id,
            status: task.as_ref().map(|t| t.status),
            task,
            outcome,
        }
    }
}

/// A recoverable problem reported through `onWarning`.
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct ClientWarning {
    pub task_id: Option<String>,
    pub error: ErrorInfo,
}

/// A task state change (the client's event log), reported through `onTransition`.
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct TaskTransition {
    pub task_id: String,
    pub from: Option<TaskStatus>,
    pub to: TaskStatus,
    /// ms since the Unix epoch.
    pub at: u64,
}

/// What the session negotiated.
#[derive(Debug, Clone, Serialize, Tsify)]
#[tsify(missing_as_null)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub dialect: Dialect,
    pub protocol_version: String,
    #[tsify(type = "Implementation")]
    pub server_info: Value,
    #[tsify(type = "ServerCapabilities")]
    pub capabilities: Value,
}

impl ToJson for InputRequestEvent {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("key", &self.key))
            .with("method", &self.method)
            .with("params", &self.params)
            .with("taskId", &self.task_id)
            .end();
    }
}

impl ToJson for ErrorInfo {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("kind", &self.kind))
            .with("message", &self.message)
            .with_some("code", &self.code)
            .with_some("data", &self.data)
            .with_some("taskId", &self.task_id)
            .with_some("httpStatus", &self.http_status)
            .with_some("auth", &self.auth)
            .end();
    }
}

impl ToJson for AuthInfo {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("wwwAuthenticate", &self.www_authenticate))
            .with("resourceMetadata", &self.resource_metadata)
            .with("scope", &self.scope)
            .with("error", &self.error)
            .with("errorDescription", &self.error_description)
            .end();
    }
}

impl ToJson for DoneKind {
    fn push_json(&self, out: &mut String) {
        let kind = match self {
            Self::Finished => "finished",
            Self::Aborted => "aborted",
            Self::Failed => "failed",
        };
        push_quoted(out, kind);
    }
}

impl ToJson for TaskDone {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("kind", &self.kind))
            .with("taskId", &self.task_id)
            .with("status", &self.status)
            .with("task", &self.task)
            .with("outcome", &self.outcome)
            .with("error", &self.error)
            .end();
    }
}

impl ToJson for ClientWarning {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("taskId", &self.task_id))
            .with("error", &self.error)
            .end();
    }
}

impl ToJson for TaskTransition {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("taskId", &self.task_id))
            .with("from", &self.from)
            .with("to", &self.to)
            .with("at", &self.at)
            .end();
    }
}

impl ToJson for SessionInfo {
    fn push_json(&self, out: &mut String) {
        (Object::new(out).with("dialect", &self.dialect))
            .with("protocolVersion", &self.protocol_version)
            .with("serverInfo", &self.server_info)
            .with("capabilities", &self.capabilities)
            .end();
    }
}
