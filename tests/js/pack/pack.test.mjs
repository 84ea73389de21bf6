// The npm tarball as a user gets it: `npm pack` in pkg/, installed into a scratch project, imported by
// name in Node 20 and bundled by Vite into a page that runs in headless Chromium — each against a real
// TS SDK task server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../servers/launch.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../../..");
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? join(ROOT, "pkg");
const VITE = join(ROOT, "tests/js/node_modules/vite/bin/vite.js");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

let scratch;
let server;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "mcp-pack-"));
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: PKG, encoding: "utf8" });
  const [{ filename }] = JSON.parse(out);
  const app = join(scratch, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", join(scratch, filename)], { cwd: app });
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
});

after(async () => {
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test("Node 20 imports the installed tarball by name and runs a task", { timeout: 60_000 }, async () => {
  const app = join(scratch, "app");
  await writeFile(join(app, "run.mjs"), `
    import { McpTaskClient } from "mcp-task-client";
    const client = await McpTaskClient.connect(process.argv[2]);
    const task = await client.callTool("long_job", { steps: 2, stepMs: 50 });
    const result = await task.result();
    console.log(JSON.stringify({ id: task.id, dialect: client.dialect, text: result.content[0].text }));
    await client.close();
  `);
  const out = execFileSync(process.execPath, ["run.mjs", server.url], { cwd: app, encoding: "utf8", timeout: 50_000 });
  const got = JSON.parse(out.trim().split("\n").pop());
  assert.equal(got.dialect, "legacy");
  assert.equal(typeof got.id, "string");
  assert.ok(got.id.length > 0);
  assert.match(got.text, /\S/);
});

test("a Vite-built page bundles the tarball and runs a task in Chromium", { timeout: 120_000 }, async () => {
  const app = join(scratch, "app");
  await writeFile(join(app, "index.html"), `<!doctype html><meta charset="utf-8"><title>scratch</title>
    <pre id="out">pending</pre><script type="module" src="./main.js"></script>`);
  await writeFile(join(app, "main.js"), `
    import { McpTaskClient } from "mcp-task-client";
    const out = document.getElementById("out");
    const url = new URLSearchParams(location.search).get("server");
    try {
      const client = await McpTaskClient.connect(url);
      const task = await client.callTool("long_job", { steps: 2, stepMs: 50 });
      const result = await task.result();
      out.textContent = "ok " + client.dialect + " " + result.content[0].text;
    } catch (e) {
      out.textContent = "error " + e;
    }
  `);
  execFileSync(process.execPath, [VITE, "build", "--logLevel", "warn"], { cwd: app, timeout: 90_000 });
  const dist = join(app, "dist");
  const site = await serveStatic(dist);
  const profile = await mkdtemp(join(tmpdir(), "mcp-pack-profile-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS, headless: true,
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${site.origin}/index.html?server=${encodeURIComponent(server.url)}`);
    await page.waitForFunction(() => document.getElementById("out").textContent !== "pending", null, { timeout: 60_000 });
    const text = await page.textContent("#out");
    assert.match(text, /^ok legacy \S/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await site.stop();
    await rm(profile, { recursive: true, force: true });
  }
});

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };

/** A static server for Vite's dist/ on 127.0.0.1 (its own origin, so the MCP server is cross-origin). */
function serveStatic(dir) {
  const srv = createServer(async (req, res) => {
    const path = resolve(dir, "." + decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(dir)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => srv.listen(0, "127.0.0.1", () => ok({
    origin: `http://127.0.0.1:${srv.address().port}`,
    stop: () => new Promise((done) => srv.close(done)),
  })));
}
