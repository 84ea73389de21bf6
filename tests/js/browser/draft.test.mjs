// The draft dialect with the built pkg/ in a real page in headless Chromium: the scenarios of
// ../draft-scenarios.mjs against the draft FIXTURE server in its SSE and JSON-only modes.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { registerKind, startServer } from "../../servers/launch.mjs";
import { draftKind } from "../../fixtures/draft-server/kind.mjs";
import { DRAFT } from "../draft-scenarios.mjs";
import { openChromium } from "./chromium.mjs";

registerKind("draft", draftKind);

let browser;
let site;
let chrome;

before(async () => {
  chrome = await openChromium("mcp-draft-page-");
  ({ browser, site } = chrome);
});

after(async () => {
  await chrome?.close();
});

for (const mode of ["sse", "json"]) {
  describe(`Chromium page, draft fixture, ${mode}`, () => {
    let server;
    let undeclared;
    let page;
    const errors = [];
    before(async () => {
      const args = mode === "json" ? ["--json-only"] : [];
      server = await startServer("draft", { port: 0, args, timeoutMs: 30_000 });
      undeclared = await startServer("draft", { port: 0, args: [...args, "--undeclared"], timeoutMs: 30_000 });
      page = await browser.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${site.origin}/tests/js/browser/draft-page.html`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    });
    after(async () => {
      await page?.close();
      await server?.stop();
      await undeclared?.stop();
    });
    for (const name of Object.keys(DRAFT)) {
      test(name, { timeout: 60_000 }, async (t) => {
        const ctx = { mode, url: server.url, statsUrl: server.statsUrl, undeclaredUrl: undeclared.url };
        const r = await page.evaluate(([n, c]) => window.runDraft(n, c), [name, ctx]);
        assert.ok(r.ok, r.error);
        if (r.note) t.diagnostic(r.note);
      });
    }
    test("no uncaught page errors", () => {
      assert.deepEqual(errors, []);
    });
  });
}
