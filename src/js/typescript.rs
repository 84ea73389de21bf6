//! Hand-written TypeScript declarations, for what neither tsify nor wasm-bindgen can generate:
//! the MCP shapes the client passes through as opaque JSON (tool arguments, tool results, content
//! blocks, elicitation, sampling and roots), which have no Rust type to derive from.
//! `McpTaskClient`, `TaskHandle` and `TaskUpdates` are declared next to their JS
//! (`npm/client.d.ts`, `npm/handle.d.ts`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const ARGUMENTS_TS: &'static str = r#"
/** Tool arguments or request params: any object (interface types and `undefined` members are
 *  fine; `undefined` members are left out). Arrays and non-JSON values are refused at run time. */
export type Arguments = object;
"#;

#[wasm_bindgen(typescript_custom_section)]
const MCP_TS: &'static str = r#"
/** Optional annotations of a content block. */
export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}
export interface TextContent { type: "text"; text: string; annotations?: Annotations; _meta?: JsonObject }
export interface ImageContent { type: "image"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface AudioContent { type: "audio"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: JsonObject }
export interface EmbeddedResource {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
}
/** A block of a tool result's `content`, told apart by `type`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** What `tools/call` returns; `S` is the type of `structuredContent`. */
export interface CallToolResult<S = JsonObject> {
  content: ContentBlock[];
  structuredContent?: S;
  /** The tool failed; `content` says why. */
  isError?: boolean;
  _meta?: JsonObject;
}

/** `serverInfo` / `clientInfo`. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: JsonValue | undefined;
}

/** What the server declared it supports. */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: JsonObject;
  completions?: JsonObject;
  tasks?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
  [key: string]: JsonValue | undefined;
}

/** `elicitation/create`: the server asks the user for input (a form, or a URL to visit). */
export interface ElicitRequestParams {
  message: string;
  /** `"form"` (default) or `"url"`. */
  mode?: "form" | "url";
  /** The form's fields: a flat JSON Schema object. */
  requestedSchema?: JsonObject;
  url?: string;
  elicitationId?: string;
  /** Set when the server asks the client to run this request as a task (2025-11-25). */
  task?: { ttl?: number };
  _meta?: JsonObject;
}
/** The user's answer to an elicitation. */
export type ElicitResult =
  | { action: "accept"; content?: { [field: string]: string | number | boolean | string[] }; _meta?: JsonObject }
  | { action: "decline"; _meta?: JsonObject }
  | { action: "cancel"; _meta?: JsonObject };

/** Content of a sampling message. */
export type SamplingContent = TextContent | ImageContent | AudioContent;
export interface SamplingMessage {
  role: "user" | "assistant";
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
}
/** `sampling/createMessage`: the server asks the host's model for a completion. */
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: JsonObject;
  metadata?: JsonObject;
  /** Set when the server asks the client to run this request as a task (2025-11-25). */
  task?: { ttl?: number };
  _meta?: JsonObject;
}
/** The host model's completion. */
export interface CreateMessageResult {
  role: "user" | "assistant";
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: "endTurn" | "stopSequence" | "maxTokens" | (string & {});
  _meta?: JsonObject;
}

/** `roots/list`: the server asks which roots (directories, files) it may use. */
export interface ListRootsRequestParams {
  _meta?: JsonObject;
}
export interface Root { uri: string; name?: string; _meta?: JsonObject }
export interface ListRootsResult { roots: Root[]; _meta?: JsonObject }

/** The requests `onInput` answers, keyed by method, with the result each expects. */
export interface InputMethods {
  "elicitation/create": { params: ElicitRequestParams; result: ElicitResult };
  "sampling/createMessage": { params: CreateMessageRequestParams; result: CreateMessageResult };
  "roots/list": { params: ListRootsRequestParams; result: ListRootsResult };
}
export type InputMethod = keyof InputMethods;
/** What `onInput` receives: narrow on `method` to get the params' type. */
export type InputRequestEvent = {
  [M in InputMethod]: {
    method: M;
    params: InputMethods[M]["params"];
    /** Identifies the request (stable across tabs with `persist`). */
    key: string;
    /** The task the request belongs to, when there is one. For a request the client runs as a
     *  task for the server (`params.task` set), the client's own task id. */
    taskId: string | null;
  };
}[InputMethod];
/** What `onInput` returns for a request of method `M`. */
export type InputResult<M extends InputMethod = InputMethod> = InputMethods[M]["result"];
/** Answers the server's elicitation, sampling and roots requests. An answer that does not fit the
 *  request's method is not sent: the server gets an error and `onWarning` an `invalidInput`. */
export type InputHandler = (
  request: InputRequestEvent,
  extra: InputExtra,
) => InputResult | Promise<InputResult>;
/** What else `onInput` receives. */
export interface InputExtra {
  /** Aborts when the answer is no longer wanted: the server cancelled the task the client runs
   *  for the request, its ttl ran out, or the client closed (`reason`: an `McpTaskError`). */
  signal: AbortSignal;
}
/** @deprecated use RpcError */
export type RpcErrorObject = RpcError;
"#;
