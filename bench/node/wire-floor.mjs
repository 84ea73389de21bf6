// A server's own floor for completion → outcome in a client's hands, measured on the wire with no client stack.
// argv[2] = JSON {kind, n?, minMs?, maxMs?, args?}: a tests/servers kind; n `slow_job` tasks created one after
// another, durations spread evenly over [minMs, maxMs] (so a server that re-checks on an interval shows its phase).
// One raw session (tests/servers/lib/wire.mjs: JSON-RPC by hand, fetch + SSE, or one WebSocket) with the GET
// listening stream open. Each task is asked `tasks/result` at once (held until it ends); a terminal
// `notifications/tasks/status` makes it ask `tasks/result` again at once (the fastest any client can react).
// Per task, ms from the completion to: (a) the terminal status push, (b) the held `tasks/result` answer,
// (c) the outcome in hand (the first of the held answer and the answer asked after the push).
// Completion = the terminal task's `lastUpdatedAt` (the server's clock; same machine), where the server keeps
// it; `inHandStandIn` measures (c) against the bench's stand-in instead (the time the server logged the
// `tools/call` + the work's duration), so it compares with the stacks' rows; `standInBias` = stand-in − completion.
// Prints one JSON line of {median, p95, n} per figure.
import { startServer } from "../../tests/servers/launch.mjs";
import { connect } from "../../tests/servers/lib/wire.mjs";
import { getStats } from "../lib/daemon.mjs";
import { median, p95 } from "../lib/stats.mjs";

const a = { n: 10, minMs: 2000, maxMs: 4000, ...JSON.parse(process.argv[2] ?? "{}") };
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const srv = await startServer(a.kind, { port: 0, args: a.args ?? [], timeoutMs: 30_000, log: false });
const entries = [];
const conn = await connect(srv.url, { push: (e) => entries.push({ ...e, abs: Date.now() }) }, { timeoutMs: a.maxMs + 60_000 });
const byId = new Map();
const inHand = (t) => { t.inHandAt ??= Date.now(); };
const incoming = conn.incoming.bind(conn);
conn.incoming = async (msg) => {
  const p = msg?.method === "notifications/tasks/status" ? msg.params : undefined;
  const t = p && TERMINAL.has(p.status) ? byId.get(p.taskId) : undefined;
  if (t && !t.pushedAt) {
    t.pushedAt = Date.now();
    t.pushedUpdate = p.lastUpdatedAt;
    conn.request("tasks/result", { taskId: t.taskId }).then(() => inHand(t), () => {});
  }
  return incoming(msg);
};
const stat = (xs) => (xs.length ? { median: median(xs), p95: p95(xs), n: xs.length } : { n: 0 });
try {
  await conn.initialize({});
  await conn.listen();
  const tasks = [];
  for (let i = 0; i < a.n; i++) {
    const ms = Math.round(a.minMs + ((a.maxMs - a.minMs) * i) / Math.max(1, a.n - 1));
    const r = await conn.request("tools/call", { name: "slow_job", arguments: { ms }, task: { ttl: 600_000 } });
    const taskId = r.result?.task?.taskId;
    if (!taskId) throw new Error(`no task: ${JSON.stringify(r).slice(0, 200)}`);
    const t = { taskId, ms };
    byId.set(taskId, t);
    t.held = conn.request("tasks/result", { taskId }).then(() => { t.heldAt = Date.now(); inHand(t); });
    tasks.push(t);
  }
  await Promise.all(tasks.map((t) => t.held));
  await new Promise((r) => setTimeout(r, 300));
  const st = srv.statsUrl ? await getStats(srv.statsUrl) : { requests: [] };
  const calls = st.requests.filter((r) => r.method === "tools/call");
  const f = { notify: [], held: [], inHand: [], inHandStandIn: [], standInBias: [] };
  for (const [i, t] of tasks.entries()) {
    const standIn = calls.length === tasks.length ? calls[i].t + t.ms : NaN;
    if (Number.isFinite(standIn)) f.inHandStandIn.push(t.inHandAt - standIn);
    const done = Date.parse(t.pushedUpdate ?? (await conn.request("tasks/get", { taskId: t.taskId })).result?.lastUpdatedAt ?? "");
    // A task store that keeps no terminal lastUpdatedAt (or forgets the task once its result was read) gives none.
    if (!Number.isFinite(done) || done < calls[i]?.t + t.ms - 1000) continue;
    if (t.pushedAt) f.notify.push(t.pushedAt - done);
    f.held.push(t.heldAt - done);
    f.inHand.push(t.inHandAt - done);
    if (Number.isFinite(standIn)) f.standInBias.push(standIn - done);
  }
  process.stdout.write(JSON.stringify({ kind: a.kind, ...Object.fromEntries(Object.entries(f).map(([k, xs]) => [k, stat(xs)])) }) + "\n");
} finally {
  await conn.close().catch(() => {});
  await srv.stop();
}
