import type { JsonObject, RpcError, Task, TaskDone as DoneRecord, TaskStatus } from "./mcp_task_client.js";

// The disposal symbols and interfaces (TypeScript's lib `esnext.disposable`), declared as the lib
// declares them: an app compiled with older libs (`ES2023`) gets them from here, and merged with the
// lib's own declarations they change nothing.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
  interface Disposable {
    [Symbol.dispose](): void;
  }
  interface AsyncDisposable {
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

/** What `onDone` receives, exactly once per handle; `R` is the type of `outcome.result`: the
 *  handle's (a `CallToolResult` for `callTool`), `unknown` when not given. */
export interface TaskDone<R = unknown> extends Omit<DoneRecord, "outcome"> {
  /** The final outcome: the request's result or its JSON-RPC error; `null` when there was none. */
  outcome: { kind: "result"; result: R } | { kind: "error"; error: RpcError } | null;
}

/**
 * One subscription to one task (or plain request). Obtain it from `callTool`, `request`, `watch`
 * or `resume`. `R` is what `result()` resolves with: a `CallToolResult` for `callTool`.
 * `handle[Symbol.dispose]()` and `free()` are `stop()`.
 */
export declare class TaskHandle<R = JsonObject> {
  private constructor();
  /** Same as `stop()`. */
  free(): void;
  /** Same as `stop()` (`using handle = await client.callTool(…)`). */
  [Symbol.dispose](): void;
  /** The task id; `null` until the server made a task (and for plain results). On the draft
   *  dialect it is the id this client generated, from the moment the request went out. */
  readonly id: string | null;
  /** The last known status; `null` before the first snapshot. */
  readonly status: TaskStatus | null;
  /** The last known snapshot; `null` before the first one (kept after the handle ended). */
  readonly task: Task | null;
  /** Whether the handle has ended (then `onDone` has fired and `result()` is settled). */
  readonly isDone: boolean;
  /** Calls `cb` with the current snapshot (asynchronously, when there is one) and with every new
   *  one until the handle ends; returns the unsubscribe function. */
  onStatus(cb: (task: Task) => void): () => void;
  /** Calls `cb` exactly once when this handle ends, in the page that holds it (at once,
   *  asynchronously, if it already has) — with or without `persist`. For effects that must
   *  happen once across tabs and reloads, use `client.onTaskDoneOnce`. Returns the unsubscribe
   *  function. */
  onDone(cb: (done: TaskDone<R>) => void): () => void;
  /** Resolves with the request's result when the task completes; rejects with an `McpTaskError`
   *  otherwise (`rpc`, `taskFailed` with the tool's own text as message, `cancelled`, `expired`,
   *  `aborted` with the signal's reason as `cause`, …): the error `TaskDone.error` describes. */
  result(): Promise<R>;
  /** Every snapshot from now on (starting with the current one), each once, ending when the
   *  handle ends; the last one is the final snapshot. */
  updates(): TaskUpdates;
  /** Asks the server to cancel the task (`tasks/cancel`, or the dialect's equivalent); resolves
   *  once the server acknowledged. Before the task exists, the cancel is sent as soon as it does. */
  cancel(): Promise<void>;
  /** Deletes the task on the server (`tasks/delete`, draft servers only; other dialects reject
   *  with `invalidInput` without sending anything). Rejects `invalidInput` without a task id. */
  delete(): Promise<void>;
  /** Stops waiting (locally; nothing is sent): the handle ends `aborted`. */
  stop(): void;
}

/** The async iterator returned by `TaskHandle.updates()` (`for await (const task of handle.updates())`). */
export declare class TaskUpdates {
  private constructor();
  /** Same as `return()`. */
  free(): void;
  /** Same as `return()`. */
  [Symbol.dispose](): void;
  [Symbol.asyncIterator](): TaskUpdates;
  /** The next snapshot; `{ done: true }` after the handle ended and all snapshots were read. */
  next(): Promise<IteratorResult<Task, undefined>>;
  /** Ends the iteration early (what `break` in `for await` calls). */
  return(): Promise<IteratorResult<Task, undefined>>;
}
