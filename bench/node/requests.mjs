// One request-count run in its own Node process: one client of one stack, T tasks, W watchers each.
// argv[2] = JSON {stack, dialect, push, url, statsUrl, W, T, P, N, taskMs}
// Prints one JSON line: requests the server saw in the window [all watchers attached, + N·P).
import { loadStack } from "../lib/stacks.mjs";
import { getStats } from "../lib/daemon.mjs";

const a = JSON.parse(process.argv[2]);
const stack = await loadStack(a.stack);
const errors = [];
const onDone = (o) => { if (o?.status === "error") errors.push(o.error); };
const conn = await stack.connect(a.url, { dialect: a.dialect, push: a.push });
const ids = await Promise.all(Array.from({ length: a.T }, () => conn.callTool(a.taskMs, { onDone }).then((r) => r.taskId)));
await conn.listen?.(ids);
for (const id of ids) for (let w = 1; w < a.W; w++) conn.watch(id, { onDone });
const t0 = performance.timeOrigin + performance.now();
const windowMs = a.N * a.P;
await new Promise((r) => setTimeout(r, windowMs + 50));
const st = await getStats(a.statsUrl);
const inWin = st.requests.filter((r) => r.t >= t0 && r.t < t0 + windowMs);
const byMethod = {};
for (const r of inWin) byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
const setupByMethod = {};
for (const r of st.requests.filter((r) => r.t < t0)) setupByMethod[r.method] = (setupByMethod[r.method] ?? 0) + 1;
process.stdout.write(JSON.stringify({
  requests: inWin.length,
  perTaskPerInterval: inWin.length / (a.T * a.N),
  byMethod, setupByMethod, errors: errors.slice(0, 3), errorCount: errors.length,
}) + "\n");
await Promise.race([conn.close(), new Promise((r) => setTimeout(r, 2000))]);
process.exit(0);
