// What the package README's "Try it in 5 minutes" says a page's console shows on the first connect to
// @modelcontextprotocol/server-everything (a 2025-11-25 server): the `server/discover` probe's one
// HTTP 400, nothing else; the era is remembered, so a second page load makes no such request. The
// page runs the README's task (simulate-research-query) to its end.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEverything } from "../everything.mjs";
import { openChromium } from "./chromium.mjs";

let server;
let chromium;

before(async () => {
  server = await startEverything();
  chromium = await openChromium("mcp-try-it-");
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

/** A page load that connects and runs the README's task; its console errors and what it got. */
async function visit() {
  const page = await chromium.browser.newPage();
  const errors = [];
  // Console errors about the MCP server's URL (not the test page's own resources, such as its favicon).
  page.on("console", (m) => m.type() === "error" && m.location().url === server.url && errors.push(m.text()));
  try {
    await page.goto(`${chromium.site.origin}/tests/js/browser/page.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    const got = await page.evaluate(async (url) => {
      const { McpTaskClient } = await import("/pkg/index.js");
      const warnings = [];
      const client = await McpTaskClient.connect(url, { onWarning: (w) => warnings.push(w.error.message) });
      try {
        const task = await client.callTool("simulate-research-query", { topic: "MCP tasks" });
        const result = await task.result();
        return { dialect: client.dialect, status: task.status, text: result.content[0].text, warnings };
      } finally {
        await client.close();
      }
    }, server.url);
    return { errors, got };
  } finally {
    await page.close();
  }
}

test("first connect: one failed request (the probe's 400), the task completes; the next page load: none", { timeout: 60_000 }, async () => {
  const first = await visit();
  assert.equal(first.got.dialect, "legacy");
  assert.equal(first.got.status, "completed");
  assert.match(first.got.text, /^# Research Report: MCP tasks/);
  assert.deepEqual(first.got.warnings, []);
  assert.equal(first.errors.length, 1, JSON.stringify(first.errors));
  assert.match(first.errors[0], /status of 400 \(Bad Request\)/);
  const second = await visit();
  assert.equal(second.got.status, "completed");
  assert.deepEqual(second.errors, [], "the era was remembered: no probe");
});
