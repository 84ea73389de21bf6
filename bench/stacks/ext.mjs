// Stack adapter: @modelcontextprotocol/ext-tasks@0.2.2 on @modelcontextprotocol/client@2.4.0 (both dialects).
// For the modern dialect ext-tasks needs the host's raw request path (`rawDispatch`) and the V2 framing;
// the host coordinator below is the minimal one its README asks for (fetch POST, own request ids).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
import { contributeTaskFilterV2 } from "@modelcontextprotocol/ext-tasks/core/v2";

export const name = "ext";
export const dialects = ["legacy", "modern"];

const MODERN = "2026-07-28";
const CLIENT_INFO = { name: "bench-ext", version: "0.0.0" };

/** Host request coordinator for V2 task traffic: owns ids, sends the modern headers, matches the response. */
function makeRawDispatch(url) {
  let next = 1;
  return async (request, options = {}) => {
    const id = `raw-${next++}`;
    const p = request.params ?? {};
    const mcpName = request.method === "tools/call" ? p.name : (typeof p.taskId === "string" ? p.taskId : undefined);
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": request.method,
    });
    if (mcpName !== undefined) headers.set("mcp-name", String(mcpName));
    // ext-tasks may pass its own headers (it sets Mcp-Name on some task requests): theirs replace ours.
    for (const [k, v] of Object.entries(options.context?.headers ?? {})) headers.set(k, v);
    const res = await fetch(url, {
      method: "POST",
      signal: options.signal,
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, ...request }),
    });
    const type = res.headers.get("content-type") ?? "";
    let msg;
    if (type.includes("text/event-stream")) {
      const text = await res.text();
      for (const block of text.split(/\r?\n\r?\n/)) {
        const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (!data) continue;
        const m = JSON.parse(data);
        if (m.id === id) { msg = m; break; }
      }
    } else {
      msg = await res.json();
    }
    if (!msg) throw new Error(`no response for ${request.method} (HTTP ${res.status})`);
    return msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result };
  };
}

export async function connect(url, { dialect = "legacy", push = false, onPush, tool = "work", transport: kind = "http" } = {}) {
  if (kind !== "http") throw new Error("this adapter speaks Streamable HTTP only");
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: { mode: dialect === "modern" ? { pin: MODERN } : "legacy" },
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const era = client.getProtocolEra();
  if ((dialect === "modern") !== (era === "modern")) throw new Error(`expected ${dialect}, negotiated ${era}`);
  const modern = era === "modern";
  const session = createTaskSessionFromClient(client, {
    endpointId: `bench:${url}`,
    ...(modern
      ? { rawDispatch: makeRawDispatch(url), v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: {} } }
      : {}),
  });
  if (onPush) {
    // Throughput figure only: an app-level listener beside the session's own routing.
    const prev = client.fallbackNotificationHandler;
    client.fallbackNotificationHandler = async (n) => {
      await prev?.(n);
      if (n.method === "notifications/tasks/status" || n.method === "notifications/tasks") onPush(n.params);
    };
  }
  // One controller per call/watcher (see stacks/sdk1.mjs: a shared signal makes the harness quadratic).
  const live = new Set();
  const controller = () => { const ac = new AbortController(); live.add(ac); return ac; };
  const subscriptions = [];

  const api = {
    era,
    /** Creates a task through session.callTool; its execution (settle + onEvent) is the first watcher. */
    async callTool(ms, { onStatus, onDone, ttlMs = 600_000 } = {}) {
      const ac = controller();
      const ex = await session.callTool(tool, { ms }, {
        task: { preference: "require", retentionMs: ttlMs }, signal: ac.signal, requestTimeoutMs: 3_600_000,
      });
      if (ex.kind !== "task") throw new Error("server answered without a task");
      const taskId = ex.handle.taskId;
      ex.settle({
        signal: ac.signal,
        onEvent: (e) => { if (e.type === "task") onStatus?.(e.task); },
      }).then(
        (s) => { live.delete(ac); onDone?.(s.outcome); },
        (e) => { live.delete(ac); if (!ac.signal.aborted) onDone?.({ status: "error", error: String(e) }); },
      );
      return { taskId };
    },
    /**
     * An extra watcher of an existing task: a detached controller's result() (the one-owner rule
     * forbids a second execution for the same task in one session).
     */
    watch(taskId, { onDone } = {}) {
      const ac = controller();
      const { signal } = ac;
      session.task(taskId, { requestTimeoutMs: 3_600_000 }).result({ signal }).then(
        (o) => { live.delete(ac); onDone?.(o); },
        (e) => { live.delete(ac); if (!signal.aborted) onDone?.({ status: "error", error: String(e) }); },
      );
      return () => ac.abort();
    },
    /** Modern push: the host opens subscriptions/listen for the task ids (ext-tasks contributes the filter). */
    async listen(taskIds) {
      if (!modern || !push) return;
      // client.listen takes the notifications filter; ext-tasks contributes the task ids to it.
      const sub = await client.listen(contributeTaskFilterV2({}, taskIds).notifications, { signal: controller().signal });
      subscriptions.push(sub);
    },
    async close() {
      for (const ac of live) ac.abort();
      for (const s of subscriptions) { try { await s.close(); } catch { /* gone */ } }
      try { await session.close(); } catch { /* executions already aborted */ }
      try { await transport.terminateSession?.(); } catch { /* modern: no sessions */ }
      await client.close();
    },
  };
  return api;
}
