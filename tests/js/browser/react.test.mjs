// mcp-task-client/react in a React 19 app under StrictMode (esbuild development bundle, headless
// Chromium) against a real TS SDK task server: <McpClientProvider> shares one session and leaks
// none, useCallTool runs tools on demand, and the clean-up rules hold — an unmount stops waiting
// (nothing is sent; the held `tasks/result` is aborted as the task's last follower leaves), a cancel
// goes out only when asked. The page's fetches are logged by a wrapper installed before the app loads.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../servers/launch.mjs";
import { openChromium } from "./chromium.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../../..");
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? join(ROOT, "pkg");

/** Logs each fetch of the page: its JSON-RPC method (or HTTP method), task id, and whether it was aborted. */
const WIRE_LOG = `
  window.wire = [];
  const realFetch = window.fetch;
  window.fetch = function (input, init = {}) {
    let rpc = null;
    try { rpc = JSON.parse(init.body); } catch {}
    const rec = { method: rpc?.method ?? init.method ?? "GET", taskId: rpc?.params?.taskId ?? null, aborted: false };
    window.wire.push(rec);
    init.signal?.addEventListener("abort", () => { rec.aborted = true; });
    return realFetch.call(this, input, init);
  };
`;

let server;
let chromium;
let page;
/** The bundle, under tests/js so the page tests' static site serves it. */
const OUT = join(HERE, ".react-out");

before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  await rm(OUT, { recursive: true, force: true });
  // The package by name, as an app gets it (symlinks kept: its own `mcp-task-client` import resolves here too).
  await mkdir(join(OUT, "node_modules"), { recursive: true });
  await symlink(PKG, join(OUT, "node_modules/mcp-task-client"), "dir");
  const esbuild = await import(join(ROOT, "tests/js/node_modules/esbuild/lib/main.js"));
  await esbuild.build({
    entryPoints: [join(HERE, "react-app.js")],
    bundle: true,
    format: "esm",
    outdir: join(OUT, "site"),
    nodePaths: [join(OUT, "node_modules"), join(ROOT, "tests/js/node_modules")],
    preserveSymlinks: true,
    // A development build: StrictMode's double mount happens only there.
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "warning",
  });
  // esbuild leaves `new URL("…wasm", import.meta.url)` alone: both builds' wasm go next to the bundle.
  for (const wasm of ["mcp_task_client_base_bg.wasm", "mcp_task_client_bg.wasm"]) await copyFile(join(PKG, wasm), join(OUT, `site/${wasm}`));
  await writeFile(join(OUT, "site/index.html"), `<!doctype html><meta charset="utf-8"><title>react</title>
    <div id="root"></div><script type="module" src="./react-app.js"></script>`);
  chromium = await openChromium("mcp-react-profile-");
  page = await chromium.browser.newPage();
  page.on("pageerror", (e) => assert.fail(`page error: ${e}`));
  await page.addInitScript(WIRE_LOG);
  await page.goto(`${chromium.site.origin}/tests/js/browser/.react-out/site/index.html?server=${encodeURIComponent(server.url)}`);
  await page.waitForFunction(() => document.getElementById("conn")?.textContent === "connected legacy", null, { timeout: 30_000 });
});

after(async () => {
  await chromium?.close();
  await server?.stop();
  await rm(OUT, { recursive: true, force: true });
});

const wire = () => page.evaluate(() => window.wire.map((r) => ({ ...r })));
const count = (log, method) => log.filter((r) => r.method === method).length;
const line = (name) => page.textContent(`#run-${name}`);
/** Waits until runner `name`'s line matches `re`; on a timeout, says what the line was. */
async function waitLine(name, re, timeout = 30_000) {
  try {
    await page.waitForFunction(([n, src]) => new RegExp(src).test(document.getElementById(`run-${n}`)?.textContent ?? ""), [name, re.source], { timeout });
  } catch (e) {
    assert.fail(`runner ${name}: ${JSON.stringify(await page.textContent(`#run-${name}`).catch(() => null))} never matched ${re} (${e.message})`);
  }
}
const taskOf = (name) => page.getAttribute(`#run-${name}`, "data-task");

test("the provider under StrictMode: one session for every consumer; useMcpClient() outside it throws invalidInput", async () => {
  assert.ok((await page.evaluate(() => window.mounts)) >= 2, "StrictMode mounted twice");
  assert.equal(await page.textContent("#conn2"), "connected legacy", "a second consumer reads the same client");
  assert.equal(count(await wire(), "initialize"), 1, "one initialize");
  assert.match(await page.textContent("#outside"), /^invalidInput: useMcpClient\(\) needs an <McpClientProvider> above it/);
});

test("useCallTool: start on demand, pending until the result, typed result; reset clears it", async () => {
  await page.evaluate(() => window.app.mount("a", "long_job"));
  await waitLine("a", /^idle\|settled\|\|$/);
  const id = await page.evaluate(async () => (await window.runners.a.start({ steps: 2, stepMs: 200 }))?.id ?? null);
  assert.equal(typeof id, "string");
  assert.match(await line("a"), /\|pending\|/);
  await waitLine("a", /^completed\|settled\|\S/);
  assert.match(await line("a"), /long_job done/);
  await page.evaluate(() => window.runners.a.reset());
  await waitLine("a", /^idle\|settled\|\|$/);
  // A call that cannot be made (arguments that are not an object): `start` resolves null, `error`
  // says why, nothing pending; `startAsync` rejects with the same kind.
  await page.evaluate(() => window.app.mount("bad", "long_job"));
  await waitLine("bad", /^idle/);
  assert.equal(await page.evaluate(() => window.runners.bad.start([1, 2])), null);
  await waitLine("bad", /^idle\|settled\|\|error invalidInput$/);
  assert.equal(await page.evaluate(() => window.runners.bad.startAsync([1, 2]).catch((e) => e.kind)), "invalidInput");
  // A tool the server does not have: the call's task fails, `error` says so.
  await page.evaluate(() => window.app.mount("none", "no_such_tool"));
  await waitLine("none", /^idle/);
  await page.evaluate(() => window.runners.none.start({}));
  await waitLine("none", /^idle\|settled\|MCP error -32602: Tool no_such_tool not found\|$/);
});

test("unmount stops waiting: nothing is sent, the held tasks/result is aborted at once", async () => {
  await page.evaluate(() => window.app.mount("b", "slow_job"));
  await waitLine("b", /^idle/);
  await page.evaluate(() => window.runners.b.start({ ms: 20_000 }));
  await waitLine("b", /^working\|pending/);
  const id = await taskOf("b");
  const held = () => wire().then((log) => log.filter((r) => r.method === "tasks/result" && r.taskId === id));
  for (let i = 0; i < 50 && (await held()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok((await held()).length >= 1, `the result was held: ${JSON.stringify((await wire()).filter((r) => r.taskId === id || r.method === "tools/call"))}`);
  const before = await wire();
  await page.evaluate(() => window.app.unmount("b"));
  // Long before the task's result GC (5 min by default).
  await page.waitForFunction((id) => window.wire.filter((r) => r.method === "tasks/result" && r.taskId === id).every((r) => r.aborted), id, { timeout: 2_000 })
    .catch(async () => assert.fail(`not released: ${JSON.stringify((await wire()).filter((r) => r.taskId === id))}`));
  const sent = (await wire()).slice(before.length).filter((r) => r.taskId === id);
  assert.deepEqual(sent, [], "no request for the task after the unmount (no cancel, no poll)");
});

test("reset() and useTask(id)'s unmount stop waiting: the task is released only when its last follower left, never cancelled", async () => {
  await page.evaluate(() => window.app.mount("g", "slow_job"));
  await waitLine("g", /^idle/);
  await page.evaluate(() => window.runners.g.start({ ms: 20_000 }));
  await waitLine("g", /^working\|pending/);
  const id = await taskOf("g");
  await page.evaluate((id) => window.app.watch(id), id);
  await page.waitForFunction((id) => /^working/.test(document.getElementById(`watch-${id}`)?.textContent ?? ""), id, { timeout: 10_000 });
  const requests = async () => (await wire()).filter((r) => r.taskId === id);
  const open = async () => (await requests()).filter((r) => r.method === "tasks/result" && !r.aborted).length;
  await page.evaluate(() => window.runners.g.reset());
  await waitLine("g", /^idle\|settled\|\|$/);
  // The watcher still follows: the held request stays open for it.
  await new Promise((r) => setTimeout(r, 2_000));
  assert.match(await page.textContent(`#watch-${id}`), /^working/);
  assert.ok((await open()) >= 1, `still held for the watcher: ${JSON.stringify(await requests())}`);
  await page.evaluate((id) => window.app.unwatch(id), id);
  await page.waitForFunction((id) => window.wire.filter((r) => r.method === "tasks/result" && r.taskId === id).every((r) => r.aborted), id, { timeout: 2_000 })
    .catch(async () => assert.fail(`not released: ${JSON.stringify(await requests())}`));
  assert.deepEqual((await requests()).filter((r) => r.method === "tasks/cancel"), [], "nothing cancelled");
});

test("cancel only when asked: cancel(), and cancelOnUnmount on a real unmount", async () => {
  await page.evaluate(() => {
    window.app.mount("c", "slow_job");
    window.app.mount("d", "slow_job", true);
  });
  await waitLine("d", /^idle/);
  await page.evaluate(() => Promise.all([window.runners.c.start({ ms: 20_000 }), window.runners.d.start({ ms: 20_000 })]));
  await waitLine("c", /^working/);
  await waitLine("d", /^working/);
  const [c, d] = [await taskOf("c"), await taskOf("d")];
  await page.evaluate(() => window.runners.c.cancel());
  await waitLine("c", /^cancelled\|settled\|\|error cancelled$/);
  await page.evaluate(() => window.app.unmount("d"));
  const cancels = async (id) => (await wire()).filter((r) => r.method === "tasks/cancel" && r.taskId === id).length;
  for (let i = 0; i < 50 && (await cancels(d)) < 1; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await cancels(c), 1, "one tasks/cancel from cancel()");
  assert.equal(await cancels(d), 1, "one tasks/cancel after the real unmount");
});

test("a task followed by id with the provider's client; unmounting the provider ends its session, mounting it again opens one, a call started meanwhile waits for it", async () => {
  await page.evaluate(() => window.app.mount("e", "long_job"));
  await waitLine("e", /^idle/);
  const id = await page.evaluate(async () => (await window.runners.e.start({ steps: 2, stepMs: 200 })).id);
  await page.evaluate((id) => window.app.watch(id), id);
  await page.waitForFunction((id) => /^completed\|.*long_job done/.test(document.getElementById(`watch-${id}`)?.textContent ?? ""), id, { timeout: 30_000 });
  const before = await wire();
  await page.evaluate(() => window.app.provide(false));
  await page.waitForFunction((n) => window.wire.slice(n).some((r) => r.method === "DELETE"), before.length, { timeout: 10_000 });
  // A call started while the new provider is still connecting waits for its client.
  const early = await page.evaluate(async () => {
    window.app.provide(true);
    window.app.mount("f", "long_job");
    while (!window.runners.f) await new Promise((r) => setTimeout(r, 0));
    const status = document.getElementById("conn")?.textContent;
    const handle = await window.runners.f.startAsync({ steps: 1, stepMs: 10 });
    return { status, id: handle.id };
  });
  assert.equal(early.status, "connecting");
  assert.equal(typeof early.id, "string");
  await waitLine("f", /^completed\|settled\|long_job done/);
  const later = (await wire()).slice(before.length);
  assert.equal(count(later, "DELETE"), 1, "the session ended once");
  assert.equal(count(later, "initialize"), 1, "one new session");
});
