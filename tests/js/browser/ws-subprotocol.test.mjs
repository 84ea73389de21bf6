// Chromium's own WebSocket against a server that completes the handshake without selecting a
// subprotocol (../wsfront.mjs in front of the real Python SDK WebSocket server): Chromium refuses
// the first connection ("Sent non-empty 'Sec-WebSocket-Protocol' header but no response was
// received"); the client retries once without `mcp` and the shared `completes` scenario passes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../../servers/launch.mjs";
import { startNoSubprotocolFront } from "../wsfront.mjs";
import { startStatic } from "./static.mjs";

let browser;
let site;
let profileDir;
let server;
let front;

before(async () => {
  server = await startServer("python-ws", { port: 0, timeoutMs: 30_000 });
  front = await startNoSubprotocolFront(server.url);
  site = await startStatic();
  profileDir = await mkdtemp(join(tmpdir(), "mcp-page-ws-"));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    headless: true,
  });
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await front?.stop();
  await server?.stop();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

test("Chromium: a server selecting no subprotocol is retried without `mcp`; a task completes", { timeout: 90_000 }, async () => {
  const page = await browser.newPage();
  await page.goto(`${site.origin}/tests/js/browser/page.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  const r = await page.evaluate(([n, c]) => window.runScenario(n, c), [
    "completes",
    { kind: "python-ws", url: front.url, statsUrl: server.statsUrl },
  ]);
  await page.close();
  assert.ok(r.ok, r.error);
  assert.deepEqual(front.asked.slice(0, 2), ["mcp", null], JSON.stringify(front.asked));
});
