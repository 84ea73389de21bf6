// OAuth against a real protected server in headless Chromium: the TS SDK's authorization server
// router, bearer middleware and demo provider (tests/servers/ts-sdk/oauth.mjs) with 3 s access
// tokens. connect → 401 → discovery → registration → popup → return page → token → a 8 s task
// runs → its token is refreshed mid-task → the task's result arrives. The package root fetches the
// full build for it (the `auth` option), never the base build.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { openChromium } from "./chromium.mjs";

let chrome;
let server;
let page;
const errors = [];
/** The wasm files the page fetched. */
const wasm = [];

before(async () => {
  chrome = await openChromium("mcp-oauth-");
  server = await startServer("ts-sdk", { port: 0, args: ["--oauth", "--token-ttl-s", "3"], timeoutMs: 30_000 });
  page = await chrome.browser.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => r.url().endsWith(".wasm") && wasm.push(new URL(r.url()).pathname));
  page.on("console", (m) => errors.push(...(/[0-9a-f]{8}-[0-9a-f]{4}-/.test(m.text()) ? [`token-like text logged: ${m.text()}`] : [])));
  await page.goto(`${chrome.site.origin}/tests/js/browser/oauth-page.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
});

after(async () => {
  await page?.close();
  await server?.stop();
  await chrome?.close();
});

test("authorizes through a popup, refreshes mid-task, the task's result arrives", { timeout: 90_000 }, async () => {
  const popups = [];
  page.on("popup", (p) => popups.push(p.url()));
  const r = await page.evaluate((url) => window.runTask({ url, ms: 8000 }), server.url);
  assert.ok(r.ok, r.error);
  assert.equal(r.text, "slow_job done after 8000 ms");
  assert.equal(popups.length, 1, "one authorization popup");
  assert.match(popups[0], /\/oauth-return\.html\?code=[^&]+&state=/, "the popup came back to the return page");
  const stats = await (await fetch(server.url.replace(/\/mcp$/, "/oauth-stats"))).json();
  assert.equal(stats.codes, 1, "one code exchanged");
  assert.ok(stats.refreshes >= 1, `refreshed mid-task: ${JSON.stringify(stats)}`);
  assert.ok(r.stored?.refreshToken && r.stored?.accessToken, "the grant is in the host's store");
  assert.equal(r.stored.client.authMethod, "none");
  assert.deepEqual(wasm, ["/pkg/mcp_task_client_bg.wasm"], "auth fetched the full build alone");
  assert.deepEqual(errors, []);
});
