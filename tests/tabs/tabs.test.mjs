// Acceptance tests of tab coordination and persistence (issue 5), in headless Chromium against the
// real TypeScript SDK test server (tests/servers, GET /stats counts every request it receives).
//
//   node --test tests/tabs/
//
// Needs pkg/ built (bash scripts/build.sh; MCP_TASK_CLIENT_PKG=<dir> to test another build), the ts-sdk
// server installed (bash tests/servers/install.sh ts-sdk) and tests/js deps (npm ci in tests/js).
// One browser context (fresh user-data-dir) per test; its pages are the tabs. Every wait is bounded.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../servers/launch.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? join(ROOT, "pkg");
const require = createRequire(join(ROOT, "tests", "js", "package.json"));
const { chromium } = require("playwright-core");

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".ts": "text/plain" };

let web; // static server for the page and pkg/

/** Serves tests/tabs/page at / and the package at /pkg/ on 127.0.0.1 (the page's origin). */
function serveStatic() {
  return new Promise((res) => {
    const server = createServer((req, rsp) => {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      const [base, rel] = path.startsWith("/pkg/") ? [PKG, path.slice(5)] : [join(HERE, "page"), path === "/" ? "index.html" : path.slice(1)];
      const file = normalize(join(base, rel));
      if (!file.startsWith(base) || !existsSync(file)) {
        rsp.writeHead(404).end();
        return;
      }
      rsp.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      rsp.end(readFileSync(file));
    });
    server.listen(0, "127.0.0.1", () => res({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }));
  });
}

before(async () => {
  assert.ok(existsSync(join(PKG, "index.js")), `no package at ${PKG}: run bash scripts/build.sh`);
  web = await serveStatic();
});

after(async () => {
  await web?.close();
});

/** A fresh browser context; its pages are tabs of one origin. `events` collects every page's reports. */
async function browser() {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tabs-"));
  const context = await chromium.launchPersistentContext(dir, { executablePath: "/usr/bin/chromium", headless: true, args: ARGS });
  const events = [];
  const pages = [];
  const errors = [];
  await context.exposeBinding("report", ({ page }, ev) => {
    events.push({ ...ev, page: pages.indexOf(page) });
  });
  return {
    context,
    events,
    pages,
    errors,
    async page() {
      const p = await context.newPage();
      pages.push(p);
      p.on("pageerror", (e) => errors.push(String(e)));
      if (process.env.DEBUG_TABS) p.on("console", (m) => console.log(`[page ${pages.indexOf(p)}] ${Date.now() % 100000} ${m.text()}`));
      await p.goto(`${web.url}/`);
      await p.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
      return p;
    },
    async reload(p) {
      await p.reload();
      await p.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stats(server) {
  return (await fetch(server.statsUrl)).json();
}

async function resetStats(server) {
  await fetch(`${server.statsUrl}/reset`, { method: "POST" });
}

/** Polls `f` until it returns a truthy value (returned) or `ms` pass (then the last value). */
async function until(f, ms, step = 100) {
  const end = Date.now() + ms;
  let v;
  while (Date.now() < end) {
    v = await f();
    if (v) return v;
    await sleep(step);
  }
  return v;
}

const dones = (events, id) => events.filter((e) => e.type === "done" && e.taskId === id);

/** Waits until every task's onDone was reported somewhere (claims are async), plus a grace period. */
async function allDone(events, ids, ms = 15_000) {
  await until(() => ids.every((id) => dones(events, id).length > 0), ms);
  await sleep(700);
}

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

test("closing the leader tab: another tab polls within 5 s, no task dropped, onDone once", { timeout: 120_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
  const b = await browser();
  try {
    const [p0, p1, p2] = [await b.page(), await b.page(), await b.page()];
    await p0.evaluate((u) => T.connect(u), server.url);
    const ids = await p0.evaluate(() => T.callMany(0, 20, "long_job", { steps: 12, stepMs: 1000 }));
    for (const p of [p1, p2]) {
      await p.evaluate((u) => T.connect(u), server.url);
      await p.evaluate((ids) => T.watchMany(0, ids), ids);
    }
    assert.deepEqual(await Promise.all([p0, p1, p2].map((p) => p.evaluate(() => T.role()))), ["leader", "follower", "follower"]);
    await sleep(1_500);
    const before = await stats(server);
    const closedAt = Date.now();
    await p0.close();
    const leader = await until(async () => {
      const roles = await Promise.all([p1, p2].map((p) => p.evaluate(() => T.role())));
      return roles.includes("leader") ? roles : null;
    }, 5_000);
    assert.ok(leader, "a remaining tab became leader");
    assert.equal(leader.filter((r) => r === "leader").length, 1);
    const firstGet = await until(async () => (await stats(server)).requests.find((r) => r.method === "tasks/get" && r.t > closedAt), 6_000);
    assert.ok(firstGet, "polling resumed");
    console.log(`failover: polling resumed ${firstGet.t - closedAt} ms after the leader tab closed`);
    assert.ok(firstGet.t - closedAt <= 5_000, `polling resumed after ${firstGet.t - closedAt} ms`);
    const done = await Promise.all([p1, p2].map((p) => p.evaluate(() => T.settle(40_000))));
    assert.deepEqual(done, [20, 20], "every handle in the remaining tabs finished");
    await allDone(b.events, ids);
    const after = await stats(server);
    const polledAfter = new Set(after.requests.filter((r) => r.t > closedAt && ["tasks/get", "tasks/result"].includes(r.method)).map((r) => r.taskId));
    for (const id of ids) assert.ok(polledAfter.has(id), `task ${id} was followed after the failover`);
    // The new leader continued the same session (no second handshake, tasks are session-scoped).
    assert.equal(after.byMethod.initialize, before.byMethod.initialize);
    for (const id of ids) {
      const d = dones(b.events, id);
      assert.equal(d.length, 1, `onDone fired ${d.length} times for ${id}`);
      assert.equal(d[0].status, "completed");
    }
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});

/**
 * Freezes a tab the way the browser does as far as a page can tell: `freeze` is dispatched (unless
 * `silent`), then the page runs nothing for `ms`, then `resume`. (CDP's Page.setWebLifecycleState does
 * not freeze a visible headless page, so the page does it to itself.)
 */
function freeze(page, ms, silent) {
  return page.evaluate(
    ([ms, silent]) => {
      if (!silent) document.dispatchEvent(new Event("freeze"));
      setTimeout(() => {
        const end = Date.now() + ms;
        while (Date.now() < end);
        if (!silent) document.dispatchEvent(new Event("resume"));
      }, 50);
    },
    [ms, silent],
  );
}

for (const [name, silent, limit] of [
  ["a frozen leader hands over at once; thawed, it follows", false, 2_000],
  ["a hung leader (no freeze event) loses the lock within a few seconds; then it follows", true, 9_000],
]) {
  test(name, { timeout: 120_000 }, async () => {
    const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
    const b = await browser();
    try {
      const [p0, p1] = [await b.page(), await b.page()];
      await p0.evaluate((u) => T.connect(u), server.url);
      const ids = await p0.evaluate(() => T.callMany(0, 5, "long_job", { steps: 15, stepMs: 1000 }));
      await p1.evaluate((u) => T.connect(u), server.url);
      await p1.evaluate((ids) => T.watchMany(0, ids), ids);
      assert.equal(await p1.evaluate(() => T.role()), "follower");
      await sleep(1_000);
      const frozenAt = Date.now();
      await freeze(p0, 10_000, silent);
      const took = await until(async () => ((await p1.evaluate(() => T.role())) === "leader" ? Date.now() - frozenAt : 0), limit + 2_000);
      assert.ok(took, "the other tab took over");
      console.log(`${silent ? "hung" : "frozen"} leader: the other tab led after ${took} ms`);
      assert.ok(took <= limit, `took ${took} ms`);
      const firstGet = await until(async () => (await stats(server)).requests.find((r) => r.method === "tasks/get" && r.t > frozenAt + took - 200), 5_000);
      assert.ok(firstGet, "the new leader polls");
      // Thawed: the old leader follows (its engine is gone; one session keeps polling).
      assert.equal(await until(() => p0.evaluate(() => T.role()).then((r) => (r === "follower" ? r : null)), 20_000), "follower");
      await resetStats(server);
      await sleep(3_000);
      const s = await stats(server);
      assert.equal(new Set(s.requests.filter((r) => r.method === "tasks/get").map((r) => r.session)).size, 1);
      const done = await Promise.all([p0, p1].map((p) => p.evaluate(() => T.settle(40_000))));
      assert.deepEqual(done, [5, 5]);
      await allDone(b.events, ids);
      for (const id of ids) {
        if (dones(b.events, id).length !== 1) console.log(JSON.stringify(b.events.filter((e) => e.taskId === id && e.type !== "status").map((e) => [e.page, e.type, e.kind ?? e.to, e.status, e.at - frozenAt])), JSON.stringify(b.events.filter((e) => e.type === "warning")));
        assert.equal(dones(b.events, id).length, 1, `onDone once for ${id}`);
      }
    } finally {
      await b.close();
      await server.stop();
    }
  });
}

test("reload mid-task: onDone fires exactly once, and never again after another reload", { timeout: 90_000 }, async () => {
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
    assert.equal(dones(b.events, id).length, 1, "onDone did not fire again");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("a task that finished while no tab was open fires onDone once on the next load", { timeout: 60_000 }, async () => {
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
    assert.ok(await until(() => dones(b.events, id).length > 0, 15_000), "onDone fired");
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

test("a tab becoming visible, and going online, make the leader poll every task at once", { timeout: 90_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", "1000"] });
  const b = await browser();
  try {
    const [p0, p1] = [await b.page(), await b.page()];
    await p0.evaluate((u) => T.connect(u), server.url);
    const ids = await p0.evaluate(() => T.callMany(0, 5, "long_job", { steps: 90, stepMs: 1000 }));
    await p1.evaluate((u) => T.connect(u), server.url);
    await p1.evaluate(() => T.setVisible(false));
    await sleep(20_000); // the backoff has grown to several seconds per task
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

test("without tab coordination (tabs: false) every tab leads, and onDone still fires once", { timeout: 60_000 }, async () => {
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
    // Both tabs polled (no coordination), on the one persisted session.
    const s = await stats(server);
    assert.equal(s.byMethod.initialize, 1);
  } finally {
    await b.close();
    await server.stop();
  }
});
