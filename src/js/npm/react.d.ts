import type { ReactNode } from "react";
import type { Arguments, CallOptions, CallToolResult, ConnectOptions, JsonObject, McpTaskClient, McpTaskError, Task, TaskDone, TaskHandle, TaskStatus } from "mcp-task-client";

/** What `useMcpClient` returns: the connected client once `status` is `"connected"`. */
export type McpClientState =
  | { status: "connecting"; client: null; error: null }
  | { status: "connected"; client: McpTaskClient; error: null }
  | { status: "error"; client: null; error: McpTaskError };

export interface McpClientProviderProps {
  /** The server's URL; a falsy one connects nothing (the state stays `"connecting"`). */
  url: string | null | undefined;
  /** Read when connecting (a change alone does not reconnect; a new `url` does). */
  options?: Omit<ConnectOptions, "signal">;
  children?: ReactNode;
}

/**
 * Connects once while mounted and shares that client (one session) with every `useMcpClient()`,
 * `useCallTool` and `useTask` below it; closes it on unmount and reconnects when `url` changes.
 * Under StrictMode it opens one session, not two, and leaks none.
 */
export function McpClientProvider(props: McpClientProviderProps): ReactNode;

/**
 * Without arguments: the client of the nearest `<McpClientProvider>` (throws `invalidInput`
 * without one). With a `url`: a client of this component's own, connected while it is mounted
 * (closed on unmount, reconnected when `url` changes; a falsy `url` stays `"connecting"`).
 */
export function useMcpClient(): McpClientState;
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
  done: TaskDone<R> | null;
  result: R | undefined;
  error: McpTaskError | null;
}

/**
 * Follows a task while the component is mounted: a handle (its callbacks are detached on
 * unmount; the handle itself stays the caller's, still waiting), or an id with `options.client`
 * (watched by this mount and stopped on unmount: nothing is sent; a held `tasks/result` is
 * closed as the task's last follower leaves).
 * `null` follows nothing. The remote task is cancelled only with `cancelOnUnmount`.
 */
export function useTask<R = CallToolResult>(handle: TaskHandle<R> | null | undefined, options?: UseTaskOptions): TaskState<R>;
export function useTask<R = CallToolResult>(taskId: string | null | undefined, options: UseTaskOptions & { client: McpTaskClient | null }): TaskState<R>;

export interface UseCallToolOptions {
  /** The client to call with; default: the nearest `<McpClientProvider>`'s (once connected). */
  client?: McpTaskClient | null;
  /** Cancel the running task when the component really unmounts. Default false: unmounting
   *  only stops waiting (the task goes on on the server). */
  cancelOnUnmount?: boolean;
}

/** What `useCallTool` returns: the latest call's task, like a mutation's state. */
export interface CallToolState<S> extends TaskState<CallToolResult<S>> {
  /** Calls the tool (waiting for the provider's connection) and follows the task it made,
   *  stopping the previous one; resolves with its handle, or `null` when the call failed
   *  (then `error` says why). */
  start(args?: Arguments, options?: CallOptions): Promise<TaskHandle<CallToolResult<S>> | null>;
  /** `start` that rejects with the `McpTaskError` when the call fails. */
  startAsync(args?: Arguments, options?: CallOptions): Promise<TaskHandle<CallToolResult<S>>>;
  /** The latest call's handle, `null` before the first call and after `reset()`. */
  handle: TaskHandle<CallToolResult<S>> | null;
  /** The call is being made or its task has not ended yet. */
  isPending: boolean;
  /** Asks the server to cancel the latest task. */
  cancel(): Promise<void>;
  /** Stops waiting for the latest task (nothing is sent) and clears the state. */
  reset(): void;
}

/**
 * Calls tool `name` on demand (`start`), like a mutation; `S` types the result's
 * `structuredContent`. The hook stops waiting for its task when it unmounts or when `reset()` or
 * a new `start` replaces it (nothing is sent: the task goes on on the server; `watch(id)` picks it
 * up); it cancels only on `cancel()` or, with `cancelOnUnmount`, on a real unmount.
 */
export function useCallTool<S = JsonObject>(name: string, options?: UseCallToolOptions): CallToolState<S>;
