// The package root fetches the build each client needs, when it connects, in headless Chromium
// against a real TS SDK server: the network log shows the base build alone for default options,
// the full build once a client asks for `persist`, and nothing fetched twice. (`auth`: oauth.test.mjs.)
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { openChromium } from "./chromium.mjs";

const BASE = "/pkg/mcp_task_client_base_bg.wasm";
const FULL = "/pkg/mcp_task_client_bg.wasm";

let chrome;
let server;
let page;
/** The paths of the page's requests to the static site, in order. */
const fetched = [];
const errors = [];

before(async () => {
  chrome = await openChromium("mcp-lazy-");
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  page = await chrome.browser.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.origin === chrome.site.origin) fetched.push(u.pathname);
  });
  await page.goto(`${chrome.site.origin}/tests/js/browser/lazy-page.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
});

after(async () => {
  await page?.close();
  await server?.stop();
  await chrome?.close();
});

const wasm = () => fetched.filter((p) => p.endsWith(".wasm"));
const glue = () => fetched.filter((p) => /\/mcp_task_client(_base)?\.js$/.test(p));

test("the import fetches no wasm; a default connect and a task to completion fetch only the base build", { timeout: 60_000 }, async () => {
  assert.deepEqual(wasm(), [], "importing fetched no wasm");
  const r = await page.evaluate((url) => window.runTask(url, {}), server.url);
  assert.ok(r.ok, r.error);
  assert.equal(r.status, "completed");
  assert.equal(r.text, "long_job done: 2 steps");
  assert.equal(r.classes, true);
  assert.deepEqual(wasm(), [BASE]);
  assert.deepEqual(glue(), ["/pkg/mcp_task_client_base.js"]);
  assert.deepEqual(errors, []);
});

test("persist: true fetches the full build at connect and its task completes; the page then holds both, each fetched once", { timeout: 60_000 }, async () => {
  const r = await page.evaluate((url) => window.runTask(url, { persist: true }), server.url);
  assert.ok(r.ok, r.error);
  assert.equal(r.status, "completed");
  assert.equal(r.text, "long_job done: 2 steps");
  assert.equal(r.classes, true, "one McpTaskClient and one TaskHandle class for both builds");
  assert.equal(r.storage, "indexedDB");
  assert.deepEqual(wasm(), [BASE, FULL]);
  const again = await page.evaluate((url) => window.runTask(url, {}), server.url);
  assert.ok(again.ok, again.error);
  assert.deepEqual(wasm(), [BASE, FULL], "nothing fetched twice");
  assert.deepEqual(errors, []);
});

test("each build's refusals are the page's one McpTaskError class", async () => {
  // Read in Rust by each build: `identity` without `persist` (base), `auth` of the wrong type (full).
  const base = await page.evaluate(() => window.refusal({ identity: "x" }));
  assert.deepEqual(base, { ours: true, kind: "invalidInput", message: "identity and persistResults need persist: true" });
  const full = await page.evaluate(() => window.refusal({ auth: 5 }));
  assert.deepEqual(full, { ours: true, kind: "invalidInput", message: "auth must be an object" });
  assert.deepEqual(errors, []);
});
