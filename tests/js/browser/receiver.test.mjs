// The client as a task receiver in a Chromium page (fetch + SSE), against the TS SDK v1 server
// (ts-sdk kind, tool `client_task`): task-augmented elicitation and sampling, polled, cancelled, expired.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { RECEIVER } from "../receiver-scenarios.mjs";
import { openChromium } from "./chromium.mjs";

describe("receiver: ts-sdk server (TS SDK 1.32.2) in a Chromium page", { concurrency: 1 }, () => {
  let chrome;
  let server;
  let page;
  const errors = [];
  before(async () => {
    chrome = await openChromium();
    server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
    page = await chrome.browser.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${chrome.site.origin}/tests/js/browser/receiver-page.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
  });
  after(async () => {
    await page?.close();
    await server?.stop();
    await chrome?.close();
  });
  for (const name of Object.keys(RECEIVER)) {
    test(`${name} (ts-sdk)`, { timeout: 60_000 }, async (t) => {
      const r = await page.evaluate(([n, c]) => window.runReceiver(n, c), [name, { kind: "ts-sdk", url: server.url }]);
      assert.ok(r.ok, r.error);
      t.diagnostic(r.note);
    });
  }
  test("no uncaught page errors", () => {
    assert.deepEqual(errors, []);
  });
});
