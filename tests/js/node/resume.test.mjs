// POST-stream resumption against the real TS SDK server with its event store (`--event-store`),
// through the fault proxy: the `tools/call` response stream is cut right before the event carrying
// the response (ended cleanly, then reset), and the call still resolves with that response,
// redelivered on the `GET` + `Last-Event-ID` the client sends after the server's `retry` delay.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { startProxy } from "../../faults/proxy.mjs";
import { McpTaskClient } from "../../../pkg/node.js";

let server;
let proxy;

before(async () => {
  server = await startServer("ts-sdk", { port: 0, args: ["--event-store"], timeoutMs: 30_000 });
  proxy = await startProxy({ target: server.url });
});

after(async () => {
  await proxy?.stop();
  await server?.stop();
});

const control = (path, body) =>
  fetch(proxy.statsUrl.replace("/stats", path), { method: "POST", body: JSON.stringify(body ?? {}) });

for (const fault of ["truncate", "reset"]) {
  test(`a tools/call stream cut before its response (${fault}) resumes and resolves`, async () => {
    await control("/reset");
    await control("/rules", { rules: [{ fault, method: "tools/call", count: 1 }] });
    const client = await McpTaskClient.connect(proxy.url, { dialect: "legacy" });
    try {
      const h = await client.callTool("quick", { text: fault });
      const result = await h.result();
      assert.equal(result.content?.[0]?.text, `quick: ${fault}`, JSON.stringify(result));
      const s = await (await fetch(proxy.statsUrl)).json();
      assert.equal(s.byMethod["tools/call"], 1, "the call was not sent again");
      assert.ok((s.byMethod.GET ?? 0) >= 2, `the listening stream and the resumption: ${JSON.stringify(s.byMethod)}`);
    } finally {
      await client.close();
      await control("/rules", { rules: [] });
    }
  });
}
