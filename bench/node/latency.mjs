// Completion -> callback latency in one Node process for one stack.
// argv[2] = JSON {stack, dialect, push, url, statsUrl, n, minMs, maxMs, seed, tool?, transport?}
// n tasks with work durations spread over [minMs, maxMs]; one watcher each (the call itself).
// Latency = time the stack hands the outcome to the app − time the server completed the task: the
// completion time the server logs (bench servers); tests/servers kinds log none, so there (`sequential`)
// the tasks are created one after another and each completes at the time the server logged its
// `tools/call` + the work's duration (same clock, same machine; the server's own lag to finish is counted
// for every stack alike).
// Requests per task: the requests naming the task, plus the task-less ones after the calls (listen
// streams, task lists) shared over all tasks; the session's setup and the calls themselves are not counted.
// With `barrier: true` the child prints {"ready":true} once connected and creates its tasks only when a line
// arrives on stdin: stacks measured side by side then start together, so none is measured during another's
// start-up (loading a stack costs seconds of CPU).
import { setMaxListeners } from "node:events";
import { loadStack } from "../lib/stacks.mjs";
import { getStats } from "../lib/daemon.mjs";

setMaxListeners(0);
// A stack that cannot run against this server says why (one JSON line, as a result would).
process.on("uncaughtException", (e) => {
  process.stdout.write(JSON.stringify({ error: String(e?.message ?? e).split("\n")[0] }) + "\n");
  process.exit(1);
});
const a = JSON.parse(process.argv[2]);
const stack = await loadStack(a.stack);
let seed = a.seed >>> 0;
const rnd = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const conn = await stack.connect(a.url, { dialect: a.dialect, push: a.push, tool: a.tool, transport: a.transport });
if (a.barrier) {
  process.stdout.write(JSON.stringify({ ready: true }) + "\n");
  await new Promise((r) => { process.stdin.once("data", r); process.stdin.once("end", r); });
  process.stdin.destroy();
}
const doneAt = new Map();
const outcomes = {};
let pending = a.n;
let allDone;
const finished = new Promise((r) => { allDone = r; });
const durations = new Map();
const create = async () => {
  const ms = Math.round(a.minMs + rnd() * (a.maxMs - a.minMs));
  let id;
  const early = [];
  const r = await conn.callTool(ms, {
    onDone: (o) => {
      const t = performance.timeOrigin + performance.now();
      if (id === undefined) early.push(t); else doneAt.set(id, t);
      outcomes[o?.status ?? "?"] = (outcomes[o?.status ?? "?"] ?? 0) + 1;
      if (--pending === 0) allDone();
    },
  });
  id = r.taskId;
  durations.set(id, ms);
  if (early.length) doneAt.set(id, early[0]);
  return id;
};
const ids = [];
if (a.sequential) for (let i = 0; i < a.n; i++) ids.push(await create());
else ids.push(...(await Promise.all(Array.from({ length: a.n }, create))));
await conn.listen?.(ids);
await Promise.race([finished, new Promise((r) => setTimeout(r, a.maxMs + 30_000))]);
const st = await getStats(a.statsUrl);
const calls = st.requests.filter((r) => r.method === "tools/call");
const logged = new Map(a.sequential && calls.length === ids.length ? ids.map((id, i) => [id, calls[i].t + durations.get(id)]) : []);
const completedAt = (id) => (st.completions ? st.completions[id] : logged.get(id));
const lat = ids.map((id) => (doneAt.has(id) && completedAt(id) ? doneAt.get(id) - completedAt(id) : NaN));
const SETUP = new Set(["initialize", "notifications/initialized", "server/discover", "tools/list", "tools/call"]);
const named = new Map(ids.map((id) => [id, 0]));
let shared = 0;
for (const r of st.requests) {
  if (r.taskId && named.has(r.taskId)) named.set(r.taskId, named.get(r.taskId) + 1);
  else if (!SETUP.has(r.method)) shared++;
}
const requests = ids.map((id) => named.get(id) + shared / ids.length);
process.stdout.write(JSON.stringify({ latencies: lat, requests, outcomes, missing: lat.filter((x) => !Number.isFinite(x)).length }) + "\n");
conn.close().catch(() => {});
setTimeout(() => process.exit(0), 200);
