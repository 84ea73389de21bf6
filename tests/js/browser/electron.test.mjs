// The Electron example (examples/electron) as far as this machine allows, without an Electron binary:
//   - its main process (main.js) runs in Node with a stand-in for the `electron` module: the app://
//     protocol handler serves the renderer and the package with the right types and nothing outside
//     its roots, and the IPC handlers give the config and the wasm bytes;
//   - its renderer (renderer/) runs in headless Chromium as a file:// page, laid out as `--file` loads
//     it (renderer/ next to pkg/), with the preload bridge emulated over the real main-process
//     handlers: the wasm comes as bytes through `init` and a tool runs against a real task server;
//     then the same page on an opaque origin (a sandboxed document), where `persist` keeps tasks in
//     memory and says so.
// Chromium gets --allow-file-access-from-files: Electron lets file:// pages load their own files.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import Module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../servers/launch.mjs";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const EXAMPLE = join(ROOT, "examples", "electron");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
  // The opaque-origin page reaches the test server on loopback (Electron does not gate local network access).
  "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights"];

/** Loads main.js with `electron` replaced by recorders; returns its exports and what it registered. */
function loadMain(argv) {
  const registered = { schemes: [], ipc: {}, windows: [] };
  const fake = {
    app: { whenReady: () => new Promise(() => {}), on() {}, quit() {} },
    BrowserWindow: class {
      static getAllWindows() {
        return [];
      }
    },
    ipcMain: { handle: (channel, f) => (registered.ipc[channel] = f) },
    protocol: { registerSchemesAsPrivileged: (s) => registered.schemes.push(...s), handle() {} },
    shell: { openExternal() {} },
  };
  const load = Module._load;
  const savedArgv = process.argv;
  Module._load = function (request, ...rest) {
    return request === "electron" ? fake : load.call(this, request, ...rest);
  };
  process.argv = [process.execPath, join(EXAMPLE, "main.js"), ...argv];
  try {
    const require = createRequire(join(EXAMPLE, "main.js"));
    delete require.cache[require.resolve("./main.js")];
    return { main: require("./main.js"), registered };
  } finally {
    Module._load = load;
    process.argv = savedArgv;
  }
}

let server;
before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
});
after(async () => {
  await server?.stop();
});

test("Electron main process (in Node): app:// serves the bundle safely, IPC gives config and wasm bytes", async () => {
  process.env.MCP_TASK_CLIENT_PKG = join(ROOT, "pkg");
  const { main, registered } = loadMain([`--server=${server.url}`, "--dialect=legacy"]);
  assert.deepEqual(registered.schemes.map((s) => [s.scheme, s.privileges.standard, s.privileges.secure]), [["app", true, true]]);
  const get = (path) => main.serve(new Request(`app://bundle${path}`));
  const wasm = await get("/pkg/mcp_task_client_bg.wasm");
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  const page = await get("/renderer/");
  assert.match(page.headers.get("content-type"), /^text\/html/);
  assert.match(await page.text(), /renderer\.js/);
  assert.match((await get("/pkg/index.js")).headers.get("content-type"), /^text\/javascript/);
  for (const bad of ["/pkg/../../../etc/passwd", "/renderer/%2e%2e/main.js", "/elsewhere/x", "/pkg/%E0%A4%A"]) {
    assert.ok([400, 404].includes((await get(bad)).status), `${bad} is refused`);
  }
  assert.equal((await main.serve(new Request("app://other/renderer/"))).status, 404);
  assert.deepEqual(Object.keys(main.handlers).sort(), ["demo:config", "demo:wasm"]);
  const cfg = await main.handlers["demo:config"]();
  assert.equal(cfg.serverUrl, server.url);
  assert.equal(cfg.dialect, "legacy");
  const bytes = await main.handlers["demo:wasm"]();
  assert.deepEqual(Buffer.from(bytes), await readFile(join(ROOT, "pkg", "mcp_task_client_bg.wasm")));
});

test("Electron renderer (Chromium) as a file:// page and on an opaque origin: wasm from bytes, a task end to end, persist degrades and says so", { timeout: 90_000 }, async () => {
  const { main } = loadMain([`--server=${server.url}`]);
  const app = await mkdtemp(join(tmpdir(), "mcp-electron-"));
  const profile = await mkdtemp(join(tmpdir(), "mcp-electron-profile-"));
  await cp(join(EXAMPLE, "renderer"), join(app, "renderer"), { recursive: true });
  await cp(join(ROOT, "pkg"), join(app, "pkg"), { recursive: true });
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS, headless: true,
  });
  try {
    // The preload's bridge, over the real main-process handlers (bytes travel as base64 here).
    await browser.exposeBinding("ipcInvoke", async (_source, channel) => {
      const v = await main.handlers[channel]();
      return Buffer.isBuffer(v) ? { base64: v.toString("base64") } : v;
    });
    await browser.addInitScript(() => {
      const invoke = async (channel) => {
        const v = await window.ipcInvoke(channel);
        return v?.base64 ? Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0)) : v;
      };
      window.mcpDemo = { config: () => invoke("demo:config"), wasm: () => invoke("demo:wasm") };
    });
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    // 1. As `--file` loads it. Chromium (like Electron) gives file:// pages storage: persist works.
    await page.goto(pathToFileURL(join(app, "renderer", "index.html")).href);
    await page.waitForFunction(() => document.getElementById("state").dataset.state === "connected", null, { timeout: 30_000 });
    assert.match(await page.textContent("#state"), /^connected \(legacy, tasks in (indexedDB|localStorage)\)$/);
    assert.equal(await page.textContent("#notice"), "", "no warning where storage works");
    await page.selectOption("#tool", "long_job");
    await page.fill("#args", JSON.stringify({ steps: 2, stepMs: 100 }));
    await page.click("#start button");
    await page.waitForFunction(() => /long_job done/.test(document.querySelector("#tasks .out")?.textContent ?? ""), null, { timeout: 30_000 });
    assert.equal(await page.textContent("#tasks .status"), "completed");
    const requests = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    assert.ok(!requests.some((r) => r.endsWith(".wasm")), "the wasm was not fetched: it came as bytes");

    // 2. The same page with an opaque origin (served with `Content-Security-Policy: sandbox`, as a
    //    sandboxed frame would be): no storage. persist keeps the tasks in memory and the page shows
    //    the client's warning.
    const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
    await page.route("http://127.0.0.1:9/**", async (route) => {
      const path = new URL(route.request().url()).pathname;
      const file = join(app, path);
      if (!file.startsWith(app)) return route.fulfill({ status: 404 });
      const body = await readFile(file).catch(() => null);
      if (!body) return route.fulfill({ status: 404 });
      const ext = path.slice(path.lastIndexOf("."));
      await route.fulfill({
        body,
        headers: { "content-type": TYPES[ext] ?? "application/octet-stream", "access-control-allow-origin": "*", "content-security-policy": "sandbox allow-scripts allow-forms" },
      });
    });
    await page.goto("http://127.0.0.1:9/renderer/index.html");
    const frame = page.mainFrame();
    await frame.waitForFunction(() => document.getElementById("state").dataset.state === "connected", null, { timeout: 30_000 });
    assert.equal(await frame.evaluate(() => self.origin), "null", "an opaque origin");
    assert.match(await frame.textContent("#state"), /tasks in memory/);
    assert.match(await frame.textContent("#notice"), /^persist: this origin has no storage/);
    await frame.selectOption("#tool", "long_job");
    await frame.fill("#args", JSON.stringify({ steps: 2, stepMs: 100 }));
    await frame.click("#start button");
    await frame.waitForFunction(() => /long_job done/.test(document.querySelector("#tasks .out")?.textContent ?? ""), null, { timeout: 30_000 });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await rm(app, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
});
