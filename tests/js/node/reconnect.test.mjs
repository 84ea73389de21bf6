// WebSocket reconnection against the real Python server: stop it under a live client, start it again
// on the same port; the driver reconnects with backoff and jitter and the client works again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("python-ws: reconnects after the server restarts", { timeout: 60_000 }, async () => {
  const attempts = [];
  class CountingWebSocket extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      attempts.push({ at: Date.now(), protocols });
    }
  }
  let server = await startServer("python-ws", { port: 0, timeoutMs: 30_000 });
  const port = Number(new URL(server.url).port);
  const client = await McpTaskClient.connect(server.url, { WebSocket: CountingWebSocket });
  try {
    const first = await client.callTool("quick", { text: "before" });
    assert.match(JSON.stringify(await first.result()), /quick: before/);
    eqProtocol(attempts[0].protocols);
    // The socket drops once stop() begins; stop() itself returns later (the process must exit).
    const downAt = Date.now();
    await server.stop();
    await sleep(1500);
    server = await startServer("python-ws", { port, timeoutMs: 30_000 });
    let text = null;
    const deadline = Date.now() + 30_000;
    while (text === null && Date.now() < deadline) {
      try {
        const h = await client.callTool("quick", { text: "after" });
        text = JSON.stringify(await h.result());
      } catch (e) {
        assert.equal(e.name, "McpTaskError", `typed failure while down: ${e}`);
        await sleep(250);
      }
    }
    assert.match(text ?? "", /quick: after/, "works again after the restart");
    const retries = attempts.slice(1).map((a) => a.at);
    assert.ok(retries.length >= 1, "reconnected");
    assert.ok(retries[0] - downAt >= 400, `first retry ${retries[0] - downAt} ms after the drop (backoff ≥ 0.5 s)`);
    for (let i = 1; i < retries.length; i++) {
      assert.ok(retries[i] - retries[i - 1] >= 400, `retry gaps grow from 0.5 s: ${retries[i] - retries[i - 1]} ms`);
    }
  } finally {
    await client.close();
    await server.stop();
  }
});

function eqProtocol(p) {
  assert.equal(Array.isArray(p) ? p[0] : p, "mcp", 'new WebSocket(url, "mcp")');
}
