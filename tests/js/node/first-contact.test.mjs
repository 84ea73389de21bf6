// First contact in Node with the built pkg/: caller mistakes are typed `invalidInput` errors (thrown
// synchronously by the sync API), forced dialects are verified at connect, and a modern session
// knows its server (serverInfo and capabilities from server/discover).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";

function kindOf(e) {
  assert.ok(e instanceof McpTaskError, `an McpTaskError, got ${e}`);
  return e.kind;
}

async function rejectedKind(p) {
  try {
    await p;
  } catch (e) {
    return kindOf(e);
  }
  assert.fail("expected a rejection");
}

describe("first contact (Node)", () => {
  let legacy;
  let modern;
  before(async () => {
    [legacy, modern] = await Promise.all([
      startServer("ts-sdk", { port: 0, timeoutMs: 30_000 }),
      startServer("rmcp3-modern", { port: 0, timeoutMs: 30_000 }),
    ]);
  });
  after(async () => {
    await Promise.all([legacy?.stop(), modern?.stop()]);
  });

  test("caller mistakes are invalidInput", async () => {
    assert.equal(await rejectedKind(McpTaskClient.connect("not a url")), "invalidInput");
    assert.equal(await rejectedKind(McpTaskClient.connect("ftp://127.0.0.1/mcp")), "invalidInput");
    assert.equal(await rejectedKind(McpTaskClient.connect(42)), "invalidInput");
    assert.equal(await rejectedKind(McpTaskClient.connect(legacy.url, { dialect: "newest" })), "invalidInput");
    const c = await McpTaskClient.connect(legacy.url);
    try {
      for (const bad of [null, undefined, 7, ""]) {
        assert.throws(() => c.watch(bad), (e) => kindOf(e) === "invalidInput", `watch(${bad})`);
        assert.throws(() => c.task(bad), (e) => kindOf(e) === "invalidInput", `task(${bad})`);
      }
      assert.equal(await rejectedKind(c.callTool(null)), "invalidInput");
      assert.equal(await rejectedKind(c.callTool("quick", {}, { task: "sometimes" })), "invalidInput");
      assert.equal(await rejectedKind(c.request(5)), "invalidInput");
      assert.equal(await rejectedKind(c.listTasks(5)), "invalidInput");
    } finally {
      await c.close();
    }
  });

  test("forced modern on a legacy-only server rejects connect at once", async () => {
    const t0 = Date.now();
    const kind = await rejectedKind(McpTaskClient.connect(legacy.url, { dialect: "modern" }));
    assert.equal(kind, "unsupported");
    assert.ok(Date.now() - t0 < 2_000, `rejected within the handshake (${Date.now() - t0} ms)`);
  });

  test("forced legacy on a modern-only server rejects connect", async () => {
    assert.equal(await rejectedKind(McpTaskClient.connect(modern.url, { dialect: "legacy" })), "unsupported");
  });

  for (const dialect of ["auto", "modern"]) {
    test(`modern session (${dialect}) has serverInfo and capabilities`, async () => {
      const c = await McpTaskClient.connect(modern.url, { dialect });
      try {
        assert.equal(c.dialect, "modern");
        assert.equal(c.session.serverInfo?.name, "rmcp3-server");
        assert.ok(c.session.capabilities?.extensions?.["io.modelcontextprotocol/tasks"], "capabilities from discover");
        assert.equal(await rejectedKind(c.listTasks()), "unsupported", "modern has no tasks/list");
      } finally {
        await c.close();
      }
    });
  }
});
