// The package root in Node (ESM): each client runs on the build its options need, read from disk
// when the first such client connects. A default client runs a task on the base build; `auth` is
// read by the full build, with the same classes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError, TaskHandle } from "../../../pkg/node.js";

let server;

before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
});

after(async () => {
  await server?.stop();
});

/** What `connect` with `options` rejects with (before any request). */
const refusal = (options) => McpTaskClient.connect("http://127.0.0.1:9/mcp", options).then(() => assert.fail("connected"), (e) => e);

test("a default client connects on the base build and runs a task to completion", { timeout: 30_000 }, async () => {
  const client = await McpTaskClient.connect(server.url);
  try {
    const task = await client.callTool("long_job", { steps: 2, stepMs: 50 });
    assert.ok(task instanceof TaskHandle);
    const result = await task.result();
    assert.equal(result.content[0].text, "long_job done: 2 steps");
    assert.equal(client.dialect, "legacy");
  } finally {
    await client.close();
  }
});

test("auth is read by the full build (the base build would refuse it as its own), identity without persist by the base build: one McpTaskError class", async () => {
  const full = await refusal({ auth: 5 });
  assert.ok(full instanceof McpTaskError);
  assert.equal(full.message, "auth must be an object");
  const base = await refusal({ identity: "x" });
  assert.ok(base instanceof McpTaskError);
  assert.equal(base.message, "identity and persistResults need persist: true");
});
