// In-page bench harness (bundled per stack by bench/lib/build-browser.mjs; ours is wired by harness-ours.mjs).
// Exposes window.bench = {ready, connect, createMany, throughput, wasmBytes}.
import { runThroughput } from "../lib/throughput-core.mjs";

export function installHarness(stack, extras = {}) {
  let conn = null;
  window.bench = {
    ready: true,
    stack: stack.name,
    wasmBytes: extras.wasmBytes ?? (() => 0),
    async connect(url, dialect) {
      conn = await stack.connect(url, { dialect, push: false });
      return true;
    },
    /** Tracks n new tasks (created through the stack's call API), at most `parallel` creations in flight. */
    async createMany(n, ms, parallel = 64) {
      let next = 0;
      let errors = 0;
      const samples = [];
      const worker = async () => {
        while (next < n) {
          next++;
          try { await conn.callTool(ms, {}); } catch (e) {
            errors++;
            if (samples.length < 3) samples.push(String(e?.message ?? JSON.stringify(e)).slice(0, 300));
          }
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      return { errors, samples };
    },
    async close() { await conn?.close(); conn = null; },
    throughput: (opts) => runThroughput(stack, opts),
  };
}
