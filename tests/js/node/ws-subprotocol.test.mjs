// A WebSocket server that completes the handshake without selecting a subprotocol (the `ws`
// package's server, `handleProtocols` choosing none) in front of the real Python SDK WebSocket
// server, frames piped both ways. The client asks for `mcp` first (browsers and `ws` then refuse
// the connection), tries once more without it, and runs a task to completion.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket, WebSocketServer } from "ws";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

let server;
let front;
const asked = [];

before(async () => {
  server = await startServer("python-ws", { port: 0, timeoutMs: 30_000 });
  front = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => false });
  front.on("connection", (sock, req) => {
    asked.push(req.headers["sec-websocket-protocol"] ?? null);
    const up = new WebSocket(server.url, "mcp");
    const early = [];
    up.on("open", () => early.splice(0).forEach((m) => up.send(m.data, { binary: m.binary })));
    sock.on("message", (data, binary) => (up.readyState === WebSocket.OPEN ? up.send(data, { binary }) : early.push({ data, binary })));
    up.on("message", (data, binary) => sock.send(data, { binary }));
    sock.on("close", () => up.close());
    up.on("close", () => sock.close());
    up.on("error", () => sock.terminate());
  });
  await new Promise((r) => front.on("listening", r));
});

after(async () => {
  await new Promise((r) => front?.close(r));
  await server?.stop();
});

test("a server selecting no subprotocol: retried once without `mcp`, then a task completes", async () => {
  const client = await McpTaskClient.connect(`ws://127.0.0.1:${front.address().port}`, { WebSocket });
  const h = await client.callTool("long_job", { steps: 2, stepMs: 100 });
  const result = await h.result();
  await client.close();
  assert.ok(Array.isArray(result.content), JSON.stringify(result));
  assert.deepEqual(asked.slice(0, 2), ["mcp", null], `asked: ${JSON.stringify(asked)}`);
  assert.ok(asked.slice(1).every((p) => p === null), `once without, always without: ${JSON.stringify(asked)}`);
});
