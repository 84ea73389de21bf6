// The npm tarball as a user gets it: `npm pack` in pkg/, checked by publint and arethetypeswrong,
// installed into a scratch project, imported by name in Node 20, bundled by Vite into a page and by
// esbuild with React (the `mcp-task-client/react` bindings under StrictMode) into another, both run in
// headless Chromium — each against a real TS SDK task server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
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
let packed;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "mcp-pack-"));
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: PKG, encoding: "utf8" });
  [packed] = JSON.parse(out);
  const { filename } = packed;
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

test("Node 20 imports the installed tarball by name (root and /core) and runs a task", { timeout: 60_000 }, async () => {
  const app = join(scratch, "app");
  await writeFile(join(app, "run.mjs"), `
    const { McpTaskClient } = await import(process.argv[3]);
    const client = await McpTaskClient.connect(process.argv[2]);
    const task = await client.callTool("long_job", { steps: 2, stepMs: 50 });
    const result = await task.result();
    console.log(JSON.stringify({ id: task.id, dialect: client.dialect, text: result.content[0].text }));
    await client.close();
  `);
  for (const entry of ["mcp-task-client", "mcp-task-client/core"]) {
    const out = execFileSync(process.execPath, ["run.mjs", server.url, entry], { cwd: app, encoding: "utf8", timeout: 25_000 });
    const got = JSON.parse(out.trim().split("\n").pop());
    assert.equal(got.dialect, "legacy", entry);
    assert.equal(typeof got.id, "string");
    assert.ok(got.id.length > 0);
    assert.match(got.text, /\S/);
  }
  // Disposal closes: after `client[Symbol.dispose]()` (what `using` calls) the process exits on its
  // own, and a later close() neither throws nor hangs.
  await writeFile(join(app, "dispose.mjs"), `
    import { McpTaskClient } from "mcp-task-client";
    const client = await McpTaskClient.connect(process.argv[2]);
    const task = await client.callTool("long_job", { steps: 1, stepMs: 50 });
    task[Symbol.dispose]();
    client[Symbol.dispose]();
    await client.close();
    const e = await client.callTool("long_job", {}).catch((x) => x);
    console.log(JSON.stringify({ stopped: task.isDone, kind: e.kind }));
  `);
  const disposed = execFileSync(process.execPath, ["dispose.mjs", server.url], { cwd: app, encoding: "utf8", timeout: 20_000 });
  assert.deepEqual(JSON.parse(disposed.trim().split("\n").pop()), { stopped: true, kind: "closed" });
});

test("a Vite-built page bundles the tarball (both builds' wasm as assets) and runs a task in Chromium, fetching the base build alone", { timeout: 120_000 }, async () => {
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
  // Vite's 8-character content hash may hold a "-".
  const unhashed = (name) => name.replace(/-[\w-]{8}\.wasm$/, "");
  const assets = (await readdir(join(dist, "assets"))).filter((f) => f.endsWith(".wasm")).map(unhashed);
  assert.deepEqual(assets.sort(), ["mcp_task_client_base_bg", "mcp_task_client_bg"]);
  const site = await serveStatic(dist);
  const profile = await mkdtemp(join(tmpdir(), "mcp-pack-profile-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS, headless: true,
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const wasm = [];
    page.on("request", (r) => r.url().endsWith(".wasm") && wasm.push(unhashed(new URL(r.url()).pathname)));
    await page.goto(`${site.origin}/index.html?server=${encodeURIComponent(server.url)}`);
    await page.waitForFunction(() => document.getElementById("out").textContent !== "pending", null, { timeout: 60_000 });
    const text = await page.textContent("#out");
    assert.match(text, /^ok legacy \S/);
    assert.deepEqual(wasm, ["/assets/mcp_task_client_base_bg"], "default options fetch the base build alone");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await site.stop();
    await rm(profile, { recursive: true, force: true });
  }
});

test("the tarball: LICENSE files, README, React bindings, CommonJS entries; publint clean, arethetypeswrong only the ESM-only subpaths", { timeout: 120_000 }, async () => {
  const files = packed.files.map((f) => f.path);
  for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "README.md", "react.js", "react.d.ts", "index.d.ts", "core/index.js", "core/node.js", "core/index.d.ts", "core/mcp_task_client_bg.wasm", "mcp_task_client_bg.wasm", "mcp_task_client_base_bg.wasm", "mcp_task_client_base.js", "node.cjs", "node.d.cts", "core/node.cjs", "core/node.d.cts"]) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  const pj = JSON.parse(await readFile(join(PKG, "package.json"), "utf8"));
  assert.ok(pj.repository?.url && pj.homepage, "repository and homepage");
  assert.equal(pj.peerDependenciesMeta?.react?.optional, true, "React is an optional peer");
  const bin = (name) => join(ROOT, "tests/js/node_modules/.bin", name);
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { cwd: PKG, encoding: "utf8", timeout: 100_000, stdio: "pipe" });
    } catch (e) {
      assert.fail(`${[cmd, ...args].join(" ")} failed:\n${e.stdout}${e.stderr}`);
    }
  };
  const lint = run(bin("publint"), ["--strict", "."]);
  assert.match(lint, /All good/, lint);
  // arethetypeswrong, every resolution mode (the wasm subpaths are assets, not modules): the root and
  // /core resolve everywhere (from CommonJS to the CommonJS entry). What remains is by design:
  // /react and /auth(/node) are ES modules only (apps bundle them; from CommonJS, `import()` them),
  // and node10 resolution, which ignores `exports`, finds no file at `auth/node` (its file is auth-node.js).
  const report = join(scratch, "attw.json");
  run("bash", ["-c", `"${bin("attw")}" --pack . --format json --exclude-entrypoints ./mcp_task_client_bg.wasm ./mcp_task_client_base_bg.wasm ./core/mcp_task_client_bg.wasm > "${report}" || true`]);
  const { problems } = JSON.parse(await readFile(report, "utf8")).analysis;
  const found = problems.map((p) => `${p.kind} ${p.entrypoint} ${p.resolutionKind}`).sort();
  assert.deepEqual(found, [
    "CJSResolvesToESM ./auth node16-cjs",
    "CJSResolvesToESM ./auth/node node16-cjs",
    "CJSResolvesToESM ./react node16-cjs",
    "NoResolution ./auth/node node10",
  ]);
});

test("React under StrictMode (esbuild + react-dom from npm): one session, cancel only on a real unmount", { timeout: 120_000 }, async () => {
  const app = join(scratch, "app");
  const dist = join(app, "react-dist");
  await mkdir(dist, { recursive: true });
  await writeFile(join(app, "react-main.js"), REACT_APP);
  await writeFile(join(dist, "index.html"), `<!doctype html><meta charset="utf-8"><title>react</title>
    <div id="root"></div><script type="module" src="./react-main.js"></script>`);
  const esbuild = await import(join(ROOT, "tests/js/node_modules/esbuild/lib/main.js"));
  await esbuild.build({
    entryPoints: [join(app, "react-main.js")],
    bundle: true,
    format: "esm",
    outdir: dist,
    // Resolved from the test tools: the scratch app installs only the tarball.
    nodePaths: [join(ROOT, "tests/js/node_modules")],
    // A development build: StrictMode's double mount only happens there.
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "warning",
  });
  // esbuild leaves `new URL("…wasm", import.meta.url)` alone: both builds' wasm go next to the bundle.
  for (const wasm of ["mcp_task_client_base_bg.wasm", "mcp_task_client_bg.wasm"]) {
    await writeFile(join(dist, wasm), await readFile(join(app, "node_modules/mcp-task-client", wasm)));
  }
  const site = await serveStatic(dist);
  const profile = await mkdtemp(join(tmpdir(), "mcp-react-profile-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS, headless: true,
  });
  const stats = async () => (await fetch(server.statsUrl)).json();
  const count = (s, m) => s.byMethod?.[m] ?? 0;
  try {
    const before = await stats();
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${site.origin}/index.html?server=${encodeURIComponent(server.url)}`);
    await page.waitForFunction(() => document.getElementById("conn")?.textContent === "connected", null, { timeout: 30_000 });
    const mounts = await page.evaluate(() => window.mounts);
    assert.ok(mounts >= 2, `StrictMode mounted the client effect twice (${mounts})`);
    const afterConnect = await stats();
    assert.equal(count(afterConnect, "initialize") - count(before, "initialize"), 1, "one session under StrictMode");

    // A task followed by id and by handle, with cancelOnUnmount: the simulated unmount cancels nothing.
    const id = await page.evaluate(() => window.app.start("long_job", { steps: 3, stepMs: 300 }));
    await page.waitForFunction((id) => document.getElementById(`byid-${id}`)?.textContent.startsWith("completed"), id, { timeout: 30_000 });
    await page.waitForFunction((id) => document.getElementById(`byhandle-${id}`)?.textContent.startsWith("completed"), id, { timeout: 10_000 });
    assert.match(await page.textContent(`#byid-${id}`), /long_job done/);
    assert.equal(count(await stats(), "tasks/cancel") - count(before, "tasks/cancel"), 0, "no cancel from StrictMode's remount");

    // A real unmount with cancelOnUnmount cancels the remote task once.
    const slow = await page.evaluate(() => window.app.start("slow_job", { ms: 20_000 }));
    await page.waitForFunction((id) => /^working/.test(document.getElementById(`byid-${id}`)?.textContent ?? ""), slow, { timeout: 10_000 });
    await page.evaluate((id) => window.app.drop(id), slow);
    const cancelled = async () => count(await stats(), "tasks/cancel") - count(before, "tasks/cancel");
    for (let i = 0; i < 50 && (await cancelled()) < 1; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await cancelled(), 1, "one tasks/cancel after the real unmount");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await site.stop();
    await rm(profile, { recursive: true, force: true });
  }
});

/** The React app of the test: no JSX, so esbuild needs no React-specific set-up. */
const REACT_APP = `
import { StrictMode, createElement as h, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { useMcpClient, useTask } from "mcp-task-client/react";

const url = new URLSearchParams(location.search).get("server");
window.mounts = 0;
const line = (s) => (s.status ?? "none") + " " + (s.result ? s.result.content.map((c) => c.text ?? "").join(" ") : "") + (s.error ? "error " + s.error.kind : "");

function ById({ client, id }) {
  const s = useTask(id, { client, cancelOnUnmount: true });
  return h("p", { id: "byid-" + id }, line(s));
}
function ByHandle({ handle }) {
  const s = useTask(handle);
  return h("p", { id: "byhandle-" + handle.id }, line(s));
}
function App() {
  const { client, status } = useMcpClient(url, { clientName: "react-test" });
  const [tasks, setTasks] = useState([]);
  useEffect(() => {
    window.mounts++;
  }, []);
  window.app = {
    async start(name, args) {
      const handle = await client.callTool(name, args);
      setTasks((ts) => [...ts, handle]);
      return handle.id;
    },
    drop(id) {
      setTasks((ts) => ts.filter((t) => t.id !== id));
    },
  };
  return h("div", null,
    h("p", { id: "conn" }, status),
    client && tasks.map((t) => h("div", { key: t.id }, h(ById, { client, id: t.id }), h(ByHandle, { handle: t }))));
}
createRoot(document.getElementById("root")).render(h(StrictMode, null, h(App)));
`;

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
