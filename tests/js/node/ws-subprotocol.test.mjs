// A server that completes the WebSocket handshake without selecting a subprotocol (../wsfront.mjs,
// in front of the real Python SDK WebSocket server), with the `ws` package's client: the client
// asks for `mcp` first (`ws` then refuses the connection), tries once more without it, and runs a
// task to completion.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startServer } from "../../servers/launch.mjs";
import { startNoSubprotocolFront } from "../wsfront.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

let server;
let front;

before(async () => {
  server = await startServer("python-ws", { port: 0, timeoutMs: 30_000 });
  front = await startNoSubprotocolFront(server.url);
});

after(async () => {
  await front?.stop();
  await server?.stop();
});

test("a server selecting no subprotocol: retried once without `mcp`, then a task completes", async () => {
  const client = await McpTaskClient.connect(front.url, { WebSocket });
  const h = await client.callTool("long_job", { steps: 2, stepMs: 100 });
  const result = await h.result();
  await client.close();
  assert.ok(Array.isArray(result.content), JSON.stringify(result));
  const asked = front.asked;
  assert.deepEqual(asked.slice(0, 2), ["mcp", null], `asked: ${JSON.stringify(asked)}`);
  assert.ok(asked.slice(1).every((p) => p === null), `once without, always without: ${JSON.stringify(asked)}`);
});
