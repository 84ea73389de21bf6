// Self-test of the fault proxy against the real servers with raw fetch (no wasm client involved):
// every fault is injected once and observed on the wire, and the counters add up.
// Run: node --test tests/faults/proxy.test.mjs   (FAULT_KINDS=ts-sdk,rmcp3 to choose servers;
// FAULTS_UPSTREAM=<url> [FAULTS_DIALECT=legacy|modern] to aim at an already running server instead).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startProxy } from "./proxy.mjs";
import { RawClient } from "./rawclient.mjs";
import { startUpstream, selectedKinds } from "./servers.mjs";

const kinds = process.env.FAULTS_UPSTREAM ? ["custom"] : selectedKinds(process.env.FAULT_KINDS, ["ts-sdk", "rmcp3"]);

for (const kind of kinds) {
  test(`fault proxy against ${kind}`, { timeout: 120_000 }, async (t) => {
    const up = await startUpstream(kind);
    const proxy = await startProxy({ target: up.url, seed: 7 });
    const fast = up.tool.args(300);
    const client = () => new RawClient(proxy.url, { dialect: up.dialect, timeoutMs: 8000 });
    const rules = (r) => proxy.setRules(r);
    try {
      await t.test("CORS: preflight and exposed headers", async () => {
        const pre = await fetch(proxy.url, { method: "OPTIONS", headers: { origin: "http://127.0.0.1:1", "access-control-request-method": "POST", "access-control-request-headers": "content-type,mcp-session-id,authorization" } });
        assert.equal(pre.status, 204);
        assert.equal(pre.headers.get("access-control-allow-origin"), "*");
        assert.match(pre.headers.get("access-control-allow-headers"), /mcp-session-id/);
        const c = await client().connect();
        const r = await c.request("tools/list", {});
        assert.equal(r.headers.get("access-control-allow-origin"), "*");
        assert.match(r.headers.get("access-control-expose-headers"), /Mcp-Session-Id/);
      });

      await t.test("baseline: a task passes untouched and is counted", async () => {
        proxy.reset(); rules([]);
        const c = await client().connect();
        const { task } = await c.callTask(up.tool.name, fast);
        assert.ok(task, "tools/call created a task");
        const done = await c.waitTask(task.taskId);
        assert.equal(done.status, "completed");
        const s = proxy.stats();
        assert.equal(s.byMethod["tools/call"], 1);
        assert.ok(s.tasks[task.taskId].get >= 1);
        assert.equal(s.tasks[task.taskId].get, s.byMethod["tasks/get"]);
        assert.deepEqual(s.tasks[task.taskId].statuses.slice(-1), ["completed"]);
        const st = await (await fetch(proxy.statsUrl)).json();
        assert.equal(st.byMethod["tools/call"], 1, "GET /__proxy/stats serves the same counters");
      });

      const c = await client().connect();
      const { task } = await c.callTask(up.tool.name, fast);
      assert.ok(task);
      await c.waitTask(task.taskId);
      const id = task.taskId;

      await t.test("reset: the connection dies before the response", async () => {
        rules([{ fault: "reset", method: "tasks/get", count: 1 }]);
        const r = await c.getTask(id).then((x) => x.out, (e) => ({ error: e }));
        assert.ok(r.error || !r.response, "no response arrives");
        assert.equal(proxy.stats().faults["reset#0"], 1);
      });

      await t.test("truncate: the stream ends cleanly without the response", async () => {
        rules([{ fault: "truncate", method: "tasks/get", count: 1, midEvent: true }]);
        const { out } = await c.getTask(id);
        assert.equal(out.error, null);
        assert.ok(!out.response, "truncated: no complete response");
      });

      await t.test("stall: nothing comes until the client gives up", async () => {
        rules([{ fault: "stall", method: "tasks/get", count: 1 }]);
        const t0 = Date.now();
        const r = await c.getTask(id, { timeoutMs: 800 }).then((x) => x.out, (e) => ({ error: e }));
        assert.ok(r.error, "client timed out");
        assert.ok(Date.now() - t0 >= 700);
        await sleep(50);
        assert.ok(proxy.stats().clientAborts >= 1);
      });

      await t.test("status: 502 with an HTML page, no forward", async () => {
        rules([{ fault: "status", statuses: [502, 500, 503], method: "tasks/get", count: 3 }]);
        const seen = [];
        for (let i = 0; i < 3; i++) seen.push((await c.getTask(id)).out.status);
        assert.deepEqual(seen, [502, 500, 503]);
      });

      await t.test("retry-after: 429 / 503 with the header exposed", async () => {
        rules([{ fault: "retry-after", status: 429, seconds: 2, method: "tasks/get", count: 1 }, { fault: "retry-after", status: 503, ms: 1500, method: "tasks/get", count: 1 }]);
        const a = (await c.getTask(id)).out;
        assert.equal(a.status, 429);
        assert.equal(a.headers.get("retry-after"), "2");
        assert.match(a.headers.get("access-control-expose-headers"), /Retry-After/);
        const b = (await c.getTask(id)).out;
        assert.equal(b.status, 503);
        assert.equal(b.headers.get("retry-after-ms"), "1500");
        assert.equal(proxy.stats().retryAfter.length, 2);
      });

      await t.test("delay: the response comes late", async () => {
        rules([{ fault: "delay", ms: 700, method: "tasks/get", count: 1 }]);
        const t0 = Date.now();
        const { task: snap } = await c.getTask(id);
        assert.ok(Date.now() - t0 >= 650);
        assert.equal(snap.status, "completed");
      });

      await t.test("malformed / wrong types / not JSON-RPC", async () => {
        rules([{ fault: "malformed", method: "tasks/get", count: 1 }, { fault: "wrong-types", method: "tasks/get", count: 1 }, { fault: "malformed", variant: "not-rpc", method: "tasks/get", count: 1 }]);
        const a = (await c.getTask(id)).out;
        assert.ok(!a.response && a.messages.some((m) => m.__unparsed), "garbage instead of JSON");
        const b = (await c.getTask(id)).task;
        assert.equal(b.status, 42);
        assert.deepEqual(b.taskId, { not: "a string" });
        const d = (await c.getTask(id)).out;
        assert.ok(!d.response);
      });

      await t.test("oversized: padded message and an endless line", async () => {
        rules([{ fault: "oversized", bytes: 2_000_000, method: "tasks/get", count: 1 }, { fault: "oversized", variant: "endless-line", bytes: 1_000_000, method: "tasks/get", count: 1 }]);
        const a = (await c.getTask(id)).out;
        assert.ok(a.text.length > 2_000_000);
        assert.equal(a.response.result._meta.padding.length, 2_000_000);
        const b = (await c.getTask(id)).out;
        assert.ok(b.text.length >= 1_000_000);
        assert.ok(!b.response);
      });

      await t.test("duplicate: the response arrives twice", async () => {
        rules([{ fault: "duplicate", method: "tasks/get", count: 1 }]);
        const { out } = await c.getTask(id);
        assert.equal(out.messages.filter((m) => m.id === out.id).length, 2);
      });

      await t.test("reorder: an older snapshot of the task comes back late", async () => {
        rules([{ fault: "reorder", ms: 300, method: "tasks/get", count: 1 }]);
        const t0 = Date.now();
        const { task: snap } = await c.getTask(id);
        assert.ok(Date.now() - t0 >= 250);
        assert.notEqual(snap.status, "completed", "stale snapshot");
      });

      await t.test("backwards: completed, then a push and a poll saying working", async () => {
        rules([{ fault: "backwards", method: "tasks/get", count: 1, rewrites: 1 }]);
        const a = (await c.getTask(id)).out;
        assert.equal(a.response.result.status, "completed");
        assert.ok(a.messages.some((m) => m.method && m.params?.status === "working" && m.params.taskId === id));
        const b = (await c.getTask(id)).task;
        assert.equal(b.status, "working");
        const d = (await c.getTask(id)).task;
        assert.equal(d.status, "completed");
      });

      await t.test("unknown-task: -32602 for a known task", async () => {
        rules([{ fault: "unknown-task", method: "tasks/get", count: 1 }]);
        const { out } = await c.getTask(id);
        assert.equal(out.response.error.code, -32602);
      });

      await t.test("phantom: responses to ids never sent", async () => {
        rules([{ fault: "phantom", method: "tasks/get", count: 1 }]);
        const { out } = await c.getTask(id);
        const ids = out.messages.map((m) => m.id);
        assert.ok(ids.includes(987654321) && ids.includes("never-sent-id"));
        assert.equal(out.messages.filter((m) => m.id === out.id).length, 2);
      });

      await t.test("status forward: the server acts, the client hears 500", async () => {
        proxy.reset();
        rules([{ fault: "status", status: 500, forward: true, method: "tools/call", count: 1 }]);
        const { out } = await c.callTask(up.tool.name, fast);
        assert.equal(out.status, 500);
        assert.equal(proxy.stats().byMethod["tools/call"], 1);
      });

      if (up.dialect === "legacy") {
        await t.test("session-gone: the session really ends and stays gone", async () => {
          const c2 = await client().connect();
          rules([{ fault: "session-gone", method: "tasks/get", count: 1 }]);
          const a = (await c2.getTask(id)).out;
          assert.equal(a.status, 404);
          rules([]);
          const b = (await c2.request("tools/list", {}));
          assert.equal(b.status, 404, "later requests on that session: 404");
          await c2.connect();
          assert.ok((await c2.request("tools/list", {})).response?.result, "a new session works");
        });
      }

      await t.test("scoping: probability and count", async () => {
        proxy.reset();
        rules([{ fault: "status", status: 503, method: "tools/list", probability: 0.5, count: 3 }]);
        const seen = [];
        for (let i = 0; i < 20; i++) seen.push((await c.request("tools/list", {})).status);
        assert.equal(seen.filter((s) => s === 503).length, 3);
        assert.equal(proxy.stats().byMethod["tools/list"], 20);
      });

      await t.test("upstream down: 502, then back", async () => {
        if (!up.restart) return;
        rules([]);
        await up.stopOnly();
        const a = await c.request("tools/list", {});
        assert.equal(a.status, 502);
        await up.restart();
        const c3 = await client().connect();
        assert.ok((await c3.request("tools/list", {})).response?.result);
      });
    } finally {
      await proxy.stop();
      await up.stop();
    }
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
