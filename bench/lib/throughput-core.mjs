// Decode + dispatch throughput, shared by the Node runner and the Chromium page.
// One client of `stack` tracks K tasks with pushes on; the server then writes a recorded stream of
// M task status pushes (round-robin over the K tasks, the last push per task says "final") to the
// client's open stream in one go. Time runs from just before the server is told to write until every
// task's "final" status reached the app (status callback or, for SDK v1, its notification handler).
// Stacks may coalesce pushes; only the arrival of every final status counts.
export async function runThroughput(stack, { url, base, dialect, K, M, timeoutMs = 60_000 }) {
  const finals = new Set();
  let seen = 0;
  let resolveAll;
  const all = new Promise((r) => { resolveAll = r; });
  const mark = (t) => {
    seen++;
    if (t?.statusMessage === "final" && t.taskId && !finals.has(t.taskId)) {
      finals.add(t.taskId);
      if (finals.size === K) resolveAll(performance.now());
    }
  };
  const conn = await stack.connect(url, { dialect, push: true, onPush: mark });
  const ids = (await Promise.all(Array.from({ length: K }, () => conn.callTool(3_600_000, { onStatus: mark })))).map((r) => r.taskId);
  await conn.listen?.(ids);
  await new Promise((r) => setTimeout(r, 300)); // first polls and stream setup settle
  seen = 0;
  const prep = await (await fetch(`${base}/bench/replay/prepare`, { method: "POST", body: JSON.stringify({ ids, M }) })).json();
  if (!prep.streams) { await conn.close().catch(() => {}); return { error: "no open push stream to replay into" }; }
  const t0 = performance.now();
  await fetch(`${base}/bench/replay/fire`, { method: "POST" });
  const t1 = await Promise.race([all, new Promise((r) => setTimeout(() => r(null), timeoutMs))]);
  const result = t1 === null
    ? { error: `only ${finals.size}/${K} final statuses arrived within ${timeoutMs} ms`, callbacks: seen }
    : { ms: t1 - t0, rate: M / ((t1 - t0) / 1000), callbacks: seen, bytes: prep.bytes };
  await Promise.race([conn.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
  return result;
}
