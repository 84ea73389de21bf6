// Stack adapter: @modelcontextprotocol/sdk@1.32.2 client, `client.experimental.tasks` (legacy dialect only).
// The same adapter shape is used by every stack (see bench/README.md).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { CallToolResultSchema, TaskStatusNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

export const name = "sdk1";
export const dialects = ["legacy"];

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});

/** `transport: "websocket"`: the SDK's WebSocket transport (the global WebSocket: Node 20 needs --experimental-websocket). */
export async function connect(url, { dialect = "legacy", onPush, tool = "work", transport: kind = "http" } = {}) {
  if (dialect !== "legacy") throw new Error("sdk1 speaks the legacy dialect only");
  const client = new Client({ name: "bench-sdk1", version: "0.0.0" }, { capabilities: {} });
  if (onPush) {
    // Push is not used by the SDK's task helpers; for the throughput figure the app registers a handler.
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => onPush(n.params));
  }
  const transport = kind === "websocket" ? new WebSocketClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  // One controller per call/watcher (a single shared signal would collect one abort listener per request,
  // and EventTarget's duplicate check makes that quadratic — a harness cost, not the SDK's).
  const live = new Set();
  const controller = () => { const ac = new AbortController(); live.add(ac); return ac; };

  return {
    /** Creates a task through the SDK's call API; that stream is the first watcher. */
    async callTool(ms, { onStatus, onDone, ttlMs = 600_000 } = {}) {
      const ac = controller();
      const stream = client.experimental.tasks.callToolStream(
        { name: tool, arguments: { ms } }, undefined, { task: { ttl: ttlMs }, signal: ac.signal, timeout: 3_600_000 });
      const first = await stream.next();
      if (first.done || first.value.type !== "taskCreated") throw new Error(`no task: ${first.value?.error?.message ?? JSON.stringify(first.value)}`);
      const taskId = first.value.task.taskId;
      (async () => {
        try {
          for await (const m of stream) {
            if (m.type === "taskStatus") onStatus?.(m.task);
            else if (m.type === "result") { onDone?.({ status: "completed", result: m.result }); return; }
            else if (m.type === "error") { onDone?.({ status: "error", error: String(m.error) }); return; }
          }
        } catch (e) { if (!ac.signal.aborted) onDone?.({ status: "error", error: String(e) }); }
        live.delete(ac);
      })();
      return { taskId };
    },
    /**
     * An extra watcher of an existing task. SDK v1 has no attach API; this is the loop its
     * requestStream runs (getTask, wait task.pollInterval, repeat; getTaskResult when completed).
     */
    watch(taskId, { onStatus, onDone } = {}) {
      const ac = controller();
      const { signal } = ac;
      (async () => {
        try {
          while (!signal.aborted) {
            const t = await client.experimental.tasks.getTask(taskId, { signal, timeout: 3_600_000 });
            onStatus?.(t);
            if (TERMINAL.has(t.status)) {
              if (t.status === "completed") {
                const r = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { signal, timeout: 3_600_000 });
                onDone?.({ status: "completed", result: r });
              } else onDone?.({ status: t.status });
              return;
            }
            await sleep(t.pollInterval ?? 1000, signal);
          }
        } catch (e) { if (!signal.aborted) onDone?.({ status: "error", error: String(e) }); }
        live.delete(ac);
      })();
      return () => ac.abort();
    },
    async close() {
      for (const ac of live) ac.abort();
      try { await transport.terminateSession?.(); } catch { /* server may not support DELETE */ }
      await client.close();
    },
  };
}
