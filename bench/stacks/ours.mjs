// Stack adapter: our mcp-task-client (pkg/, built by scripts/build.sh). Both dialects.
// Node loads pkg/node.js; a browser page calls setModule() with the module it imported from pkg/index.js.
export const name = "ours";
export const dialects = ["legacy", "modern"];

/** The client's first subscription waits for tasks created together to stop arriving (100 ms quiet, at most 400 ms); later ones re-open it at most every second. */
const LISTEN_SETTLE_MS = 1_200;

let mod;
/** Browser pages hand in the already initialised module (pkg/index.js after `await init(wasmUrl)`). */
export function setModule(m) { mod = m; }
async function load() {
  if (!mod) {
    // BENCH_PKG_DIR: the snapshot of pkg/ that bench/run.mjs takes at start (pkg/ may be rebuilt meanwhile).
    const dir = globalThis.process?.env?.BENCH_PKG_DIR;
    const href = dir ? new URL(`file://${dir}/node.js`).href : new URL("../../pkg/node.js", import.meta.url).href;
    mod = await import(href);
  }
  return mod;
}

/**
 * `persist: true` turns tab coordination on (browser pages of one origin share one leader's polling).
 * `push: false` (a run whose server does not push): `subscribe: false`, no modern `subscriptions/listen`,
 * as the ext-tasks adapter opens its host listen only when pushes are on.
 */
export async function connect(url, { dialect = "legacy", push, onPush, tool = "work", persist = false, transport = "http", link } = {}) {
  const { McpTaskClient } = await load();
  const client = await McpTaskClient.connect(url, {
    dialect, transport, requestTimeoutMs: 3_600_000, ...(persist ? { persist } : {}), ...(push === false ? { subscribe: false } : {}),
    ...(link ? { link } : {}),
  });
  if (client.dialect !== dialect) throw new Error(`expected ${dialect}, negotiated ${client.dialect}`);
  const handles = new Set();
  const wire = (h, { onStatus, onDone }) => {
    handles.add(h);
    if (onStatus || onPush) h.onStatus((t) => { onStatus?.(t); onPush?.(t); });
    h.onDone((d) => {
      handles.delete(h);
      if (d.kind === "finished") onDone?.({ status: d.status ?? "completed", outcome: d.outcome });
      else if (d.kind !== "aborted") onDone?.({ status: "error", error: JSON.stringify(d.error ?? d) });
    });
    return h;
  };
  return {
    client,
    role: client.role,
    /** Creates a task with callTool; the returned handle is the first watcher. */
    async callTool(ms, { onStatus, onDone, ttlMs = 600_000 } = {}) {
      const h = await client.callTool(tool, { ms }, { task: "always", ttlMs });
      wire(h, { onStatus, onDone });
      return { taskId: h.id };
    },
    /** An extra watcher: client.watch(taskId) (shares the task's one poll loop). */
    watch(taskId, opts = {}) {
      const h = wire(client.watch(taskId), opts);
      return () => h.stop();
    },
    /**
     * Modern with pushes: the client opens its subscription (`subscriptions/listen` naming the followed tasks)
     * by itself, 50 ms after tasks start being followed. Like the ext-tasks host's listen, which its adapter
     * awaits, it belongs to attaching: wait until it covers every task.
     */
    async listen() {
      if (client.dialect === "modern" && push) await new Promise((r) => setTimeout(r, LISTEN_SETTLE_MS));
    },
    /** For the throughput figure: watch without a creator (pushes arrive for these ids). */
    async close() {
      for (const h of handles) { try { h.stop(); } catch { /* done */ } }
      await client.close();
    },
  };
}
