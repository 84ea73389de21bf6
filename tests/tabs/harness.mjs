// What the tab-coordination and persistence tests share: a static server for the test page
// and pkg/, browser contexts whose pages are tabs of one origin, and the test server's /stats counters.
// The tests run in headless Chromium against the real TypeScript SDK test server (tests/servers,
// GET /stats counts every request it receives); each *.test.mjs file here is one theme:
//
//   node --test --test-concurrency=3 tests/tabs/
//
// Needs pkg/ built (bash scripts/build.sh; MCP_TASK_CLIENT_PKG=<dir> to test another build), the ts-sdk
// server installed (bash tests/servers/install.sh ts-sdk) and tests/js deps (npm ci in tests/js).
// One browser context (fresh user-data-dir) per test; its pages are the tabs. Every wait is bounded.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? join(ROOT, "pkg");
const require = createRequire(join(ROOT, "tests", "js", "package.json"));
const { chromium } = require("playwright-core");

const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".ts": "text/plain" };

let web; // static server for the page and pkg/

/** Serves tests/tabs/page at / and the package at /pkg/ on 127.0.0.1 (the page's origin). */
function serveStatic() {
  return new Promise((res) => {
    const server = createServer((req, rsp) => {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      const [base, rel] = path.startsWith("/pkg/") ? [PKG, path.slice(5)] : [join(HERE, "page"), path === "/" ? "index.html" : path.slice(1)];
      const file = normalize(join(base, rel));
      if (!file.startsWith(base) || !existsSync(file)) {
        rsp.writeHead(404).end();
        return;
      }
      rsp.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      rsp.end(readFileSync(file));
    });
    server.listen(0, "127.0.0.1", () => res({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }));
  });
}

/** Registers the file's hooks that start and stop the static server for the page and pkg/. */
export function servePage() {
  before(async () => {
    assert.ok(existsSync(join(PKG, "index.js")), `no package at ${PKG}: run bash scripts/build.sh`);
    web = await serveStatic();
  });
  after(async () => {
    await web?.close();
  });
}

/** A fresh browser context; its pages are tabs of one origin. `events` collects every page's reports. */
export async function browser() {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tabs-"));
  const context = await chromium.launchPersistentContext(dir, { executablePath: "/usr/bin/chromium", headless: true, args: ARGS });
  const events = [];
  const pages = [];
  const errors = [];
  await context.exposeBinding("report", ({ page }, ev) => {
    events.push({ ...ev, page: pages.indexOf(page) });
  });
  return {
    context,
    events,
    pages,
    errors,
    /** A new tab on the test site's `path` (the tabs test page by default). */
    async page(path = "/") {
      const p = await context.newPage();
      pages.push(p);
      p.on("pageerror", (e) => errors.push(String(e)));
      if (process.env.DEBUG_TABS) p.on("console", (m) => console.log(`[page ${pages.indexOf(p)}] ${Date.now() % 100000} ${m.text()}`));
      await p.goto(`${web.url}${path}`);
      await p.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
      return p;
    },
    async reload(p) {
      await p.reload();
      await p.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function stats(server) {
  return (await fetch(server.statsUrl)).json();
}

export async function resetStats(server) {
  await fetch(`${server.statsUrl}/reset`, { method: "POST" });
}

/** Polls `f` until it returns a truthy value (returned) or `ms` pass (then the last value). */
export async function until(f, ms, step = 100) {
  const end = Date.now() + ms;
  let v;
  while (Date.now() < end) {
    v = await f();
    if (v) return v;
    await sleep(step);
  }
  return v;
}

/** `onTaskDoneOnce` reports for task `id` (once across tabs and reloads). */
export const dones = (events, id) => events.filter((e) => e.type === "done" && e.taskId === id);

/** Each handle's own `onDone` reports in page `page` (every tab holding a handle hears its end). */
export const handleDones = (events, page) => events.filter((e) => e.type === "handleDone" && e.page === page);

/** Waits until every task's onTaskDoneOnce was reported somewhere (claims are async), plus a grace period. */
export async function allDone(events, ids, ms = 15_000) {
  await until(() => ids.every((id) => dones(events, id).length > 0), ms);
  await sleep(700);
}
