// Completion -> callback latency, shared by the Node runner (node/latency.mjs) and the Chromium page
// (browser/harness.mjs): `runTasks` creates the tasks through a stack's adapter and records when each
// outcome reached the app; `measureTasks` (Node side) reads the server's log and turns both into
// latencies and requests per task.

const SETUP = new Set(["initialize", "notifications/initialized", "server/discover", "tools/list", "tools/call"]);

/**
 * n tasks with work durations spread over [minMs, maxMs] (seeded), created together (or one after another
 * with `sequential`); W − 1 extra watchers per task once all exist. Resolves once every outcome arrived or
 * maxMs + 30 s passed, with {ids, durations, doneAt (epoch ms by id), outcomes}.
 */
export async function runTasks(conn, { n, minMs, maxMs, seed, sequential = false, W = 1 }) {
  let s = seed >>> 0;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const doneAt = {};
  const outcomes = {};
  const durations = {};
  let pending = n;
  let allDone;
  const finished = new Promise((r) => { allDone = r; });
  const create = async () => {
    const ms = Math.round(minMs + rnd() * (maxMs - minMs));
    let id;
    const early = [];
    const r = await conn.callTool(ms, {
      onDone: (o) => {
        const t = performance.timeOrigin + performance.now();
        if (id === undefined) early.push(t); else doneAt[id] = t;
        outcomes[o?.status ?? "?"] = (outcomes[o?.status ?? "?"] ?? 0) + 1;
        if (--pending === 0) allDone();
      },
    });
    id = r.taskId;
    durations[id] = ms;
    if (early.length) doneAt[id] = early[0];
    return id;
  };
  const ids = [];
  if (sequential) for (let i = 0; i < n; i++) ids.push(await create());
  else ids.push(...(await Promise.all(Array.from({ length: n }, create))));
  for (let w = 1; w < W; w++) for (const id of ids) conn.watch(id, {});
  await conn.listen?.(ids);
  await Promise.race([finished, new Promise((r) => setTimeout(r, maxMs + 30_000))]);
  return { ids, durations, doneAt, outcomes };
}

/**
 * Latency = when the outcome reached the app − when the server completed the task (the bench servers log
 * it; tests/servers kinds do not: there, with `sequential`, the `tools/call` the server logged + the work's
 * duration). Requests per task: those naming the task plus the task-less ones after the calls (listen
 * streams, task lists) shared over all tasks; per interval: that over the task's life in intervals P.
 */
export function measureTasks(st, { ids, durations, doneAt }, { sequential = false, P = 1000 } = {}) {
  const calls = st.requests.filter((r) => r.method === "tools/call");
  const logged = new Map(sequential && calls.length === ids.length ? ids.map((id, i) => [id, calls[i].t + durations[id]]) : []);
  const completedAt = (id) => (st.completions ? st.completions[id] : logged.get(id));
  const latencies = ids.map((id) => (doneAt[id] !== undefined && completedAt(id) ? doneAt[id] - completedAt(id) : NaN));
  const named = new Map(ids.map((id) => [id, 0]));
  let shared = 0;
  for (const r of st.requests) {
    if (r.taskId && named.has(r.taskId)) named.set(r.taskId, named.get(r.taskId) + 1);
    else if (!SETUP.has(r.method)) shared++;
  }
  const requests = ids.map((id) => named.get(id) + shared / ids.length);
  const perInterval = ids.map((id, i) => requests[i] / Math.max(1, durations[id] / P));
  return { latencies, requests, perInterval, missing: latencies.filter((x) => !Number.isFinite(x)).length };
}
