// In-page bench harness (bundled per stack by bench/lib/build-browser.mjs; ours is wired by harness-ours.mjs).
// Exposes window.bench = {ready, connect, createMany, watchMany, watchErrors, tasks, throughput, wasmBytes}.
import { runThroughput } from "../lib/throughput-core.mjs";
import { runTasks } from "../lib/latency-core.mjs";

export function installHarness(stack, extras = {}) {
  let conn = null;
  const watchErrors = [];
  const onDone = (o) => { if (o?.status === "error") watchErrors.push(String(o.error).slice(0, 300)); };
  window.bench = {
    ready: true,
    stack: stack.name,
    wasmBytes: extras.wasmBytes ?? (() => 0),
    /** `opts`: extra connect options (ours: `persist`); returns the tab's role where the stack has one. */
    async connect(url, dialect, opts = {}) {
      conn = await stack.connect(url, { dialect, push: false, ...opts });
      return conn.role ?? null;
    },
    /**
     * Tracks n new tasks (created through the stack's call API), at most `parallel` creations in flight;
     * with `keepIds` also returns their ids and records watcher failures (see watchErrors).
     */
    async createMany(n, ms, parallel = 64, { keepIds = false } = {}) {
      let next = 0;
      let errors = 0;
      const samples = [];
      const ids = [];
      const worker = async () => {
        while (next < n) {
          next++;
          try {
            const { taskId } = await conn.callTool(ms, keepIds ? { onDone } : {});
            if (keepIds) ids.push(taskId);
          } catch (e) {
            errors++;
            if (samples.length < 3) samples.push(String(e?.message ?? JSON.stringify(e)).slice(0, 300));
          }
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      return keepIds ? { errors, samples, ids } : { errors, samples };
    },
    /** One more watcher of each task (the stack's attach method, as for the W-watchers counts). */
    watchMany(ids) {
      for (const id of ids) conn.watch(id, { onDone });
      return ids.length;
    },
    watchErrors: () => ({ count: watchErrors.length, samples: watchErrors.slice(0, 2) }),
    async close() { await conn?.close(); conn = null; },
    /** Tasks whose outcomes are timed as they reach the app (see lib/latency-core.mjs). */
    tasks: (opts) => runTasks(conn, opts),
    throughput: (opts) => runThroughput(stack, opts),
  };
}
