import type { AuthInfo, ErrorKind, JsonValue } from "./mcp_task_client.js";

/** The error every rejected promise of this package carries: see the README's table of kinds. */
export declare class McpTaskError extends Error {
  readonly name: "McpTaskError";
  readonly kind: ErrorKind;
  /** The raw JSON-RPC / MCP error code, when there is one (never an HTTP status). */
  readonly code: number | undefined;
  /** The HTTP status of the response that failed, when there was one. */
  readonly httpStatus: number | undefined;
  /** Kind `unauthorized` (HTTP 401/403): the `WWW-Authenticate` challenge, raw and parsed. */
  readonly auth: AuthInfo | undefined;
  /** The error's data; for `taskFailed`, the failed task's result (a `CallToolResult`). */
  readonly data: JsonValue | undefined;
  /** The task the error concerns, when there is one. */
  readonly taskId: string | undefined;
  /** For `aborted`: the abort signal's reason. */
  readonly cause?: unknown;
}
