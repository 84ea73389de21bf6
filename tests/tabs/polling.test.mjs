// One poller per task across tabs: three tabs cost the server what one costs; a tab becoming visible or
// going online makes the leader catch up at once. Headless Chromium + the real ts-sdk test server.
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

test("a tab becoming visible, and going online, make the leader poll every task within an interval", { timeout: 150_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
  const b = await browser();
  try {
    const [p0, p1] = [await b.page(), await b.page()];
    await p0.evaluate((u) => T.connect(u), server.url);
    const ids = await p0.evaluate(() => T.callMany(0, 8, "long_job", { steps: 90, stepMs: 1000 }));
    await p1.evaluate((u) => T.connect(u), server.url);
    await p1.evaluate(() => T.setVisible(false));
    await sleep(45_000); // each task's gap has grown to a tenth of its age (4.5 s)
    /** Distinct tasks polled within `ms` of running `trigger` (the clock starts before it). */
    const polledWithin = async (ms, trigger = async () => {}) => {
      const t0 = Date.now();
      await trigger();
      await sleep(ms - (Date.now() - t0));
      const gets = (await stats(server)).requests.filter((r) => r.method === "tasks/get" && r.t >= t0);
      return new Set(gets.map((r) => r.taskId)).size;
    };
    await resetStats(server);
    const idle = await polledWithin(1_500);
    const visible = await polledWithin(1_500, () => p1.evaluate(() => T.setVisible(true)));
    await sleep(5_000); // the engine throttles catch-ups to one per 5 s
    const online = await polledWithin(1_500, () => p1.evaluate(() => window.dispatchEvent(new Event("online"))));
    console.log(`tasks polled within 1.5 s: idle ${idle}, after visible ${visible}, after online ${online} (of ${ids.length})`);
    assert.equal(visible, ids.length);
    assert.equal(online, ids.length);
    assert.ok(idle < ids.length, `without a trigger only some tasks are due (${idle})`);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("a page that froze (a busy main thread, a machine that slept) resumes each task's schedule: no burst, no gap under the interval", { timeout: 120_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
  const b = await browser();
  try {
    const p0 = await b.page();
    await p0.evaluate((u) => T.connect(u), server.url);
    const ids = await p0.evaluate(() => T.callMany(0, 8, "long_job", { steps: 40, stepMs: 1000 }));
    await sleep(3_000);
    // The page runs nothing for 6 s; its clock (performance.now) goes on, so every poll timer is late.
    const frozenAt = Date.now();
    await p0.evaluate(() => setTimeout(() => { const end = Date.now() + 6_000; while (Date.now() < end); }, 50));
    await sleep(10_000);
    const gets = (await stats(server)).requests.filter((r) => r.method === "tasks/get" && ids.includes(r.taskId));
    const resumed = gets.find((r) => r.t > frozenAt + 3_000)?.t;
    assert.ok(resumed, "polling resumed");
    const firsts = ids.map((id) => gets.find((r) => r.taskId === id && r.t >= resumed)?.t);
    assert.ok(firsts.every(Number.isFinite), "every task polled after the freeze");
    const crowd = Math.max(...firsts.map((t) => firsts.filter((u) => u >= t && u < t + 50).length));
    console.log(`after a 6 s freeze: first polls ${firsts.map((t) => t - resumed).sort((a, c) => a - c).join(", ")} ms after the first; at most ${crowd} within 50 ms`);
    assert.ok(crowd <= ids.length / 2, `${crowd} of ${ids.length} tasks polled within 50 ms after the freeze`);
    for (const id of ids) {
      const ts = gets.filter((r) => r.taskId === id).map((r) => r.t);
      for (let i = 1; i < ts.length; i++) assert.ok(ts[i] - ts[i - 1] >= 900, `${id}: polls ${ts[i] - ts[i - 1]} ms apart`);
    }
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});
