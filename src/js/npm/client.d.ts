import type { Arguments, CallOptions, CallToolResult, ConnectOptions, Dialect, JsonObject, SessionInfo, Task, TaskList, TaskTransition, ToolList, WatchOptions } from "./mcp_task_client.js";
import type { TaskDone, TaskHandle } from "./handle.js";

/** An MCP client that turns requests into tracked tasks. */
export declare class McpTaskClient {
  private constructor();
  /** Same as `close()`, without waiting. */
  free(): void;
  /** Same as `close()`, without waiting. */
  [Symbol.dispose](): void;
  /** `close()` (`await using client = await McpTaskClient.connect(…)`). */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * Ends every subscription and the session (`DELETE` for legacy HTTP), then closes the transport.
   */
  close(): Promise<void>;
  /**
   * Connects and negotiates the dialect; resolves once the session is ready.
   */
  static connect(url: string, options?: ConnectOptions): Promise<McpTaskClient>;
  /**
   * Deletes a finished task on the server (`tasks/delete`, draft servers only; other dialects
   * reject with `invalidInput` without sending anything) and forgets it here.
   */
  deleteTask(taskId: string): Promise<void>;
  /**
   * With `persist`: stops tracking a task in every tab and deletes its stored record.
   */
  forget(taskId: string): Promise<void>;
  /**
   * One page of the server's tasks (`tasks/list`; legacy and draft servers only).
   */
  listTasks(cursor?: string): Promise<TaskList>;
  /**
   * The server's tools (`tools/list`; also refreshes the client's `taskSupport` cache).
   */
  listTools(): Promise<ToolList>;
  /**
   * Calls `cb` once per task that ends — with `persist`, once across every tab and reload of
   * this origin (the first page to see the end wins; the completion ledger decides), without
   * it once in this client. For side effects that must not repeat (a notification, a write);
   * UI belongs in each handle's `onDone`, which fires in every page holding a handle. Returns
   * the unsubscribe function.
   */
  onTaskDoneOnce(cb: (done: TaskDone<JsonObject>) => void): () => void;
  /**
   * Calls `cb` on every task state change; returns the unsubscribe function.
   */
  onTransition(cb: (transition: TaskTransition) => void): () => void;
  /**
   * Sends any request (augmented as a task where the dialect allows it).
   */
  request(method: string, params?: Arguments, opts?: CallOptions): Promise<TaskHandle>;
  /**
   * The client's latest snapshot of a task, if it tracks it.
   */
  task(taskId: string): Task | null;
  /** Calls a tool, as a task when the tool and server allow it (`opts.task`). `S` types the
   *  result's `structuredContent` where the caller knows the tool's output schema. */
  callTool<S = JsonObject>(name: string, args?: Arguments, opts?: CallOptions): Promise<TaskHandle<CallToolResult<S>>>;
  /** Tracks an existing task by id (e.g. after a reload); `R` is its result's type. */
  watch<R = JsonObject>(taskId: string, opts?: WatchOptions): TaskHandle<R>;
  /** With `persist`: handles for every stored task of this server and identity whose end no
   *  page has reported yet (also tasks that ended while no tab was open). `[]` without `persist`. */
  resume<R = JsonObject>(): Promise<TaskHandle<R>[]>;
  /**
   * The dialect the session speaks.
   */
  readonly dialect: Dialect;
  /**
   * This tab's part: `"solo"` (no `persist`), `"leader"` (does the network I/O), `"follower"`
   * or `"electing"` (between leaders).
   */
  readonly role: "solo" | "leader" | "follower" | "electing";
  /**
   * What the session negotiated (protocol version, server info and capabilities).
   */
  readonly session: SessionInfo;
  /**
   * Where tracked tasks are stored: `"redis"`, `"indexedDB"`, `"localStorage"`, `"memory"`; `null` without `persist`.
   */
  readonly storage: "redis" | "indexedDB" | "localStorage" | "memory" | null;
}
