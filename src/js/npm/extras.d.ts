import type { ErrorKind, JsonValue } from "./mcp_task_client.js";

/** The error every rejected promise of this package carries: see the README's table of kinds. */
export declare class McpTaskError extends Error {
  readonly name: "McpTaskError";
  readonly kind: ErrorKind;
  /** The raw JSON-RPC / MCP error code, when there is one. */
  readonly code: number | undefined;
  /** The error's data; for `taskFailed`, the failed task's result (a `CallToolResult`). */
  readonly data: JsonValue | undefined;
  /** The task the error concerns, when there is one. */
  readonly taskId: string | undefined;
  /** For `aborted`: the abort signal's reason. */
  readonly cause?: unknown;
}
