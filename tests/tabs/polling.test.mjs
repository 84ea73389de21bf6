// One poller per task across tabs: three tabs cost the server what one costs. Headless Chromium + the
// real ts-sdk test server. (Catch-up polls when a tab becomes visible or goes online are tested natively:
// cargo test coord::; each task's schedule after a frozen page: cargo test cadence.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../servers/launch.mjs";
import { browser, resetStats, servePage, sleep, stats } from "./harness.mjs";

servePage();

test("three tabs watching the same 20 tasks cost the server what one tab costs", { timeout: 180_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
  const WINDOW = 8_000;
  const run = async (tabs) => {
    const b = await browser();
    try {
      const pages = [];
      for (let i = 0; i < tabs; i++) pages.push(await b.page());
      await pages[0].evaluate((u) => T.connect(u), server.url);
      const ids = await pages[0].evaluate(() => T.callMany(0, 20, "long_job", { steps: 90, stepMs: 1000 }));
      for (const p of pages.slice(1)) {
        await p.evaluate((u) => T.connect(u), server.url);
        await p.evaluate((ids) => T.watchMany(0, ids), ids);
      }
      const roles = await Promise.all(pages.map((p) => p.evaluate(() => T.role())));
      await sleep(2_500);
      await resetStats(server);
      const t0 = Date.now();
      await sleep(WINDOW);
      const s = await stats(server);
      const gets = s.requests.filter((r) => r.method === "tasks/get" && ids.includes(r.taskId));
      const seenBy = pages.map((_, i) => new Set(b.events.filter((e) => e.page === i && e.type === "status" && e.at >= t0).map((e) => e.taskId)).size);
      return { ids, gets, roles, seenBy, sessions: new Set(gets.map((r) => r.session)), errors: b.errors };
    } finally {
      await b.close();
    }
  };
  try {
    const one = await run(1);
    const three = await run(3);
    assert.deepEqual(one.roles, ["leader"]);
    assert.deepEqual(three.roles, ["leader", "follower", "follower"]);
    assert.equal(three.sessions.size, 1, "one leader, one session, does all the polling");
    console.log(`tasks/get in ${WINDOW} ms for 20 tasks: one tab ${one.gets.length}, three tabs ${three.gets.length}`);
    assert.ok(one.gets.length > 20, `the single tab polls (${one.gets.length})`);
    // Jittered backoff: the two runs differ a little; three independent pollers would triple it.
    assert.ok(three.gets.length <= one.gets.length * 1.35 + 5, `three tabs ${three.gets.length} vs one ${one.gets.length}`);
    const perTask = new Map();
    for (const r of three.gets) perTask.set(r.taskId, (perTask.get(r.taskId) ?? 0) + 1);
    for (const [id, n] of perTask) assert.ok(n <= WINDOW / 1000 + 1, `task ${id} polled ${n} times in ${WINDOW} ms (server asked 1000 ms)`);
    // Every tab still hears about (nearly) every task: the followers get the leader's statuses.
    for (const n of three.seenBy) assert.ok(n >= 18, `each tab saw statuses of ${three.seenBy} tasks`);
    assert.deepEqual([...one.errors, ...three.errors], []);
  } finally {
    await server.stop();
  }
});
