// First contact in Node with the built pkg/: caller mistakes are typed `invalidInput` errors (thrown
// synchronously by the sync API), forced dialects are verified at connect, a modern session knows
// its server (serverInfo and capabilities from server/discover), and a server offering tasks in no
// era serves plain calls while task-requiring ones fail at once with `unsupported`.
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
  let noTasks;
  before(async () => {
    [legacy, modern, noTasks] = await Promise.all([
      startServer("ts-sdk", { port: 0, timeoutMs: 30_000 }),
      startServer("rmcp3-modern", { port: 0, timeoutMs: 30_000 }),
      startServer("rmcp3-notasks", { port: 0, timeoutMs: 30_000 }),
    ]);
  });
  after(async () => {
    await Promise.all([legacy?.stop(), modern?.stop(), noTasks?.stop()]);
  });

  test("no tasks in any era: plain calls work, task-requiring ones fail at once", async () => {
    const c = await McpTaskClient.connect(noTasks.url);
    try {
      assert.equal(c.dialect, "modern", "discover answered, initialize offers no tasks either: the best era");
      const h = await c.callTool("long_job", { steps: 1, stepMs: 10 });
      assert.equal(h.id, null, "inline");
      assert.match((await h.result()).content[0].text, /long_job/);
      const t0 = Date.now();
      const w = c.watch("some-task");
      assert.equal(await rejectedKind(w.result()), "unsupported");
      assert.equal(await rejectedKind(c.callTool("long_job", {}, { task: "always" })), "unsupported");
      assert.ok(Date.now() - t0 < 1_000, "at once, not a hang");
      const stats = await (await fetch(noTasks.statsUrl)).json();
      assert.equal(stats.byMethod["tasks/get"] ?? 0, 0, "nothing asked");
    } finally {
      await c.close();
    }
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
      assert.equal(await rejectedKind(c.callTool("quick", 5)), "invalidInput", "arguments not an object");
      assert.equal(await rejectedKind(c.callTool("quick", { f: () => 1 })), "invalidInput", "not JSON");
      assert.equal(await rejectedKind(c.request("ping", [])), "invalidInput", "params not an object");
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
