// Compiled (never run) by tests/js/node/package.test.mjs with `tsc --strict --noEmit` against pkg/:
// the public types must be precise. Every `@ts-expect-error` below fails the build if the type it
// guards were `any` (or too loose).
import init, {
  McpTaskClient,
  McpTaskError,
  type CallOptions,
  type ConnectOptions,
  type JsonObject,
  type Task,
  type TaskDone,
  type TaskHandle,
  type TaskList,
  type TaskStatus,
  type ToolList,
} from "mcp-task-client";

export async function usage(signal: AbortSignal): Promise<void> {
  await init();
  const options: ConnectOptions = {
    transport: "http",
    dialect: "auto",
    headers: async () => ({ Authorization: "Bearer t" }),
    onInput: async (req): Promise<JsonObject> => (req.method === "elicitation/create" ? { action: "accept", content: { ok: true } } : {}),
    onWarning: (w) => console.warn(w.error.kind, w.taskId),
  };
  const client: McpTaskClient = await McpTaskClient.connect("http://127.0.0.1:1/mcp", options);
  const dialect: "modern" | "legacy" | "draft" = client.dialect;
  const opts: CallOptions = { ttlMs: 60_000, signal, task: "auto" };
  const task: TaskHandle = await client.callTool("long_job", { n: 5 }, opts);
  const id: string | null = task.id;
  const status: TaskStatus | null = task.status;
  const off: () => void = task.onStatus((t: Task) => {
    const s: TaskStatus = t.status;
    const ttl: number | undefined = t.ttlMs;
    const keepAlive: number | undefined = t.keepAliveMs;
    console.log(s, ttl, keepAlive, t.statusMessage?.toUpperCase(), t.outcome?.kind);
  });
  off();
  task.onDone((d: TaskDone) => {
    if (d.outcome?.kind === "error") console.log(d.outcome.error.code.toFixed());
    if (d.outcome?.kind === "result") console.log(d.outcome.result);
    console.log(d.kind, d.status, d.error?.kind);
  });
  const result: JsonObject = await task.result();
  for await (const t of task.updates()) {
    const s: TaskStatus = t.status;
    console.log(s);
  }
  await task.cancel();
  const deleted: void = await task.delete();
  const draftOpts: CallOptions = { keepAliveMs: 60_000, deleteOnDone: true, task: "always" };
  await client.callTool("long_job", {}, draftOpts);
  await client.deleteTask("saved-id");
  console.log(deleted);
  task.stop();
  const again: TaskHandle = client.watch("saved-id", { signal });
  const page: TaskList = await client.listTasks();
  const next: TaskList = await client.listTasks(page.nextCursor);
  const tools: ToolList = await client.listTools();
  const support = tools.tools[0]?.execution?.taskSupport;
  const plain: TaskHandle = await client.request("resources/list", {});
  const snapshot: Task | null = client.task("saved-id");
  try {
    await again.result();
  } catch (e) {
    if (e instanceof McpTaskError) {
      const k: "rpc" | "transport" | "protocol" | "invalidInput" | "timeout" | "closed" | "aborted" | "cancelled" | "expired" | "taskFailed" | "resultUnavailable" | "unauthorized" | "unsupported" = e.kind;
      const code: number | undefined = e.code;
      const httpStatus: number | undefined = e.httpStatus;
      const metadata: string | null | undefined = e.auth?.resourceMetadata;
      const scope: string | null | undefined = e.auth?.scope;
      console.log(k, code, httpStatus, metadata, scope, e.auth?.error, e.auth?.wwwAuthenticate, e.data, e.taskId, e.message);
    }
  }
  console.log(dialect, id, status, result, next, support, plain, snapshot);
  await client.close();

  // @ts-expect-error status is a string union, not a number
  const n: number = task.status;
  // @ts-expect-error deleteOnDone is a boolean
  await client.callTool("x", {}, { deleteOnDone: "yes" });
  // @ts-expect-error deleteTask needs an id
  await client.deleteTask();
  // @ts-expect-error unknown task option
  await client.callTool("x", {}, { task: "sometimes" });
  // @ts-expect-error arguments are JSON objects
  await client.callTool("x", 42);
  // @ts-expect-error results are JSON objects, not strings
  const r: string = await task.result();
  // @ts-expect-error no such transport
  await McpTaskClient.connect("u", { transport: "carrier-pigeon" });
  // @ts-expect-error onStatus callbacks receive a Task
  task.onStatus((t: number) => t);
  // @ts-expect-error Task snapshots have no `foo`
  console.log(snapshot?.foo, n, r);
}
