// The legacy GET listening stream, seen from a scripted server on 127.0.0.1 (the real SDK servers
// cannot be told to drop a stream on cue): the driver honours the SSE `retry:` delay, resumes with
// `Last-Event-ID`, delivers pushes from the stream (and holds at most one `tasks/result` for the
// task), and stops asking after a 405.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { McpTaskClient } from "../../../pkg/node.js";

/** A minimal legacy Streamable HTTP endpoint whose GET stream ends after one event. */
function fixture({ getStatus = 200 } = {}) {
  const gets = [];
  const results = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (req.method === "GET") {
      gets.push({ at: Date.now(), lastEventId: req.headers["last-event-id"] ?? null, accept: req.headers.accept });
      if (getStatus !== 200) return res.writeHead(getStatus).end();
      const n = gets.length;
      res.writeHead(200, { "content-type": "text/event-stream" });
      // One status push per stream, then the server hangs up; `retry: 300` asks for 300 ms.
      const task = { taskId: "t-1", status: "working", statusMessage: `push ${n}`, createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttl: null };
      res.write(`retry: 300\nid: ev-${n}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks/status", params: task })}\n\n`);
      setTimeout(() => res.end(), 20);
      return;
    }
    if (req.method === "DELETE") return res.writeHead(200).end();
    const msg = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (msg.id === undefined) return res.writeHead(202).end();
    if (msg.method === "tasks/result") {
      // As a legacy server does: held open while the task runs (it never ends here).
      const held = { at: Date.now(), closed: false };
      results.push(held);
      res.on("close", () => (held.closed = true));
      return res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s-1" }).flushHeaders();
    }
    const result =
      msg.method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tasks: { requests: { tools: { call: {} } } } }, serverInfo: { name: "fixture", version: "0" } }
        : msg.method === "tools/list"
          ? { tools: [] }
          : msg.method === "tasks/get"
            ? { taskId: "t-1", status: "working", createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString(), ttl: null, pollInterval: 60_000 }
            : {};
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/mcp`, gets, results, stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) }),
    ),
  );
}

let servers = [];
before(() => (servers = []));
after(async () => Promise.all(servers.map((s) => s.stop())));

test("GET stream: retry delay honoured, Last-Event-ID resumes, pushes reach the handle", async () => {
  const fx = await fixture();
  servers.push(fx);
  const client = await McpTaskClient.connect(fx.url, { dialect: "legacy" });
  const h = client.watch("t-1");
  const messages = [];
  h.onStatus((t) => messages.push(t.statusMessage));
  await new Promise((r) => setTimeout(r, 1500));
  await client.close();
  // The stream pushed only `working`: that is no evidence the server pushes `input_required`
  // too, so the running task may hold its tasks/result (where its input would arrive), once.
  assert.ok(fx.results.length <= 1, `at most one held tasks/result: ${fx.results.length}`);
  assert.ok(fx.gets.length >= 3, `reconnected: ${fx.gets.length} GETs`);
  assert.equal(fx.gets[0].lastEventId, null, "first GET starts fresh");
  assert.equal(fx.gets[0].accept, "text/event-stream");
  for (let i = 1; i < fx.gets.length; i++) {
    assert.equal(fx.gets[i].lastEventId, `ev-${i}`, `GET ${i + 1} resumes after ev-${i}`);
    const gap = fx.gets[i].at - fx.gets[i - 1].at;
    assert.ok(gap >= 300, `GET ${i + 1} came ${gap} ms after the previous (retry: 300)`);
  }
  assert.ok(messages.includes("push 1") && messages.includes("push 2"), `pushes delivered: ${messages}`);
});

test("GET answered 405: the driver does not ask again", async () => {
  const fx = await fixture({ getStatus: 405 });
  servers.push(fx);
  const client = await McpTaskClient.connect(fx.url, { dialect: "legacy" });
  await new Promise((r) => setTimeout(r, 1200));
  await client.close();
  assert.equal(fx.gets.length, 1, "one GET, refused, never retried");
});
