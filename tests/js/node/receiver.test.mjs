// The client as a task receiver in Node, against real servers whose SDK sends task-augmented
// elicitation and sampling to the client: the TS SDK 1.32.2 server (ts-sdk, HTTP) and the Python
// mcp 1.30 server (python-http, python-ws over the `ws` package), tool `client_task`.
import { after, before, describe, test } from "node:test";
import { WebSocket } from "ws";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";
import { PROFILES } from "../scenarios.mjs";
import { RECEIVER } from "../receiver-scenarios.mjs";

const CONNECT = { "python-ws": { WebSocket } };

for (const [kind, scenarios] of Object.entries(RECEIVER)) {
  describe(`receiver: ${kind} server (Node ${process.versions.node})`, () => {
    let server;
    before(async () => {
      server = await startServer(kind, { port: 0, timeoutMs: 30_000 });
    });
    after(async () => {
      await server?.stop();
    });
    for (const [name, scenario] of Object.entries(scenarios)) {
      test(`${name} (${kind})`, { timeout: 60_000 }, async (t) => {
        const connectOptions = CONNECT[kind] ?? {};
        const ctx = { McpTaskClient, McpTaskError, kind, url: server.url, connectOptions, profile: PROFILES[kind] };
        t.diagnostic(await scenario(ctx));
      });
    }
  });
}
