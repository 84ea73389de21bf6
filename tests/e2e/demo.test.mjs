// End-to-end test of the demo: `scripts/demo.mjs` (real TS SDK task server + static server) driven through
// the www/ dashboard in headless Chromium (playwright-core, the system /usr/bin/chromium).
//
//   node --test tests/e2e/            (needs pkg/ built: bash scripts/build.sh; deps: npm ci in tests/js)
//
// Covers every tool of the demo server through the page (forms answered, a task cancelled, one abandoned
// with "Stop waiting"), hostile server text (`<img src=x onerror=...>`) rendered as text, a reload that picks
// the tracked tasks up again, the page served from another origin than the MCP server and from the same, and
// the draft dialect against the draft FIXTURE server (tests/fixtures/draft-server).
// Screenshots go to artifacts/screenshots/. Every wait is bounded; the demo is stopped at the end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = join(ROOT, "artifacts", "screenshots");
const require = createRequire(join(ROOT, "tests", "js", "package.json"));
const { chromium } = require("playwright-core");

const WAIT = 20_000;
/** Hostile text: would add an image and run code if any of it were parsed as HTML. */
const XSS = "<img src=x onerror=window.__xss=(window.__xss||0)+1>";
const TERMINAL = ["completed", "failed", "cancelled", "unknown", "expired"];

let demo; // the demo process
let urls; // {mcp, dashboard, sameOrigin}
let context; // browser context (fresh user-data-dir)
let userDataDir;
const pageErrors = [];
const dialogs = [];

function startDemo() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "scripts", "demo.mjs"), "--port", "0", "--no-build"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`demo did not get READY in 40 s\n${out}\n${err}`));
    }, 40_000);
    child.stderr.on("data", (d) => (err = (err + d).slice(-4000)));
    child.stdout.on("data", (d) => {
      out += d;
      const get = (k) => new RegExp(`^${k} (\\S+)$`, "m").exec(out)?.[1];
      if (get("READY")) {
        clearTimeout(timer);
        resolvePromise({ child, urls: { mcp: get("MCP"), dashboard: get("DASHBOARD"), sameOrigin: get("DASHBOARD_SAME_ORIGIN") } });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited early (${code})\n${out}\n${err}`));
    });
  });
}

async function stats() {
  const r = await fetch(new URL("/stats", urls.mcp), { signal: AbortSignal.timeout(5000) });
  return r.json();
}

async function newPage() {
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e?.stack ?? e)));
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function waitConnected(page) {
  await page.waitForSelector('#conn-state[data-state="connected"]', { timeout: WAIT });
  await page.waitForSelector("#tools .tool", { timeout: WAIT });
}

/** Starts a tool through its row in the page; returns the new task card's locator. */
async function startTool(page, name, args, ttlMs) {
  const row = page.locator(`#tools .tool[data-tool="${name}"]`);
  await row.locator("textarea.args").fill(JSON.stringify(args));
  if (ttlMs !== undefined) await row.locator("input.ttl").fill(String(ttlMs));
  const before = await page.locator("#tasks .task").count();
  await row.locator("button.start").click();
  await page.waitForFunction((n) => document.querySelectorAll("#tasks .task").length > n, before, { timeout: WAIT });
  const key = await page.locator("#tasks .task").first().getAttribute("data-key");
  return page.locator(`#tasks .task[data-key="${key}"]`);
}

async function waitStatus(card, statuses, timeout = WAIT) {
  const sel = statuses.map((s) => `[data-status="${s}"]`).join(",");
  await card.and(card.page().locator(`#tasks .task:is(${sel})`)).waitFor({ timeout });
  return card.getAttribute("data-status");
}

async function waitDone(card, timeout = WAIT) {
  await card.and(card.page().locator('#tasks .task[data-done="true"]')).waitFor({ timeout });
  return { status: await card.getAttribute("data-status"), outcome: await card.locator(".outcome").textContent() };
}

before(async () => {
  assert.ok(
    existsSync(join(ROOT, "pkg", "index.js")),
    "pkg/ is not built: run `bash scripts/build.sh` first (this test drives the real package)",
  );
  mkdirSync(SHOTS, { recursive: true });
  ({ child: demo, urls } = await startDemo());
  userDataDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 960 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
});

after(async () => {
  await context?.close().catch(() => {});
  if (demo && demo.exitCode === null) {
    const gone = new Promise((r) => demo.once("exit", r));
    demo.kill("SIGTERM");
    const t = setTimeout(() => demo.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(t);
  }
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test("cross-origin: every demo tool through the page, input forms, cancel, stop waiting, hostile text", { timeout: 240_000 }, async () => {
  const page = await newPage();
  const mcpOrigin = new URL(urls.mcp).origin;
  assert.notEqual(new URL(urls.dashboard).origin, mcpOrigin, "the page must be on another origin than the server");
  await page.goto(urls.dashboard);
  await waitConnected(page);
  assert.equal(await page.locator("#dialect").textContent(), "legacy");
  const tools = await page.locator("#tools .tool").evaluateAll((ns) => ns.map((n) => n.dataset.tool));
  for (const t of ["long_job", "fail_job", "ask_input", "sample_job", "quick", "needs_task", "maybe_task", "slow_job"]) {
    assert.ok(tools.includes(t), `tool ${t} listed (got ${tools})`);
  }
  assert.equal(await page.locator('#tools .tool[data-tool="long_job"] .support').textContent(), "required");
  assert.equal(await page.locator('#tools .tool[data-tool="quick"] .support').textContent(), "forbidden");
  await shot(page, "01-connected");

  // long_job: progress from the status messages, then the result.
  const long = await startTool(page, "long_job", { steps: 5, stepMs: 400 });
  await page.waitForFunction(
    (key) => /step [1-4]\/5/.test(document.querySelector(`[data-key="${key}"] .status-message`)?.textContent ?? ""),
    await long.getAttribute("data-key"),
    { timeout: WAIT },
  );
  const width = await long.locator(".bar").evaluate((b) => parseFloat(b.style.width));
  assert.ok(width > 0 && width < 100, `progress bar part-way (${width}%)`);
  await shot(page, "02-long-job-running");
  let d = await waitDone(long);
  assert.equal(d.status, "completed");
  assert.match(d.outcome, /long_job done: 5 steps/);
  const longId = await long.getAttribute("data-task-id");
  assert.ok(longId, "the card shows the task id");

  // fail_job both ways.
  d = await waitDone(await startTool(page, "fail_job", { ms: 200 }));
  assert.equal(d.status, "failed");
  assert.match(d.outcome, /fail_job: failed on purpose/);
  d = await waitDone(await startTool(page, "fail_job", { ms: 200, how: "iserror" }));
  assert.equal(d.status, "completed");
  assert.match(d.outcome, /tool error/);

  // ask_input: the elicitation form (its prompt is hostile server text), answered in the page.
  const ask = await startTool(page, "ask_input", { message: `Answer please ${XSS}` });
  const form = page.locator('form.input-request[data-method="elicitation/create"]');
  await form.waitFor({ timeout: WAIT });
  assert.equal(await form.locator(".prompt").textContent(), `Answer please ${XSS}`);
  await form.locator('input[name="answer"]').fill("forty-two");
  await shot(page, "03-elicitation-form");
  await form.locator("button.accept").click();
  d = await waitDone(ask);
  assert.equal(d.status, "completed");
  assert.match(d.outcome, /ask_input got answer: forty-two/);

  // sample_job: the sampling text box.
  const sample = await startTool(page, "sample_job", { prompt: "Say hello" });
  const sform = page.locator('form.input-request[data-method="sampling/createMessage"]');
  await sform.waitFor({ timeout: WAIT });
  await sform.locator("textarea.sample-text").fill("hello from the page");
  await shot(page, "04-sampling-form");
  await sform.locator("button.accept").click();
  d = await waitDone(sample);
  assert.equal(d.status, "completed");
  assert.match(d.outcome, /sample_job got: hello from the page/);

  // quick (taskSupport forbidden): no task, the result shown as text (it echoes hostile text).
  d = await waitDone(await startTool(page, "quick", { text: XSS }));
  assert.match(d.outcome, /quick: <img src=x onerror=/);

  d = await waitDone(await startTool(page, "needs_task", { ms: 100 }));
  assert.equal(d.status, "completed");
  d = await waitDone(await startTool(page, "maybe_task", { ms: 100 }));
  assert.equal(d.status, "completed");

  // slow_job + Cancel: the server confirms `cancelled`.
  const slow = await startTool(page, "slow_job", { ms: 30_000 });
  await waitStatus(slow, ["working"]);
  await slow.locator("button.cancel").click();
  assert.equal(await waitStatus(slow, ["cancelled"]), "cancelled");
  const slowId = await slow.getAttribute("data-task-id");
  const afterCancel = await stats();
  assert.ok((afterCancel.byMethod["tasks/cancel"] ?? 0) >= 1, "tasks/cancel reached the server");
  assert.ok(slowId);

  // slow_job + Stop waiting: local only — no tasks/cancel, and polling for it stops.
  const idle = await startTool(page, "slow_job", { ms: 30_000 });
  await waitStatus(idle, ["working"]);
  const idleId = await idle.getAttribute("data-task-id");
  const cancelsBefore = (await stats()).byMethod["tasks/cancel"] ?? 0;
  await idle.locator("button.stop").click();
  assert.equal(await waitStatus(idle, ["stopped"]), "stopped");
  await page.waitForTimeout(500);
  const stoppedAt = Date.now();
  await page.waitForTimeout(3500);
  const s = await stats();
  const later = s.requests.filter((r) => r.taskId === idleId && r.t > stoppedAt).map((r) => r.method);
  assert.deepEqual(later, [], "nothing is asked about the task after Stop waiting");
  assert.equal(s.byMethod["tasks/cancel"] ?? 0, cancelsBefore, "Stop waiting sends nothing");

  // A status message carrying markup shows as text: the task snapshot in the server's CreateTaskResult is
  // given a hostile statusMessage on the wire (this server's own messages are fixed "step i/n" texts).
  await page.route(urls.mcp, async (route) => {
    const req = route.request();
    if (req.method() !== "POST" || !/"tools\/call"/.test(req.postData() ?? "")) return route.continue();
    const res = await route.fetch();
    const body = (await res.text()).replace(/"status":"working"/, `"status":"working","statusMessage":"${XSS}"`);
    await route.fulfill({ response: res, body });
  });
  const hostile = await startTool(page, "long_job", { steps: 2, stepMs: 3000 });
  const hostileKey = await hostile.getAttribute("data-key");
  await page.waitForFunction(
    ([key, x]) => (document.querySelector(`[data-key="${key}"] .status-message`)?.textContent ?? "").startsWith(x),
    [hostileKey, XSS],
    { timeout: WAIT },
  );
  await shot(page, "06-hostile-status-as-text");
  assert.equal(await page.locator("img").count(), 0, "no <img> element was created from server text");
  assert.equal(await page.evaluate(() => window.__xss), undefined, "no injected handler ran");
  await page.unroute(urls.mcp);
  d = await waitDone(hostile);
  assert.equal(d.status, "completed");

  // The event log saw it all.
  const logText = await page.locator("#log").textContent();
  for (const w of ["connected", "working → completed", "elicitation/create", "sampling/createMessage", "cancel"]) {
    assert.ok(logText.includes(w), `event log mentions ${w}`);
  }
  await shot(page, "05-all-done");

  // Requests went to the MCP server's own origin (CORS), not the page's.
  const hosts = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
  assert.ok(hosts.some((h) => h.startsWith(`${mcpOrigin}/mcp`)), "the page talked to the other origin");
  assert.equal(dialogs.length, 0, "no dialogs");
  assert.deepEqual(pageErrors, [], "no uncaught page errors");
  await page.close();
});

test("reload: client.resume() hands the unfinished tasks back and they are followed", { timeout: 120_000 }, async () => {
  const page = await newPage();
  await page.goto(urls.dashboard);
  await waitConnected(page);
  const card = await startTool(page, "long_job", { steps: 10, stepMs: 400 });
  await waitStatus(card, ["working"]);
  const taskId = await card.getAttribute("data-task-id");
  assert.ok(taskId);
  // The client stores it (persist: true); the page keeps no task list of its own.
  const own = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("mcp-task-dashboard:") && !k.endsWith(":last-server")));
  assert.deepEqual(own, [], "no second task list beside the client's");
  const getsBefore = (await stats()).tasksGetByTask[taskId] ?? 0;

  await page.reload();
  await waitConnected(page);
  const again = page.locator(`#tasks .task[data-task-id="${taskId}"]`);
  await again.waitFor({ timeout: WAIT });
  await page.waitForFunction(
    async ([url, id, n]) => {
      const s = await (await fetch(url)).json();
      return (s.tasksGetByTask[id] ?? 0) > n;
    },
    [new URL("/stats", urls.mcp).href, taskId, getsBefore],
    { timeout: WAIT, polling: 500 },
  );
  const status = await waitStatus(again, TERMINAL, 30_000);
  await shot(page, "07-after-reload");
  assert.ok(TERMINAL.includes(status), `the re-watched task ended (${status})`);
  assert.deepEqual(pageErrors, [], "no uncaught page errors");
  await page.close();
});

test("same origin: the page and /mcp on one origin", { timeout: 120_000 }, async () => {
  const page = await newPage();
  await page.goto(urls.sameOrigin);
  await waitConnected(page);
  const origin = new URL(urls.sameOrigin).origin;
  assert.equal(await page.locator("#server-url").inputValue(), new URL(urls.mcp).pathname);
  let d = await waitDone(await startTool(page, "long_job", { steps: 2, stepMs: 200 }));
  assert.equal(d.status, "completed");
  d = await waitDone(await startTool(page, "quick", { text: "same origin" }));
  assert.match(d.outcome, /quick: same origin/);
  const ask = await startTool(page, "ask_input", {});
  const form = page.locator('form.input-request[data-method="elicitation/create"]');
  await form.waitFor({ timeout: WAIT });
  await form.locator('input[name="answer"]').fill("same");
  await form.locator("button.accept").click();
  d = await waitDone(ask);
  assert.match(d.outcome, /answer: same/);
  await shot(page, "08-same-origin");
  const names = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
  assert.ok(names.some((n) => n.startsWith(`${origin}/mcp`)), "requests went to the page's own origin");
  assert.ok(!names.some((n) => n.startsWith(`${new URL(urls.mcp).origin}/mcp`)), "and not to the server's port");
  assert.deepEqual(pageErrors, [], "no uncaught page errors");
  await page.close();
});

/** Starts the draft-dialect fixture server on a free port. */
function startDraft() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "tests", "fixtures", "draft-server", "server.mjs"), "--port", "0"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error("draft fixture did not get READY in 10 s"));
    }, 10_000);
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^READY (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, url: m[1] });
      }
    });
    child.on("exit", (code) => reject(new Error(`draft fixture exited early (${code})`)));
  });
}

test("draft dialect: the dashboard against the SEP-1686 draft fixture", { timeout: 120_000 }, async () => {
  const draft = await startDraft();
  try {
    const page = await newPage();
    const base = new URL(urls.dashboard).origin;
    await page.goto(`${base}/www/?server=${encodeURIComponent(draft.url)}&dialect=draft`);
    await waitConnected(page);
    assert.equal(await page.locator("#dialect").textContent(), "draft");
    let d = await waitDone(await startTool(page, "long_job", { steps: 3, stepMs: 300 }));
    assert.equal(d.status, "completed");
    assert.match(d.outcome, /long_job done after 3 steps/);

    const ask = await startTool(page, "long_job", { steps: 2, stepMs: 200, ask: "elicit" });
    const form = page.locator('form.input-request[data-method="elicitation/create"]');
    await form.waitFor({ timeout: WAIT });
    await form.locator('input[name="name"]').fill("draft-user");
    await form.locator('input[name="count"]').fill("3");
    await form.locator("button.accept").click();
    d = await waitDone(ask);
    assert.equal(d.status, "completed");
    assert.match(d.outcome, /draft-user/);

    // The draft's `error` string of a failed task is server text too: it must show as text.
    d = await waitDone(await startTool(page, "fail_job", { afterMs: 200, message: `boom ${XSS}` }));
    assert.equal(d.status, "failed");
    assert.ok(d.outcome.includes(`boom ${XSS}`), "the hostile error shows literally");
    d = await waitDone(await startTool(page, "quick", { text: "quick draft" }));
    assert.match(d.outcome, /quick draft/);

    const slow = await startTool(page, "long_job", { steps: 100, stepMs: 200 });
    await waitStatus(slow, ["working"]);
    await slow.locator("button.cancel").click();
    assert.equal(await waitStatus(slow, ["cancelled"]), "cancelled");
    await shot(page, "09-draft-dialect");

    // Reload mid-task: this server does not bind tasks to sessions, so the re-watched task runs to its result.
    const long = await startTool(page, "long_job", { steps: 12, stepMs: 250 });
    await waitStatus(long, ["working"]);
    const longId = await long.getAttribute("data-task-id");
    await page.reload();
    await waitConnected(page);
    const again = page.locator(`#tasks .task[data-task-id="${longId}"]`);
    await again.waitFor({ timeout: WAIT });
    const after = await waitDone(again);
    assert.equal(after.status, "completed");
    assert.match(after.outcome, /long_job done after 12 steps/);
    await shot(page, "10-draft-after-reload");
    const s = await (await fetch(new URL("/stats", draft.url))).json();
    assert.ok((s.byMethod["notifications/cancelled"] ?? 0) >= 1, "cancel is notifications/cancelled in the draft");
    assert.ok((s.byMethod["tasks/get"] ?? 0) >= 1, "the draft tasks were polled");
    assert.equal(await page.locator("img").count(), 0);
    assert.deepEqual(pageErrors, [], "no uncaught page errors");
    await page.close();
  } finally {
    draft.child.kill("SIGTERM");
  }
});
