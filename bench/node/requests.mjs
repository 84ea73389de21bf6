// Request-count runs in one Node process for one stack: each run has its own client and its own server.
// argv[2] = JSON {stack, dialect, push, runs:[{key, url, statsUrl, W, T, P, N, taskMs}]}
// For each run: T tasks created through the stack's call API (that call is watcher 1), W-1 more watchers
// per task, then the server's request log is read for the window [all watchers attached, +N·P).
// Prints one JSON line: {key: {perTask:[requests per interval for each task], requests, byMethod, ...}}.
import { setMaxListeners } from "node:events";
import { loadStack } from "../lib/stacks.mjs";
import { getStats } from "../lib/daemon.mjs";
import { perTaskRates } from "../lib/stats.mjs";

setMaxListeners(0);
const a = JSON.parse(process.argv[2]);
const stack = await loadStack(a.stack);

async function one(run) {
  const errors = [];
  const onDone = (o) => { if (o?.status === "error") errors.push(o.error); };
  const conn = await stack.connect(run.url, { dialect: a.dialect, push: a.push, tool: a.tool });
  const ids = await Promise.all(Array.from({ length: run.T }, () => conn.callTool(run.taskMs, { onDone }).then((r) => r.taskId)));
  await conn.listen?.(ids);
  for (const id of ids) for (let w = 1; w < run.W; w++) conn.watch(id, { onDone });
  const t0 = performance.timeOrigin + performance.now();
  const windowMs = run.N * run.P;
  await new Promise((r) => setTimeout(r, windowMs + 100));
  const { perTask, requests, byMethod } = perTaskRates((await getStats(run.statsUrl)).requests, ids, t0, run.P, run.N);
  conn.close().catch(() => {});
  return { perTask, requests, byMethod, errors: errors.slice(0, 2), errorCount: errors.length };
}

const results = await Promise.all(a.runs.map(async (run) => {
  try { return [run.key, await one(run)]; } catch (e) { return [run.key, { error: String(e?.stack ?? e) }]; }
}));
process.stdout.write(JSON.stringify(Object.fromEntries(results)) + "\n");
setTimeout(() => process.exit(0), 200);
