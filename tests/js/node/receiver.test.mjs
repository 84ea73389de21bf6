// The client as a task receiver in Node, against the TS SDK v1 server (ts-sdk kind, tool
// `client_task`): task-augmented elicitation and sampling from the server, polled, cancelled, expired.
import { after, before, describe, test } from "node:test";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";
import { PROFILES } from "../scenarios.mjs";
import { RECEIVER } from "../receiver-scenarios.mjs";

describe(`receiver: ts-sdk server (TS SDK 1.32.2, Node ${process.versions.node})`, () => {
  let server;
  before(async () => {
    server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  });
  after(async () => {
    await server?.stop();
  });
  for (const [name, scenario] of Object.entries(RECEIVER)) {
    test(`${name} (ts-sdk)`, { timeout: 60_000 }, async (t) => {
      const ctx = { McpTaskClient, McpTaskError, kind: "ts-sdk", url: server.url, connectOptions: {}, profile: PROFILES["ts-sdk"] };
      t.diagnostic(await scenario(ctx));
    });
  }
});
