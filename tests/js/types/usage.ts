// Compiled (never run) by tests/js/node/package.test.mjs with `tsc --strict --noEmit` against pkg/:
// the public types must be precise and carry the protocol. It uses every public member; every
// `@ts-expect-error` fails the build if the type it guards were `any` (or too loose). The runtime
// side of the same API is tests/js/scenarios.mjs (Node and Chromium).
import init, {
  McpTaskClient,
  McpTaskError,
  TaskHandle,
  TaskUpdates,
  type CallOptions,
  type CallToolResult,
  type ClientWarning,
  type ConnectOptions,
  type ContentBlock,
  type CreateMessageResult,
  type Dialect,
  type ElicitResult,
  type ErrorKind,
  type Implementation,
  type InputHandler,
  type InputRequestEvent,
  type InputResult,
  type JsonObject,
  type ListRootsResult,
  type RpcError,
  type RpcErrorObject,
  type ServerCapabilities,
  type SessionInfo,
  type Task,
  type TaskDone,
  type TaskList,
  type TaskStatus,
  type TaskTransition,
  type ToolList,
} from "mcp-task-client";

/** A tool's arguments as an app declares them: an interface, with optional members. */
interface ReportArgs {
  region: string;
  year?: number;
  draft?: boolean | undefined;
}
/** A tool's structured output, as the app knows it from the tool's output schema. */
interface Report {
  total: number;
  rows: { name: string; value: number }[];
}

// Row 9: onInput is a union keyed by `method`, with typed params and typed results.
const onInput: InputHandler = async (req) => {
  switch (req.method) {
    case "elicitation/create": {
      const message: string = req.params.message;
      const schema: JsonObject | undefined = req.params.requestedSchema;
      console.log(message, schema, req.key, req.taskId?.length);
      const answer: ElicitResult = { action: "accept", content: { name: "Ada", confirm: true } };
      return answer;
    }
    case "sampling/createMessage": {
      const first = req.params.messages[0];
      const max: number = req.params.maxTokens;
      console.log(first?.role, max);
      const reply: CreateMessageResult = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" };
      return reply;
    }
    case "roots/list": {
      const roots: ListRootsResult = { roots: [{ uri: "file:///work", name: "work" }] };
      return roots;
    }
  }
};

// The handler's second argument: a signal that aborts when the answer is no longer wanted (the
// server cancelled the client-side task, its ttl ran out, the client closed).
const abortable: InputHandler = async (req, { signal }) => {
  const asTask: number | undefined = req.method === "elicitation/create" ? req.params.task?.ttl : undefined;
  console.log(asTask, req.taskId);
  await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  signal.throwIfAborted();
  return { action: "cancel" };
};
export const abortableOptions: ConnectOptions = { onInput: abortable };
/** Node processes sharing Redis: any client object type-checks (an ioredis `Redis`). */
export const redisOptions: ConnectOptions = { persist: { redis: { eval() {}, duplicate() {} } }, identity: "u" };

export async function usage(signal: AbortSignal): Promise<void> {
  await init();
  const options: ConnectOptions = {
    transport: "http",
    dialect: "auto",
    headers: async () => ({ Authorization: "Bearer t" }),
    onInput,
    onWarning: (w: ClientWarning) => console.warn(w.error.kind, w.taskId),
    signal, // row 7: connect takes a signal
    persist: true,
  };
  const client: McpTaskClient = await McpTaskClient.connect("http://127.0.0.1:1/mcp", options);

  // Row 1: the session is typed.
  const session: SessionInfo = client.session;
  const server: Implementation = session.serverInfo;
  const name: string = server.name;
  const caps: ServerCapabilities = session.capabilities;
  const listChanged: boolean | undefined = caps.tools?.listChanged;
  const dialect: Dialect = client.dialect;
  const role: "solo" | "leader" | "follower" | "electing" = client.role;
  const storage: "redis" | "indexedDB" | "localStorage" | "memory" | null = client.storage;
  console.log(name, listChanged, dialect, role, storage, session.protocolVersion);

  // Row 2: interface-typed arguments with optional members that may be undefined.
  const args: ReportArgs = { region: "eu", draft: undefined };
  const opts: CallOptions = { ttlMs: 60_000, signal, task: "auto" };
  const task = await client.callTool<Report>("report", args, opts);

  // Row 1: result() is a CallToolResult; content blocks are a union told apart by `type`;
  // structuredContent has the caller's type.
  const result: CallToolResult<Report> = await task.result();
  for (const block of result.content) {
    if (block.type === "text") console.log(block.text.toUpperCase());
    else if (block.type === "image") console.log(block.mimeType, block.data.length);
    else if (block.type === "resource_link") console.log(block.uri, block.name);
    else if (block.type === "resource") console.log(block.resource.uri);
    else console.log(block.type === "audio" && block.mimeType);
  }
  const total: number | undefined = result.structuredContent?.total;
  const failed: boolean | undefined = result.isError;
  console.log(total, failed);
  const untyped: CallToolResult = await (await client.callTool("plain", { n: 5 })).result();
  const blocks: ContentBlock[] = untyped.content;
  const sc: JsonObject | undefined = untyped.structuredContent;
  console.log(blocks, sc);

  // Every member of a handle.
  const id: string | null = task.id;
  const status: TaskStatus | null = task.status;
  const last: Task | null = task.task;
  const ended: boolean = task.isDone;
  const off: () => void = task.onStatus((t: Task) => {
    const s: TaskStatus = t.status;
    const ttl: number | undefined = t.ttlMs;
    const keepAlive: number | undefined = t.keepAliveMs;
    console.log(s, ttl, keepAlive, t.statusMessage?.toUpperCase(), t.outcome?.kind);
  });
  off();
  // Rows 4 and 5: onDone fires in this page; `error` says why whenever the task did not succeed.
  task.onDone((d: TaskDone) => {
    if (d.outcome?.kind === "error") console.log(d.outcome.error.code.toFixed());
    if (d.outcome?.kind === "result") console.log(d.outcome.result);
    const kind: ErrorKind | undefined = d.error?.kind;
    console.log(d.kind, d.status, kind, d.error?.message, d.task?.taskId);
  });
  // The handle's result type reaches its TaskDone: the outcome's result is the tool's typed result.
  task.onDone((d) => {
    if (d.outcome?.kind !== "result") return;
    const total: number | undefined = d.outcome.result.structuredContent?.total;
    // @ts-expect-error — `total` is a number, not a string
    const wrong: string | undefined = d.outcome.result.structuredContent?.total;
    console.log(total, wrong);
  });
  const it: TaskUpdates = task.updates();
  for await (const t of it) {
    const s: TaskStatus = t.status;
    console.log(s);
  }
  const step: IteratorResult<Task, undefined> = await task.updates().next();
  await task.updates().return();
  console.log(step.done, id, status, last, ended);
  await task.cancel();
  const deleted: void = await task.delete();
  const draftOpts: CallOptions = { keepAliveMs: 60_000, deleteOnDone: true, task: "always" };
  await client.callTool("long_job", {}, draftOpts);
  await client.deleteTask("saved-id");
  console.log(deleted);
  task.stop();
  task.free();
  task[Symbol.dispose]();

  // Row 5: the once-across-tabs side effects have their own API.
  const offOnce: () => void = client.onTaskDoneOnce((d: TaskDone) => console.log("notify", d.taskId));
  offOnce();
  const offT: () => void = client.onTransition((t: TaskTransition) => console.log(t.taskId, t.from, t.to, t.at));
  offT();

  const again: TaskHandle<CallToolResult<Report>> = client.watch<CallToolResult<Report>>("saved-id", { signal });
  const watched: TaskHandle = client.watch("other-id");
  const resumed: TaskHandle<CallToolResult>[] = await client.resume<CallToolResult>();
  await client.forget("saved-id");
  const page: TaskList = await client.listTasks();
  const next: TaskList = await client.listTasks(page.nextCursor);
  const tools: ToolList = await client.listTools();
  const support = tools.tools[0]?.execution?.taskSupport;
  // request() stays a JsonObject.
  const plain: TaskHandle<JsonObject> = await client.request("resources/list", {});
  const listed: JsonObject = await plain.result();
  const snapshot: Task | null = client.task("saved-id");

  // Row 3: every rejection is an McpTaskError; an abort carries the signal's reason as `cause`.
  try {
    await again.result();
  } catch (e) {
    if (e instanceof McpTaskError) {
      const k: "rpc" | "transport" | "protocol" | "invalidInput" | "timeout" | "closed" | "aborted" | "cancelled" | "expired" | "taskFailed" | "resultUnavailable" | "unauthorized" | "unsupported" = e.kind;
      const kind: ErrorKind = k;
      const code: number | undefined = e.code;
      const httpStatus: number | undefined = e.httpStatus;
      const metadata: string | null | undefined = e.auth?.resourceMetadata;
      const scope: string | null | undefined = e.auth?.scope;
      if (k === "aborted") console.log(e.cause);
      console.log(kind, code, httpStatus, metadata, scope, e.auth?.error, e.auth?.wwwAuthenticate, e.data, e.taskId, e.message, e.name);
    }
  }
  console.log(next, support, watched, resumed, listed, snapshot);

  // Row 6: disposal. A client is `await using`-able (close); handles are `using`-able (stop).
  {
    await using scoped = await McpTaskClient.connect("http://127.0.0.1:1/mcp");
    using h = await scoped.callTool("x", {});
    console.log(h.id);
  }
  client.free();
  client[Symbol.dispose]();
  await client[Symbol.asyncDispose]();
  await client.close();

  // @ts-expect-error status is a string union, not a number
  const n: number = task.status;
  // @ts-expect-error deleteOnDone is a boolean
  await client.callTool("x", {}, { deleteOnDone: "yes" });
  // @ts-expect-error deleteTask needs an id
  await client.deleteTask();
  // @ts-expect-error unknown task option
  await client.callTool("x", {}, { task: "sometimes" });
  // @ts-expect-error arguments are objects
  await client.callTool("x", 42);
  // @ts-expect-error results are CallToolResults, not strings
  const r: string = await task.result();
  // @ts-expect-error content blocks must be narrowed before reading `text`
  console.log(result.content[0].text);
  // @ts-expect-error structuredContent has the caller's type
  const wrong: string | undefined = result.structuredContent?.total;
  // @ts-expect-error no such transport
  await McpTaskClient.connect("u", { transport: "carrier-pigeon" });
  // @ts-expect-error onStatus callbacks receive a Task
  task.onStatus((t: number) => t);
  // @ts-expect-error Task snapshots have no `foo`
  console.log(snapshot?.foo, n, r, wrong);
  // @ts-expect-error a sampling result is not an elicitation answer
  const badSampling: InputResult<"sampling/createMessage"> = { action: "accept" };
  // @ts-expect-error elicitation actions are accept, decline or cancel
  const badElicit: InputResult<"elicitation/create"> = { action: "maybe" };
  // @ts-expect-error onInput must return one of the input results
  const badHandler: InputHandler = async () => ({ whatever: 1 });
  const narrowed = (req: InputRequestEvent) =>
    // @ts-expect-error params must be narrowed by method before reading sampling fields
    req.params.maxTokens;
  console.log(badSampling, badElicit, badHandler, narrowed);
}

/** The deprecated name of `RpcError` still compiles and means the same shape. */
export function legacyRpcError(e: RpcError): RpcErrorObject {
  const old: RpcErrorObject = e;
  // @ts-expect-error an RpcErrorObject has a numeric code
  const bad: RpcErrorObject = { code: "x", message: "m" };
  console.log(bad);
  return old;
}
