// The client as a task receiver, against the test servers' `client_task` tool: the server sends
// task-augmented elicitation/create or sampling/createMessage to the client through its SDK and
// polls it (tasks/get, tasks/result; on the TS SDK also tasks/list, tasks/cancel and expiry).
// Shared by Node and the Chromium page.
import { kit } from "./scenarios.mjs";

const { assert, eq, sleep, within, withClient } = kit;

/** Calls `client_task` with `args`; the tool's report (what the server's SDK saw) as an object. */
async function serverSide(c, args) {
  const h = await c.callTool("client_task", args);
  const r = await within(30_000, h.result(), "client_task result");
  const text = r?.content?.[0]?.text;
  assert(typeof text === "string", `client_task answered text: ${JSON.stringify(r)}`);
  return JSON.parse(text);
}

/** An `onInput` that answers `answer` after `delayMs` unless its signal aborts first. */
function slowHost(delayMs, answer) {
  const seen = [];
  const onInput = async (req, extra) => {
    const entry = { req, signal: extra?.signal, abortedWith: null };
    seen.push(entry);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      extra?.signal?.addEventListener("abort", () => {
        entry.abortedWith = extra.signal.reason;
        clearTimeout(timer);
        resolve();
      });
    });
    return answer(req);
  };
  return { seen, onInput };
}

const accept = () => ({ action: "accept", content: { name: "Ada" } });
const sampled = () => ({ role: "assistant", content: { type: "text", text: "hi from the host" }, model: "test-model" });

/** The host answers an elicitation task 2.5 s later, past the server's 1 s request timeout: the
 *  server polls tasks/get and gets the answer from tasks/result (on the tools/call stream). */
export async function elicitationTaskOutlivesServerTimeout(ctx) {
  const host = slowHost(2_500, accept);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "elicit", timeoutMs: 1_000, ttl: 60_000, then: "result", stream: "call" });
    assert(!out.error, `no error: ${JSON.stringify(out.error)}`);
    eq(out.result?.action, "accept", "the host's action reached the server");
    eq(out.result?.content?.name, "Ada", "the host's content reached the server");
    assert(out.elapsedMs >= 2_400, `the answer came after the server's timeout (${out.elapsedMs} ms)`);
    eq(out.statuses[0], "working", "created working");
    eq(out.statuses.at(-1), "completed", "polled to completed");
    assert(out.statuses.length >= 3, `the server polled tasks/get: ${out.statuses}`);
    eq(host.seen.length, 1, "one input request");
    const { req } = host.seen[0];
    eq(req.method, "elicitation/create", "method");
    eq(req.taskId, out.taskId, "the host sees the client-side task id");
    eq(req.params?.task?.ttl, 60_000, "the requested ttl");
    assert(host.seen[0].signal instanceof AbortSignal && !host.seen[0].signal.aborted, "a live AbortSignal");
  });
  return "server: ts-sdk (TS SDK 1.32.2), client_task elicit on the tools/call stream";
}

/** Sampling as a task, sent on the GET listening stream; the host answers after 1.5 s. */
export async function samplingTaskOnTheListeningStream(ctx) {
  const host = slowHost(1_500, sampled);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "sample", timeoutMs: 1_000, ttl: 60_000, then: "result", stream: "get" });
    assert(!out.error, `no error: ${JSON.stringify(out.error)}`);
    eq(out.result?.content?.text, "hi from the host", "the sampled text reached the server");
    eq(out.statuses.at(-1), "completed", "completed");
    eq(host.seen[0]?.req.method, "sampling/createMessage", "method");
  });
  return "server: ts-sdk (TS SDK 1.32.2), client_task sample on the GET stream";
}

/** tasks/cancel from the server aborts the host's signal; the task stays cancelled. */
export async function serverCancelReachesHost(ctx) {
  const host = slowHost(20_000, accept);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "elicit", ttl: 60_000, then: "cancel", waitMs: 500 });
    eq(out.cancel?.status, "cancelled", "tasks/cancel answered the cancelled task");
    eq(out.get?.status, "cancelled", "tasks/get after cancel");
    assert(out.list?.tasks?.some((t) => t.taskId === out.created.taskId), "tasks/list lists the task");
    eq(out.result?.error?.code, -32603, "tasks/result of a cancelled task is an error");
    const entry = host.seen[0];
    assert(entry?.signal?.aborted, "the host's signal aborted");
    eq(entry.abortedWith?.kind, "cancelled", "abort reason kind");
  });
  return "server: ts-sdk (TS SDK 1.32.2), client_task cancel";
}

/** A client task past its ttl answers the spec's error; the host's signal aborts at expiry. */
export async function expiredClientTask(ctx) {
  const host = slowHost(5_000, accept);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "elicit", ttl: 500, then: "expire", waitMs: 1_200 });
    eq(out.created?.ttl, 500, "the ttl is reported");
    for (const what of ["get", "result"]) {
      eq(out[what]?.error?.code, -32602, `${what}: code`);
      assert(/Task has expired/.test(out[what]?.error?.message ?? ""), `${what}: ${out[what]?.error?.message}`);
    }
    await sleep(50);
    eq(host.seen[0]?.abortedWith?.kind, "cancelled", "the host's signal aborted at expiry");
  });
  return "server: ts-sdk (TS SDK 1.32.2), client_task expire";
}

/** The Python SDK (mcp 1.30, `client_task`: `elicit_as_task`) polls the client's task to its result. */
export async function pythonElicitationTask(ctx) {
  const host = slowHost(1_500, accept);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "elicit", ttl: 60_000 });
    assert(!out.error, `no error: ${JSON.stringify(out.error)}`);
    eq(out.result?.action, "accept", "the host's action reached the server");
    eq(out.result?.content?.name, "Ada", "the host's content reached the server");
    eq(host.seen[0]?.req.params?.task?.ttl, 60_000, "a task-augmented request");
    assert(typeof host.seen[0]?.req.taskId === "string", "the client-side task id");
  });
  return `server: ${ctx.kind} (Python mcp 1.30), elicit_as_task`;
}

/** The Python SDK's `create_message_as_task` against the client's sampling task. */
export async function pythonSamplingTask(ctx) {
  const host = slowHost(1_000, sampled);
  await withClient(ctx, { onInput: host.onInput }, async (c) => {
    const out = await serverSide(c, { kind: "sample", ttl: 60_000 });
    assert(!out.error, `no error: ${JSON.stringify(out.error)}`);
    eq(out.result?.content?.text, "hi from the host", "the sampled text reached the server");
  });
  return `server: ${ctx.kind} (Python mcp 1.30), create_message_as_task`;
}

/** Scenarios per server kind. */
export const RECEIVER = {
  "ts-sdk": {
    elicitationTaskOutlivesServerTimeout,
    samplingTaskOnTheListeningStream,
    serverCancelReachesHost,
    expiredClientTask,
  },
  "python-http": { pythonElicitationTask, pythonSamplingTask },
  "python-ws": { pythonElicitationTask, pythonSamplingTask },
};
