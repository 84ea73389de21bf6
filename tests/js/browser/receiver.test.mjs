// The client as a task receiver in a Chromium page (fetch + SSE, the browser's WebSocket), against
// real servers whose SDK sends task-augmented elicitation and sampling to the client: the TS SDK
// 1.32.2 server (ts-sdk) and the Python mcp 1.30 server over WebSocket (python-ws), tool `client_task`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { RECEIVER } from "../receiver-scenarios.mjs";
import { openChromium } from "./chromium.mjs";

const KINDS = ["ts-sdk", "python-ws"];

let chrome;
before(async () => {
  chrome = await openChromium();
});
after(async () => {
  await chrome?.close();
});

for (const kind of KINDS) {
  describe(`receiver: ${kind} server in a Chromium page`, { concurrency: 1 }, () => {
    let server;
    let page;
    const errors = [];
    before(async () => {
      server = await startServer(kind, { port: 0, timeoutMs: 30_000 });
      page = await chrome.browser.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${chrome.site.origin}/tests/js/browser/receiver-page.html`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    });
    after(async () => {
      await page?.close();
      await server?.stop();
    });
    for (const name of Object.keys(RECEIVER[kind])) {
      test(`${name} (${kind})`, { timeout: 60_000 }, async (t) => {
        const r = await page.evaluate(([n, c]) => window.runReceiver(n, c), [name, { kind, url: server.url }]);
        assert.ok(r.ok, r.error);
        t.diagnostic(r.note);
      });
    }
    test(`no uncaught page errors (${kind})`, () => {
      assert.deepEqual(errors, []);
    });
  });
}
