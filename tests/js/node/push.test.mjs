// Completion at push speed on real legacy servers, in Node: the driver detects the `node` link (no
// per-origin connection limit), so each running task holds a blocking `tasks/result` that carries
// its outcome; on `link: "http1"` (a browser's 6 connections) two running tasks hold theirs, a third
// slot stays for a task asking for input, and the others are polled and fetch it once a poll saw the end.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

const TASK_MS = 3_000;

/** Runs 3 slow_job tasks; returns the server's log of the requests naming them and when each was sent. */
async function run(url, statsUrl, options) {
  await fetch(statsUrl.replace(/\/stats$/, "/stats/reset"), { method: "POST" });
  const client = await McpTaskClient.connect(url, { dialect: "legacy", ...options });
  try {
    const started = Date.now();
    const handles = await Promise.all([0, 1, 2].map(() => client.callTool("slow_job", { ms: TASK_MS }, { task: "always" })));
    const results = await Promise.all(handles.map((h) => h.result()));
    for (const r of results) assert.match(JSON.stringify(r), /slow_job/);
    const ids = new Set(handles.map((h) => h.id));
    const { requests } = await (await fetch(statsUrl)).json();
    return { started, named: requests.filter((r) => ids.has(r.taskId)), ids };
  } finally {
    await client.close();
  }
}

// tasks/result requests per task: the TS SDK's held stream notices the end only at its next store read, so
// once seen to lag, its push closes the stream and one more request answers at once (1 or 2 per task, as the
// store reads fall). Python's held stream brings the end with its push (1), unless its event loop is busy for
// more than the client's grace after the push (seen beside two other test stages): then, as for the TS SDK, one
// more request answers at once (2). rmcp 2 pushes nothing: its held stream alone brings the end (1).
const RESULTS = { "ts-sdk": [1, 2], "python-http": [1, 2], rmcp2: [1, 1] };

for (const kind of Object.keys(RESULTS)) {
  describe(`held tasks/result on ${kind}`, () => {
    let server;
    before(async () => {
      server = await startServer(kind, { port: 0, timeoutMs: 30_000 });
    });
    after(async () => {
      await server?.stop();
    });

    test("node link: tasks/result sent while the task runs", { timeout: 60_000 }, async () => {
      const { started, named, ids } = await run(server.url, server.statsUrl, {});
      for (const id of ids) {
        const results = named.filter((r) => r.taskId === id && r.method === "tasks/result");
        const [min, max] = RESULTS[kind];
        assert.ok(results.length >= min && results.length <= max, `${id}: ${JSON.stringify(named)}`);
        assert.ok(results[0].t < started + TASK_MS, `held before the end: ${results[0].t - started} ms, ${JSON.stringify(named)}`);
      }
    });

    test("http1 link: two tasks hold their results, the third is polled and fetches its result after the end", { timeout: 60_000 }, async () => {
      const { started, named, ids } = await run(server.url, server.statsUrl, { link: "http1" });
      const of = (id, method) => named.filter((r) => r.taskId === id && r.method === method);
      const held = [...ids].filter((id) => of(id, "tasks/result").some((r) => r.t < started + TASK_MS));
      assert.ok(held.length >= 1 && held.length <= 2, `${held.length} held: ${JSON.stringify(named)}`);
      for (const id of ids) {
        const results = of(id, "tasks/result");
        assert.ok(results.length >= 1 && results.length <= RESULTS[kind][1], `${id}: ${JSON.stringify(named)}`);
        if (held.includes(id)) continue;
        assert.ok(of(id, "tasks/get").length >= 1, `${id} polled: ${JSON.stringify(named)}`);
        for (const r of results) assert.ok(r.t >= started + TASK_MS, `${id}: after the end: ${r.t - started} ms`);
      }
    });
  });
}
