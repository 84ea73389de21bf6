// Driver behaviour seen on the wire, through the fault proxy (tests/faults/proxy.mjs) in front of the
// real TS SDK server: auth headers from the async provider on every request (POST, the GET
// listening stream, DELETE), `Retry-After` on a 429 honoured before the next poll,
// and in Node a running task's outcome taken from its held `tasks/result` instead of polls.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { startProxy } from "../../faults/proxy.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

let server;
let proxy;

before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  proxy = await startProxy({ target: server.url });
});

after(async () => {
  await proxy?.stop();
  await server?.stop();
});

const proxyStats = async () => (await fetch(proxy.statsUrl)).json();

test("the async headers provider is asked before every request, GET and DELETE included", async () => {
  await fetch(proxy.statsUrl.replace("/stats", "/reset"), { method: "POST" });
  let asked = 0;
  const client = await McpTaskClient.connect(proxy.url, {
    headers: async () => {
      asked++;
      await new Promise((r) => setTimeout(r, 5));
      return { Authorization: `Bearer token-${asked}` };
    },
  });
  const h = await client.callTool("long_job", { steps: 2, stepMs: 100 });
  await h.result();
  await client.close();
  const s = await proxyStats();
  assert.equal(s.auth.without, 0, "no request without Authorization");
  assert.equal(s.auth.with, s.requests, "every request carried it");
  assert.ok(asked >= s.requests, `provider asked ${asked} times for ${s.requests} requests`);
  assert.ok((s.byMethod.GET ?? 0) >= 1, "the listening stream was opened");
  assert.equal(s.byMethod.DELETE, 1, "the session was ended with DELETE");
});

test("a 429 with Retry-After delays the next tasks/get by at least that long", async () => {
  await fetch(proxy.statsUrl.replace("/stats", "/rules"), {
    method: "POST",
    body: JSON.stringify({ rules: [{ fault: "retry-after", method: "tasks/get", count: 1, seconds: 3 }] }),
  });
  try {
    // A browser's HTTP/1.1 link: two tasks hold their tasks/result, the third is polled (in Node each
    // holds its tasks/result instead, below).
    const client = await McpTaskClient.connect(proxy.url, { link: "http1" });
    const handles = await Promise.all([0, 1, 2].map(() => client.callTool("slow_job", { ms: 9000 })));
    await new Promise((r) => setTimeout(r, 6500));
    const s = await proxyStats();
    await Promise.all(handles.map((h) => h.cancel()));
    await client.close();
    const hit = s.retryAfter.find((r) => handles.some((h) => h.id === r.taskId));
    assert.ok(hit, `a tasks/get of a polled task got the 429: ${JSON.stringify(s.retryAfter)}`);
    const id = hit.taskId;
    const later = s.tasks[id].gets.map((g) => g.t).filter((t) => t > hit.at);
    assert.ok(later.length >= 1, "polling went on after the 429");
    assert.ok(later[0] - hit.at >= 2900, `next tasks/get ${later[0] - hit.at} ms after the 429 (Retry-After: 3)`);
  } finally {
    await fetch(proxy.statsUrl.replace("/stats", "/rules"), { method: "POST", body: JSON.stringify({ rules: [] }) });
  }
});

test("in Node a running task holds one tasks/result (raced once by a fresh one on a pushed end); no polls meanwhile", async () => {
  await fetch(proxy.statsUrl.replace("/stats", "/reset"), { method: "POST" });
  const client = await McpTaskClient.connect(proxy.url, {});
  const h = await client.callTool("slow_job", { ms: 3000 });
  const result = await h.result();
  const s = await proxyStats();
  await client.close();
  assert.equal(result.content?.[0]?.text, "slow_job done after 3000 ms");
  const rec = s.tasks[h.id];
  // The TS SDK server pushes the end before its held tasks/result notices it: the first pushed
  // end races one fresh tasks/result against the held one (later tasks of the session would not).
  const results = rec.reqs.filter(([, m]) => m === "tasks/result").map(([t]) => t);
  assert.ok(results.length === 1 || results.length === 2, `one tasks/result held to the end, at most one racing it: ${JSON.stringify(rec.reqs)}`);
  if (results.length === 2) assert.ok(results[1] - results[0] >= 1500, `the second went out at the end, not as a retry: ${JSON.stringify(rec.reqs)}`);
  assert.equal(rec.get, 0, `no tasks/get within the 20 s safety interval: ${JSON.stringify(rec.reqs)}`);
});
