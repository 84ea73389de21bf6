import type { AuthInfo, ErrorKind, JsonValue } from "./mcp_task_client.js";

/** The error every rejected promise of this package carries. */
export declare class McpTaskError extends Error {
  readonly name: "McpTaskError";
  readonly kind: ErrorKind;
  /** The raw JSON-RPC / MCP error code, when there is one (never an HTTP status). */
  readonly code: number | undefined;
  /** The HTTP status of the response that failed, when there was one. */
  readonly httpStatus: number | undefined;
  /** Kind `unauthorized` (HTTP 401/403): the `WWW-Authenticate` challenge, raw and parsed. */
  readonly auth: AuthInfo | undefined;
  readonly data: JsonValue | undefined;
  /** The task the error concerns, when there is one. */
  readonly taskId: string | undefined;
}
