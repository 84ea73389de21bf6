// Persistence and resume: reloads, tasks that finished while no tab was open, scoping by server and
// identity, results not stored by default, input routing, and tabs: false. Headless Chromium + the
// real ts-sdk test server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../servers/launch.mjs";
import { startProxy } from "../faults/proxy.mjs";
import { allDone, browser, dones, handleDones, servePage, sleep, stats, until } from "./harness.mjs";

servePage();

test("reload mid-task: onTaskDoneOnce fires exactly once, and never again after another reload", { timeout: 90_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  const b = await browser();
  try {
    const p = await b.page();
    await p.evaluate((u) => T.connect(u), server.url);
    const id = await p.evaluate(() => T.call(0, "long_job", { steps: 4, stepMs: 1000 }));
    await sleep(1_000);
    await b.reload(p);
    await p.evaluate((u) => T.connect(u), server.url);
    assert.deepEqual(await p.evaluate(() => T.resume()), [id], "resume() re-attaches the unfinished task");
    const d = await until(() => dones(b.events, id).length > 0, 20_000);
    assert.ok(d, "the resumed task finished");
    await sleep(1_000);
    assert.equal(dones(b.events, id).length, 1);
    assert.equal(dones(b.events, id)[0].status, "completed");
    assert.match((await p.evaluate(() => T.results()))[0], /long_job done: 4 steps/);

    await b.reload(p);
    await p.evaluate((u) => T.connect(u), server.url);
    assert.deepEqual(await p.evaluate(() => T.resume()), [], "nothing left to resume");
    await p.evaluate((id) => T.watch(0, id), id);
    assert.equal(await p.evaluate(() => T.settle(10_000)), 1, "watching the finished task settles");
    // Results were not stored: the handle gets it from the server again (same session).
    assert.match((await p.evaluate(() => T.results()))[0], /long_job done: 4 steps/);
    await sleep(1_000);
    assert.equal(dones(b.events, id).length, 1, "onTaskDoneOnce did not fire again");
    assert.equal(handleDones(b.events, 0).length, 2, "each page load's handle got its own onDone");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("a task that finished while no tab was open fires onTaskDoneOnce once on the next load", { timeout: 60_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  const b = await browser();
  try {
    const p = await b.page();
    await p.evaluate((u) => T.connect(u), server.url);
    const id = await p.evaluate(() => T.call(0, "long_job", { steps: 2, stepMs: 800 }));
    await sleep(300);
    await p.close();
    await sleep(3_500);
    const q = await b.page();
    await q.evaluate((u) => T.connect(u), server.url);
    assert.deepEqual(await q.evaluate(() => T.resume()), [id]);
    assert.ok(await until(() => dones(b.events, id).length > 0, 15_000), "onTaskDoneOnce fired");
    await sleep(1_000);
    const d = dones(b.events, id);
    assert.equal(d.length, 1);
    assert.equal(d[0].status, "completed");
  } finally {
    await b.close();
    await server.stop();
  }
});

test("tasks of server A or identity A never appear for server B or identity B", { timeout: 90_000 }, async () => {
  const [A, B] = await Promise.all([startServer("ts-sdk", { args: ["--no-get"] }), startServer("ts-sdk", { args: ["--no-get"] })]);
  const b = await browser();
  try {
    const p = await b.page();
    const q = await b.page();
    const alice = await p.evaluate((u) => T.connect(u, { identity: "alice" }), A.url);
    const id = await p.evaluate((ci) => T.call(ci, "long_job", { steps: 30, stepMs: 1000 }), alice);
    const bob = await p.evaluate((u) => T.connect(u, { identity: "bob" }), A.url);
    const nobody = await p.evaluate((u) => T.connect(u), A.url);
    const aliceB = await p.evaluate((u) => T.connect(u, { identity: "alice" }), B.url);
    const alice2 = await q.evaluate((u) => T.connect(u, { identity: "alice" }), A.url);
    const bob2 = await q.evaluate((u) => T.connect(u, { identity: "bob" }), A.url);
    await sleep(1_500);
    assert.deepEqual(await p.evaluate((c) => c.map((i) => T.role(i)), [alice, bob, nobody, aliceB]), ["leader", "leader", "leader", "leader"]);
    assert.deepEqual(await q.evaluate((c) => c.map((i) => T.role(i)), [alice2, bob2]), ["follower", "follower"]);
    for (const ci of [bob, nobody, aliceB]) assert.deepEqual(await p.evaluate((ci) => T.resume(ci), ci), [], `client ${ci} sees no task`);
    assert.deepEqual(await q.evaluate((ci) => T.resume(ci), bob2), []);
    assert.deepEqual(await q.evaluate((ci) => T.resume(ci), alice2), [id], "the same server and identity sees it (another tab)");
    await sleep(2_000);
    // No transition of alice's task reached any client of another scope (channels are per scope too).
    const leaked = b.events.filter((e) => e.taskId === id && !((e.page === 0 && e.client === alice) || (e.page === 1 && e.client === alice2)));
    assert.deepEqual(leaked, []);
    assert.ok(b.events.some((e) => e.type === "status" && e.taskId === id && e.page === 1 && e.client === alice2), "alice's other tab hears about it");
    // Storage: every record of the task is alice's on server A.
    const dump = await p.evaluate(() => T.dumpStorage());
    const rows = dump.indexedDB.filter((r) => r.row.includes(id));
    assert.ok(rows.length >= 1, "the task is stored");
    for (const r of rows) {
      const v = JSON.parse(JSON.parse(r.row).v);
      assert.equal(v.url, A.url);
      assert.equal(v.identity, "alice");
    }
    // B's server never heard of it.
    const sb = await stats(B);
    assert.ok(!sb.requests.some((r) => r.taskId === id));
  } finally {
    await b.close();
    await Promise.all([A.stop(), B.stop()]);
  }
});

test("results are not stored unless persistResults is set", { timeout: 90_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  const RESULT = "long_job done: 1 steps";
  const scenario = async (opts) => {
    const b = await browser();
    try {
      const p = await b.page();
      await p.evaluate(([u, o]) => T.connect(u, o), [server.url, opts]);
      const id = await p.evaluate(() => T.call(0, "long_job", { steps: 1, stepMs: 200 }));
      assert.equal(await p.evaluate(() => T.settle(15_000)), 1);
      assert.match((await p.evaluate(() => T.results()))[0], /long_job done: 1 steps/);
      await sleep(1_000);
      const dump = await p.evaluate(() => T.dumpStorage());
      assert.equal(await p.evaluate(() => T.storage()), "indexedDB");
      const records = dump.indexedDB.map((r) => JSON.parse(JSON.parse(r.row).v));
      return { id, records, text: JSON.stringify(dump) };
    } finally {
      await b.close();
    }
  };
  try {
    const plain = await scenario({});
    const rec = plain.records.find((r) => r.taskId === plain.id);
    assert.ok(rec, "the task record is stored");
    assert.equal(rec.status, "completed");
    assert.equal(rec.fired, true, "with its ledger entry");
    assert.equal(rec.snapshot.task.outcome, undefined, "no outcome in the record");
    assert.ok(!plain.text.includes(RESULT), "no result text anywhere in storage");
    assert.ok(!plain.text.includes("outcome"), "no outcome field anywhere in storage");
    const opted = await scenario({ persistResults: true });
    assert.ok(opted.text.includes(RESULT), "persistResults: the result is stored");
  } finally {
    await server.stop();
  }
});

test("an input request goes to the tab that follows the task; its answer reaches the server", { timeout: 60_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  const b = await browser();
  try {
    const [p0, p1] = [await b.page(), await b.page()];
    await p0.evaluate((u) => T.connect(u, { answer: "from the leader" }), server.url);
    await p1.evaluate((u) => T.connect(u, { answer: "from the follower" }), server.url);
    assert.equal(await p1.evaluate(() => T.role()), "follower");
    const id = await p1.evaluate(() => T.call(0, "ask_input", { message: "who?" }));
    assert.equal(await p1.evaluate(() => T.settle(20_000)), 1);
    assert.match((await p1.evaluate(() => T.results()))[0], /ask_input got answer: from the follower/);
    const inputs = b.events.filter((e) => e.type === "input");
    assert.deepEqual(inputs.map((e) => [e.page, e.taskId, e.method]), [[1, id, "elicitation/create"]]);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("without tab coordination (tabs: false) every tab leads, each tab's onDone fires, onTaskDoneOnce once", { timeout: 60_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "500"] });
  const b = await browser();
  try {
    const [p0, p1] = [await b.page(), await b.page()];
    await p0.evaluate((u) => T.connect(u, { tabs: false }), server.url);
    const id = await p0.evaluate(() => T.call(0, "long_job", { steps: 3, stepMs: 700 }));
    await sleep(500);
    await p1.evaluate((u) => T.connect(u, { tabs: false }), server.url);
    await p1.evaluate((id) => T.watch(0, id), id);
    assert.deepEqual(await Promise.all([p0, p1].map((p) => p.evaluate(() => T.role()))), ["leader", "leader"]);
    assert.deepEqual(await Promise.all([p0, p1].map((p) => p.evaluate(() => T.settle(15_000)))), [1, 1]);
    await allDone(b.events, [id]);
    assert.equal(dones(b.events, id).length, 1);
    assert.deepEqual([0, 1].map((page) => handleDones(b.events, page).length), [1, 1], "onDone in both tabs");
    // Both tabs polled (no coordination), on the one persisted session.
    const s = await stats(server);
    assert.equal(s.byMethod.initialize, 1);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("onTaskDoneOnce that fired never fires again, even once the server forgot the task (results not stored)", { timeout: 60_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  const TTL_MS = 3_000;
  const b = await browser();
  try {
    const p = await b.page();
    await p.evaluate((u) => T.connect(u), server.url);
    const id = await p.evaluate((ttlMs) => T.call(0, "long_job", { steps: 1, stepMs: 200 }, { ttlMs }), TTL_MS);
    assert.equal(await p.evaluate(() => T.settle(15_000)), 1);
    await allDone(b.events, [id]);
    assert.deepEqual(dones(b.events, id).map((d) => [d.kind, d.status]), [["finished", "completed"]]);
    await p.close();
    await sleep(TTL_MS + 2_000); // the server drops the task after its ttl

    const q = await b.page();
    await q.evaluate((u) => T.connect(u), server.url);
    assert.deepEqual(await q.evaluate(() => T.resume()), [], "nothing left to resume");
    await q.evaluate((id) => T.watch(0, id), id);
    assert.equal(await q.evaluate(() => T.settle(15_000)), 1, "watching the forgotten task settles");
    const [res] = await q.evaluate(() => T.results());
    assert.match(res, /^error: /, "the server forgot the task: its result is gone");
    await sleep(1_000);
    assert.equal(dones(b.events, id).length, 1, `onTaskDoneOnce did not fire again (${JSON.stringify(dones(b.events, id))})`);
    const mine = handleDones(b.events, 1).filter((d) => d.taskId === id);
    assert.equal(mine.length, 1, "the new page's own handle still ends (onDone is per tab)");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("a task whose result cannot be had is settled once: onTaskDoneOnce once, never resumed again", { timeout: 60_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--poll-ms", "500"] });
  // every tasks/result is answered "task not found": the task completes, its result cannot be had
  const proxy = await startProxy({ target: server.url, rules: [{ fault: "unknown-task", method: "tasks/result" }] });
  const b = await browser();
  try {
    const p = await b.page();
    await p.evaluate((u) => T.connect(u), proxy.url);
    const id = await p.evaluate(() => T.call(0, "long_job", { steps: 1, stepMs: 300 }));
    assert.equal(await p.evaluate(() => T.settle(20_000)), 1);
    assert.match((await p.evaluate(() => T.results()))[0], /^error: the task completed but its result could not be fetched/);
    await allDone(b.events, [id]);
    assert.deepEqual(dones(b.events, id).map((d) => d.kind), ["failed"], "onTaskDoneOnce fired once for the failed end");

    for (let load = 0; load < 2; load++) {
      await b.reload(p);
      await p.evaluate((u) => T.connect(u), proxy.url);
      assert.deepEqual(await p.evaluate(() => T.resume()), [], `reload ${load + 1}: nothing to resume`);
    }
    await sleep(1_000);
    assert.equal(dones(b.events, id).length, 1, "onTaskDoneOnce did not fire again");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await proxy.stop();
    await server.stop();
  }
});
