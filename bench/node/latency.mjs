// Completion -> callback latency in one Node process for one stack (see lib/latency-core.mjs).
// argv[2] = JSON {stack, dialect, push, url, statsUrl, n, minMs, maxMs, seed, tool?, transport?, sequential?}
// n tasks with work durations spread over [minMs, maxMs]; one watcher each (the call itself).
// With `barrier: true` the child prints {"ready":true} once connected and creates its tasks only when a line
// arrives on stdin: stacks measured side by side then start together, so none is measured during another's
// start-up (loading a stack costs seconds of CPU).
import { setMaxListeners } from "node:events";
import { loadStack } from "../lib/stacks.mjs";
import { getStats } from "../lib/daemon.mjs";
import { runTasks, measureTasks } from "../lib/latency-core.mjs";

setMaxListeners(0);
// A stack that cannot run against this server says why (one JSON line, as a result would).
process.on("uncaughtException", (e) => {
  process.stdout.write(JSON.stringify({ error: String(e?.message ?? e).split("\n")[0] }) + "\n");
  process.exit(1);
});
const a = JSON.parse(process.argv[2]);
const stack = await loadStack(a.stack);
const conn = await stack.connect(a.url, { dialect: a.dialect, push: a.push, tool: a.tool, transport: a.transport });
if (a.barrier) {
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
  await new Promise((r) => { process.stdin.once("data", r); process.stdin.once("end", r); });
  process.stdin.destroy();
}
const run = await runTasks(conn, a);
const m = measureTasks(await getStats(a.statsUrl), run, { sequential: a.sequential });
process.stdout.write(JSON.stringify({ latencies: m.latencies, requests: m.requests, outcomes: run.outcomes, missing: m.missing }) + "\n");
conn.close().catch(() => {});
setTimeout(() => process.exit(0), 200);
