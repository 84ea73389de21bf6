import type { ErrorKind, JsonValue } from "./mcp_task_client.js";

/** The error every rejected promise of this package carries. */
export declare class McpTaskError extends Error {
  readonly name: "McpTaskError";
  readonly kind: ErrorKind;
  /** The raw JSON-RPC / MCP error code, when there is one. */
  readonly code: number | undefined;
  readonly data: JsonValue | undefined;
  /** The task the error concerns, when there is one. */
  readonly taskId: string | undefined;
}
