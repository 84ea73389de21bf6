import type { CallToolResult, ConnectOptions, JsonObject, McpTaskClient, McpTaskError, Task, TaskDone, TaskHandle, TaskStatus } from "mcp-task-client";

/** What `useMcpClient` returns: the connected client once `status` is `"connected"`. */
export type McpClientState =
  | { status: "connecting"; client: null; error: null }
  | { status: "connected"; client: McpTaskClient; error: null }
  | { status: "error"; client: null; error: McpTaskError };

/**
 * Connects to `url` while the component is mounted (closing on unmount) and reconnects when `url`
 * changes; `options` are read when connecting. Under StrictMode it opens one session, not two.
 * A falsy `url` stays `"connecting"` without connecting.
 */
export function useMcpClient(url: string | null | undefined, options?: Omit<ConnectOptions, "signal">): McpClientState;

export interface UseTaskOptions {
  /** Needed when following a task by id: the client to watch it with. */
  client?: McpTaskClient | null;
  /** Cancel the remote task when the component really unmounts (not on StrictMode's simulated
   *  unmount). Default false: unmounting only stops listening. */
  cancelOnUnmount?: boolean;
}

/** What `useTask` returns; `result` and `error` are `result()`'s settlement. */
export interface TaskState<R> {
  task: Task | null;
  status: TaskStatus | null;
  done: TaskDone | null;
  result: R | undefined;
  error: McpTaskError | null;
}

/**
 * Follows a task while the component is mounted: a handle (its callbacks are detached on
 * unmount; the handle itself is the caller's), or an id with `options.client` (watched by this
 * mount, stopped on unmount). `null` follows nothing.
 */
export function useTask<R = CallToolResult>(handle: TaskHandle<R> | null | undefined, options?: UseTaskOptions): TaskState<R>;
export function useTask<R = JsonObject>(taskId: string | null | undefined, options: UseTaskOptions & { client: McpTaskClient | null }): TaskState<R>;
