// Fault matrix runner: for each fault case (cases.mjs) × server kind, runs a batch of tasks through
// the fault proxy (proxy.mjs) in headless Chromium with the built pkg/, and asserts:
//   panic    no `unreachable`/panic in the wasm module, and it stays usable (a fresh call on the same
//            client and on a new client both complete once the fault is gone)
//   once     every started task ends in exactly one terminal callback or one explicit error, and the
//            end is the one the case expects (recoverable faults must not lose the result)
//   bounds   requests per task per interval within the scheduler's bounds (its defaults),
//            counted at the proxy: one in-flight tasks/get per task, no gap under the error-retry
//            floor, Retry-After honoured, no re-sent tools/call, no initialize storm
//   memory   JS heap (CDP, after forced GC) and wasm memory back near the baseline after the
//            clients are closed
// Prints a table and writes it to docs/fault-matrix.md. Exit code 1 on any failed assertion.
//
//   node tests/faults/matrix.mjs [--small|--large] [--kinds ts-sdk,rmcp3] [--cases a,b] [--no-write]
//        [--pkg DIR] [--concurrency N] [--tasks N] [--timeout-ms N] [--artifacts DIR] [--verbose]
//        [--case-options 'id:timeoutMs=2500,n=15;id2:…']   (per case: client request timeout, tasks)
import http from "node:http";
import os from "node:os";
import { createReadStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startProxy } from "./proxy.mjs";
import { buildCases } from "./cases.mjs";
import { KINDS, startUpstream } from "./servers.mjs";
import { securityCase, staticHtmlScan } from "./security.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : d; };

const LARGE = flag("--large");
const MODE = LARGE ? "large" : "small";
const N = Number(opt("--tasks", LARGE ? 30 : 3));
const TIMEOUT_MS = Number(opt("--timeout-ms", 2500)); // the client's request timeout in these runs
const TASK_MS = LARGE ? 2500 : 1500; // how long each task works at the server
const TTL_MS = 60_000;
const DEADLINE_MS = LARGE ? 60_000 : 20_000; // every task must have ended by then
const CASE_BUDGET_MS = DEADLINE_MS + 45_000; // hard cap per case
const RUN_BUDGET_MS = LARGE ? 40 * 60_000 : 170_000; // hard cap for the whole run
const CONCURRENCY = Number(opt("--concurrency", LARGE ? 3 : 8));
const VERBOSE = flag("--verbose");
const PKG = path.resolve(opt("--pkg", path.join(ROOT, "pkg")));
const OUT = path.join(ROOT, "docs", "fault-matrix.md");
const ARTIFACTS = path.resolve(ROOT, opt("--artifacts", "artifacts/fault-matrix")); // per-case records (git-ignored)
const SECRET = `s3cr3t-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
// FAULT_CLIENT_OPTIONS (JSON) adds connect options, e.g. '{"link":"http1"}' to run without learning the link.
const CLIENT_OPTIONS = { requestTimeoutMs: TIMEOUT_MS, maxMessageBytes: 1024 * 1024, resultGcMs: 500,
  ...JSON.parse(process.env.FAULT_CLIENT_OPTIONS ?? "{}") };
/** `--case-options 'id:timeoutMs=2500,n=15;…'`: per case, the client request timeout and the batch size. */
const CASE_OPTIONS = Object.fromEntries((opt("--case-options", "") || "").split(";").filter(Boolean).map((spec) => {
  const [id, list = ""] = spec.split(":");
  const o = Object.fromEntries(list.split(",").filter(Boolean).map((kv) => kv.split("=")).map(([k, v]) => [k, Number(v)]));
  for (const [k, v] of Object.entries(o)) if (!["timeoutMs", "n"].includes(k) || !(v > 0)) throw new Error(`--case-options: bad ${k}=${v} for ${id}`);
  return [id, o];
}));
// Server kinds per mode: the small run covers every case on the reference server and the modern one.
const DEFAULT_KINDS = LARGE ? ["ts-sdk", "python-http", "rmcp2", "rmcp3"] : ["ts-sdk", "rmcp3"];
const SERVER_ARGS = { "ts-sdk": ["--poll-ms", "500"] };
const CONSUMING_RESULT = ["rmcp2"]; // rmcp 2's tasks/result consumes the task

const log = (...a) => console.error(`[faults ${((Date.now() - T0) / 1000).toFixed(1)}s]`, ...a);
const T0 = Date.now();
const LOADS = [os.loadavg()[0]]; // the machine's 1-min load average, sampled through the run
setInterval(() => LOADS.push(os.loadavg()[0]), 10_000).unref();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function loadPlaywright() {
  const tries = [path.join(ROOT, "tests/js/package.json"), process.env.PLAYWRIGHT_CORE_FROM].filter(Boolean);
  for (const from of tries) {
    try { return createRequire(from)("playwright-core"); } catch { /* next */ }
  }
  throw new Error("playwright-core not installed: run `npm ci` in tests/js (scripts/install.sh does)");
}

// ---------------------------------------------------------------- static files for the page

function startStatic() {
  const roots = { "/pkg/": PKG, "/page/": path.join(HERE, "page"), "/www/": path.join(ROOT, "www") };
  const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json", ".css": "text/css", ".ts": "text/plain" };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const prefix = Object.keys(roots).find((p) => url.pathname.startsWith(p));
    if (!prefix) { res.writeHead(404).end(); return; }
    const file = path.join(roots[prefix], path.normalize(decodeURIComponent(url.pathname.slice(prefix.length))).replace(/^(\.\.[/\\])+/, ""));
    if (!file.startsWith(roots[prefix]) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
    res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream", "cache-control": "no-store" });
    createReadStream(file).pipe(res);
  });
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

// ---------------------------------------------------------------- analysis

const MiB = 1024 * 1024;

/**
 * The scheduler's default bounds, checked on what the proxy saw and, where the browser stands between
 * the client and the proxy, on the page's record of the client's own polls (`polls`, see harness.mjs).
 * Returns a list of violations and `(note)`s.
 */
export function checkBounds(stats, { n, sessionFaults = 0, restarts = 0, refusedConnects = 0, polls = null, timeoutMs = TIMEOUT_MS }) {
  const v = [];
  const ERR_FLOOR = 400; // first error retry: 1 s × U(0.5, 1.5) ≥ 500 ms, minus timer slop
  for (const [id, t] of Object.entries(stats.tasks)) {
    // after a good poll: never faster than the server's interval (1 s when it gives none)
    const CLEAN_FLOOR = (t.pollInterval ?? 1000) - 100;
    v.push(...overlapping(id, t, { polls, timeoutMs, snapshotAt: stats.now - stats.startedAt }));
    for (let i = 1; i < t.gets.length; i++) {
      const prev = t.gets[i - 1];
      const gap = t.gets[i].t - prev.t;
      const clean = !prev.fault && prev.status >= 200 && prev.status < 300;
      // a poll re-sent right after the session was re-established (404 → initialize) is one resend;
      // so is one refused with 404 because its session was gone, re-sent on the new session (it
      // can reach the server after the new `initialize` when it was on its way meanwhile)
      const reinit = stats.timeline.some(([at, m]) => m === "initialize" && at > prev.t && at < t.gets[i].t);
      const resent = prev.status === 404 && prev.session !== t.gets[i].session;
      if (reinit || resent) continue;
      // A poll that waited in the browser for a connection reaches the proxy late, closer to the next
      // one than the client sent them: the client's pacing is the gap between its fetch calls.
      const called = (g) => polls?.[`${id}#${g.id}`]?.calledAt;
      const paced = (floor) => called(prev) !== undefined && called(t.gets[i]) - called(prev) >= floor;
      if (gap < ERR_FLOOR && paced(ERR_FLOOR)) continue;
      if (clean && gap < CLEAN_FLOOR && paced(CLEAN_FLOOR)) continue;
      if (gap < ERR_FLOOR) v.push(`${short(id)}: tasks/get ${gap} ms after the previous one (answered ${prev.status ?? "–"}${prev.fault ? ", fault " + prev.fault : ""})`);
      else if (clean && gap < CLEAN_FLOOR) v.push(`${short(id)}: tasks/get ${gap} ms after a clean poll (floor ${CLEAN_FLOOR})`);
    }
    for (let i = 0; i < t.gets.length; i++) {
      let k = i;
      while (k < t.gets.length && t.gets[k].t - t.gets[i].t < 10_000) k++;
      if (k - i > 20) { v.push(`${short(id)}: ${k - i} tasks/get within 10 s`); break; }
    }
  }
  // Retry-After: the next request about the same task (or of the same method, for task-less ones)
  // A task the server had already reported over (a push) before refusing its poll had its result asked for on
  // that news, maybe while the refused poll was still on its way: the fetch may reach the server after the
  // refusal although it left the client before (seen: 30 calls' requests queued in the browser's six
  // connections). The engine holding results during a Retry-After is tested natively (engine::tests::scale::batch).
  const fetchedOnNews = (ra, req) => req?.[1] === "tasks/result" && stats.tasks[ra.taskId]?.terminalAt < ra.at;
  for (const ra of stats.retryAfter) {
    const next = ra.taskId
      ? stats.tasks[ra.taskId]?.reqs.find(([at]) => at > ra.at)
      : stats.timeline.find(([at, m]) => at > ra.at && m === ra.method);
    if (fetchedOnNews(ra, next)) continue;
    if (next && next[0] - ra.at < ra.waitMs - 100)
      v.push(`${ra.taskId ? short(ra.taskId) : ra.method}: ${next[1]} sent ${next[0] - ra.at} ms after a ${ra.method} answered Retry-After ${ra.waitMs} ms`);
  }
  // the GET listening stream: reconnects at most about once a second (backoff, `retry:` floor)
  const gets = stats.timeline.filter(([, m]) => m === "GET").map(([t]) => t);
  for (let i = 0, k = 0; i < gets.length; i++) {
    while (k < gets.length && gets[k] - gets[i] < 5000) k++;
    if (k - i > 8) { v.push(`GET listening stream opened ${k - i}× within 5 s (${gets.length} in total)`); break; }
  }
  // a call refused with 404 for a session the server had ended never ran: sending it again is no re-send
  const calls = (stats.byMethod["tools/call"] ?? 0) - (stats.refused?.["tools/call"] ?? 0);
  if (calls > n) v.push(`tools/call sent ${calls}× for ${n} calls (a non-idempotent call was re-sent)`);
  const inits = stats.byMethod.initialize ?? 0;
  // A refused (503) connect is asked again; with the era remembered from an earlier connect to the
  // same URL, the first request is `initialize` itself.
  const initBudget = 1 + 2 * (sessionFaults + restarts) + refusedConnects;
  if (inits > initBudget) v.push(`initialize sent ${inits}× (budget ${initBudget})`);
  // global rate of the client's own requests: any 1 s window. Answers to the server's requests
  // ("response") are the server's choice, one per request it sent, so they do not count here.
  // Per task within one second: the call, a tasks/result held for input, that result asked again
  // when a push says the task ended while the held stream lags, and one poll.
  const own = stats.timeline.filter(([, method]) => method !== "response");
  const cap = 8 + 4 * n;
  for (let i = 0, k = 0; i < own.length; i++) {
    while (k < own.length && own[k][0] - own[i][0] < 1000) k++;
    if (k - i > cap) {
      const by = {};
      for (const [, m] of own.slice(i, k)) by[m] = (by[m] ?? 0) + 1;
      v.push(`${k - i} requests within 1 s (cap ${cap}): ${JSON.stringify(by)}`);
      break;
    }
  }
  return v;
}

// Chromium keeps the connection of a fetch aborted between its response head and its first body read
// open for up to 5 s, draining the body for reuse (net's HttpResponseBodyDrainer); the proxy then
// sees the poll open though the client gave it up.
const DRAIN_MS = 5000;

/**
 * One tasks/get in flight per task. Two overlapping at the proxy are one in flight at the client
 * when the page aborted the earlier fetch before it called the later one (`polls`, the page's record),
 * and the earlier connection closed within the browser's drain time of that abort: a note, not a
 * violation. Returns violations and `(note)`s.
 */
function overlapping(id, t, { polls, timeoutMs, snapshotAt }) {
  const out = [];
  const page = (g) => polls?.[`${id}#${g.id}`];
  const desc = (g) => `sent ${g.t}, ${g.fault ?? g.status ?? "no answer"}${g.headAt !== undefined ? `, head ${g.headAt}` : ""}, closed ${g.closedAt ?? "never"}${g.clientFin !== undefined ? ` (client FIN ${g.clientFin})` : ""}, socket ${g.socket}`;
  // the abort came at most the request timeout after the proxy saw the request: the drain ends by then
  const drained = (g) => (g.closedAt ?? snapshotAt) <= g.t + timeoutMs + DRAIN_MS + 1000;
  for (const o of t.overlaps ?? []) {
    const next = page(o.next);
    const abandoned = (g) => next && page(g)?.abortedAt !== undefined && page(g).abortedAt < next.calledAt && drained(g);
    const still = o.open.filter((g) => !abandoned(g));
    if (still.length) {
      out.push(`${short(id)}: ${t.maxInflight} tasks/get in flight at once (at ${o.t} ms; still open: ${still.map(desc).join("; ")})`);
      break;
    }
    const g = o.open[0];
    out.push(`(note) ${short(id)}: a tasks/get the client had aborted ${Math.round(next.calledAt - page(g).abortedAt)} ms before its next poll was still open at the server (${desc(g)}): the browser drains an aborted response up to ${DRAIN_MS / 1000} s`);
  }
  return out;
}

/** What a client saw of one task: its id, statuses, ends and result. */
const seen = (r) => r && { taskId: r.taskId, statuses: r.statuses, ends: r.ends, result: r.result };
const short = (id) => (String(id).length > 12 ? "…" + String(id).slice(-8) : String(id)); // ids may share a session prefix

/** Checks the batch records: exactly one end per task, of the expected kind. */
export function checkEnds(batch, c) {
  const v = [];
  const outcomes = {};
  if (batch.connectError) {
    const ok = c.connectErrorOk && batch.connectError.kind; // an explicit, typed rejection of connect()
    return { v: ok ? [] : [`connect failed: ${batch.connectError.message}`], notes: [], outcomes: { [`connect error(${batch.connectError.kind ?? "?"})`]: 1 } };
  }
  for (const r of batch.recs) {
    const ends = r.ends;
    const tag = ends.length === 0 ? "no end" : endTag(ends[0]);
    outcomes[tag] = (outcomes[tag] || 0) + 1;
    if (ends.length === 0) { v.push(`task ${r.i} (${short(r.taskId)}): never ended (statuses ${r.statuses.join("→") || "none"})`); continue; }
    if (ends.length > 1) v.push(`task ${r.i} (${short(r.taskId)}): ${ends.length} ends (${ends.map((e) => endTag(e)).join(", ")})`);
    if (r.hookError) v.push(`task ${r.i}: subscribing threw ${r.hookError.message}`);
    const e = ends[0];
    if (e.via === "onDone") {
      if (!r.result) v.push(`task ${r.i} (${short(r.taskId)}): onDone fired but result() never settled`);
      else if ((e.kind === "finished" && (e.status === "completed" || e.status == null) && e.outcomeKind === "result") !== r.result.ok) v.push(`task ${r.i}: onDone says ${tag} but result() ${r.result.ok ? "resolved" : "rejected: " + r.result.error?.message}`);
    }
    if (r.afterDone.length) {
      const msg = `task ${r.i} (${short(r.taskId)}): status ${r.afterDone.join(",")} reported after its end`;
      if (c.noStatusAfterDone) v.push(msg); else v.push(`(note) ${msg}`);
    }
    if (c.expect === "completed" && !(isSuccess(e) && (c.pattern ?? /slow_job/).test(r.result?.text ?? "")))
      v.push(`task ${r.i} (${r.taskId ? short(r.taskId) : "no task"}): expected the result after a recoverable fault, got ${tag}${e.error ? ": " + e.error.message : ""}${r.result && !r.result.ok ? " / result(): " + r.result.error?.message : ""}`);
    const heldWon = c.heldResultWins && isSuccess(e) && (c.pattern ?? /slow_job/).test(r.result?.text ?? "");
    if (c.expect === "expired" && !(tag === "expired" || tag.startsWith("error(") || heldWon))
      v.push(`task ${r.i} (${short(r.taskId)}): expected expired after the server forgot the task, got ${tag}`);
  }
  return { v: v.filter((x) => !x.startsWith("(note)")), notes: v.filter((x) => x.startsWith("(note)")), outcomes };
}

/** A finished end whose task completed with a non-error result. */
function isSuccess(end) {
  // a task that completed, or (a server that answered without a task) the plain result
  return end.via === "onDone" && end.kind === "finished" && (end.status === "completed" || end.status == null) && end.outcomeKind === "result" && !end.isError;
}
/** A short label for how a task ended: its final status, `aborted`, or `error(kind)`. */
function endTag(e) {
  if (e.via === "callTool") return `error(${e.error?.kind ?? e.error?.name ?? "?"})`;
  if (e.kind === "finished") return `${e.status ?? "finished"}${e.outcomeKind === "error" ? "(rpc error)" : e.isError ? "(isError)" : ""}`;
  if (e.kind === "failed") return `error(${e.error?.kind ?? "?"})`;
  return e.kind ?? "?";
}

// ---------------------------------------------------------------- one case

async function measure(cdp, page) {
  const samples = [];
  for (let i = 0; i < 3; i++) {
    await cdp.send("HeapProfiler.collectGarbage");
    await sleep(150);
    const { usedSize } = await cdp.send("Runtime.getHeapUsage");
    samples.push(usedSize);
  }
  const wasm = await page.evaluate(() => window.__faults.wasmBytes());
  return { heap: Math.min(...samples), wasm };
}

async function runCase(browser, staticOrigin, c, kind) {
  const row = { case: c.id, title: c.title, kind, expect: c.expect, checks: {}, violations: [], notes: [], outcomes: {}, ms: 0 };
  const t0 = Date.now();
  const spec = KINDS[kind];
  const timeoutMs = c.timeoutMs ?? TIMEOUT_MS;
  // every case gets its own server: a fault (or a server bug it triggers) cannot leak into another case
  const own = await startUpstream(kind, { args: SERVER_ARGS[kind] });
  const up = own;
  // servers whose tasks/result consumes the task cannot recover a result cut on the wire
  if (c.expect === "completed" && CONSUMING_RESULT.includes(kind) && c.rules.some((r) => [r.method].flat().some((m) => m === "*" || m === "tasks/result"))) {
    c = { ...c, expect: "ended" };
    row.expect = "ended¹";
  }
  const proxy = await startProxy({ target: up.url, seed: hash(c.id + kind) });
  const context = await browser.newContext();
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.stack || e.message}`));
  const timers = [];
  try {
    await page.goto(`${staticOrigin}/page/index.html`);
    await page.waitForFunction(() => window.__faults?.ready === true, null, { timeout: 20_000 });
    const cdp = await context.newCDPSession(page);
    const batchArgs = (n, extra = {}) => ({
      url: proxy.url, n, tool: spec.tool.name, args: spec.tool.args(TASK_MS), ttlMs: TTL_MS,
      deadlineMs: DEADLINE_MS, graceMs: 800, options: { ...CLIENT_OPTIONS, requestTimeoutMs: timeoutMs }, secret: SECRET, ...extra,
    });
    // warm-up (no fault): must work, then the memory baseline
    // One more try if the machine was too busy for the first within the short request timeout (a set-up
    // check, not an assertion: a client that cannot run a plain task fails both).
    let warm = await page.evaluate((a) => window.__faults.runBatch(a), batchArgs(1, { args: spec.tool.args(200) }));
    let warmCheck = checkEnds(warm, { expect: "completed" });
    if (warmCheck.v.length) {
      log(`${c.id} × ${kind}: warm-up failed once (${warmCheck.v.join("; ")}), trying again`);
      warm = await page.evaluate((a) => window.__faults.runBatch(a), batchArgs(1, { args: spec.tool.args(200) }));
      warmCheck = checkEnds(warm, { expect: "completed" });
    }
    if (warmCheck.v.length) throw new Error(`warm-up without faults failed: ${warmCheck.v.join("; ")}`);
    const base = await measure(cdp, page);

    proxy.reset();
    proxy.setRules(c.rules, hash(c.id));
    if (c.action === "restart") {
      timers.push(setTimeout(() => { up.stopOnly().catch(() => {}); }, 1200));
      timers.push(setTimeout(() => { up.restart().catch((e) => log(`restart failed: ${e.message}`)); }, 3200));
    }
    const n = c.n ?? N;
    const batch = await page.evaluate((a) => window.__faults.runBatch(a), batchArgs(n, {
      keep: true, answer: !!c.answer, ...(c.tool ? { tool: c.tool.name, args: c.tool.args(TASK_MS) } : {}),
    }));
    const stats = proxy.stats();
    proxy.setRules([]);
    row.detail = { batch, stats: { byMethod: stats.byMethod, byStatus: stats.byStatus, refused: stats.refused, faults: stats.faults, retryAfter: stats.retryAfter, tasks: stats.tasks, timeline: stats.timeline } };
    if (c.action === "restart") { await sleep(Math.max(0, 3500 - (Date.now() - t0))); await waitUp(up); }

    const ends = checkEnds(batch, { ...c, pattern: c.tool?.pattern });
    row.outcomes = ends.outcomes;
    row.notes.push(...ends.notes);
    row.checks.once = ends.v.length === 0;
    row.violations.push(...ends.v.map((x) => `once: ${x}`));
    if (c.sizeError) {
      const texts = JSON.stringify([batch.warnings, batch.recs.map((r) => [r.ends, r.result])]);
      const clear = /too (large|big|long)|exceed|limit|size|bytes/i.test(texts);
      row.checks.once = row.checks.once && clear;
      if (!clear) row.violations.push("once: no caller-visible error says the message was too large");
    }

    const polls = await page.evaluate(() => window.__faults.pollLog());
    row.detail.polls = polls;
    const checked = checkBounds(stats, {
      n,
      polls,
      timeoutMs,
      sessionFaults: c.id === "session-gone" ? 1 : 0,
      restarts: c.action === "restart" ? 1 : 0,
      refusedConnects: c.id === "connect-5xx" ? 2 : 0,
    });
    const bounds = checked.filter((x) => !x.startsWith("(note)"));
    row.notes.push(...checked.filter((x) => x.startsWith("(note)")));
    row.checks.bounds = bounds.length === 0;
    row.violations.push(...bounds.map((x) => `bounds: ${x}`));
    row.requests = { total: stats.requests, get: stats.byMethod["tasks/get"] ?? 0, faults: Object.entries(stats.faults).filter(([k]) => !k.includes(":")).reduce((a, [, b]) => a + b, 0) };
    if (c.rules.length && !c.action && row.requests.faults === 0) {
      row.checks.bounds = false;
      row.violations.push("harness: the fault never fired in this run (the case tested nothing)");
    }

    // after the fault: the same client recovers, a new client works
    await page.evaluate(() => window.__faults.traceLog(true));
    const [again, fresh] = await page.evaluate((a) => Promise.all(a.map((x) => window.__faults.runBatch(x))),
      [batchArgs(1, { args: spec.tool.args(200), reuse: true, graceMs: 300 }), batchArgs(1, { args: spec.tool.args(200), graceMs: 300, noClose: true })]);
    const fetches = await page.evaluate(() => window.__faults.traceLog(false));
    await page.evaluate(() => window.__faults.closeAll());
    const panicLines = consoleLines.filter((l) => /unreachable|panicked|RuntimeError|wasm-bindgen: imported JS function that was not marked as `catch` threw/i.test(l));
    const runtimeErr = [...batch.recs, ...(again.recs ?? []), ...(fresh.recs ?? [])].some((r) => r.ends.some((e) => e.error?.isRuntimeError) || r.result?.error?.isRuntimeError);
    if (row.detail) Object.assign(row.detail, { again, fresh });
    const freshOk = checkEnds(fresh, { expect: "completed" }).v.length === 0;
    const againOk = checkEnds(again, { expect: "completed" }).v.length === 0;
    row.checks.panic = panicLines.length === 0 && !runtimeErr && freshOk;
    if (panicLines.length) row.violations.push(...panicLines.slice(0, 3).map((l) => `panic: ${l.slice(0, 300)}`));
    if (runtimeErr) row.violations.push("panic: a call failed with WebAssembly.RuntimeError");
    if (!freshOk) row.violations.push(`panic: a new client after the fault did not complete a task (${JSON.stringify(fresh.connectError ?? seen(fresh.recs?.[0])).slice(0, 300)})`);
    if (!againOk) row.violations.push(`once: the same client did not complete a task after the fault was gone (${JSON.stringify(again.connectError ?? seen(again.recs?.[0])).slice(0, 300)})`);
    if (!againOk) row.checks.once = false;
    if (!freshOk || !againOk) {
      // What the server saw of the after-fault tasks (the batch's stats above end with the fault).
      const after = proxy.stats();
      const ids = [...(again.recs ?? []), ...(fresh.recs ?? [])].map((r) => r.taskId).filter(Boolean);
      row.detail.afterFault = { tasks: Object.fromEntries(ids.map((id) => [id, after.tasks?.[id] ?? null])), timeline: (after.timeline ?? []).slice(-40) };
      // Printed too: a run's log may be all there is of it.
      for (const id of ids) {
        const t = after.tasks?.[id];
        log(`  after the fault, server saw ${short(id)}: ${t ? `tasks/get ×${t.get} (statuses ${t.statuses.slice(-6).join(",") || "none"}; errors ${t.getErrors.length}; in flight ${t.inflight}), tasks/result ×${t.result}` : "nothing"}`);
      }
      row.detail.afterFault.fetches = fetches;
      for (const f of fetches) log(`  fetch ${JSON.stringify(f)}`);
      log(`  after the fault, the last requests: ${(after.timeline ?? []).slice(-12).map(([t, m]) => `${t} ${m}`).join(" | ")}`);
    }

    // memory back near the baseline once the clients are closed
    await sleep(300);
    const after = await measure(cdp, page);
    const heapSlack = Math.max(2 * MiB, base.heap * 0.15);
    // wasm linear memory never shrinks: allow the high-water mark of one batch; for the size cases
    // also reading each concurrent oversized stream up to the limit in network-sized chunks (measured
    // ~3.5-5x the limit per stream with Chromium's chunking; see docs/fault-matrix.md)
    const wasmSlack = 2 * MiB + N * 64 * 1024 + (c.sizeError ? N * 5 * CLIENT_OPTIONS.maxMessageBytes : 0);
    if (c.sizeError && after.wasm != null) row.notes.push(`(note) wasm memory high-water +${mb(after.wasm - base.wasm)} for ${N} oversized stream(s) at a ${mb(CLIENT_OPTIONS.maxMessageBytes)} limit`);
    row.memory = { heapBase: base.heap, heapAfter: after.heap, wasmBase: base.wasm, wasmAfter: after.wasm };
    row.checks.memory = after.heap <= base.heap + heapSlack && (after.wasm == null || after.wasm <= base.wasm + wasmSlack);
    if (after.heap > base.heap + heapSlack) row.violations.push(`memory: JS heap ${mb(base.heap)} → ${mb(after.heap)} after GC`);
    if (after.wasm != null && after.wasm > base.wasm + wasmSlack) row.violations.push(`memory: wasm memory ${mb(base.wasm)} → ${mb(after.wasm)}`);

    // secrets never in console / storage / URLs, server HTML never rendered
    const leaks = [];
    if (consoleLines.some((l) => l.includes(SECRET))) leaks.push("the credential appeared in the console");
    const dump = await page.evaluate(() => window.__faults.storageDump());
    if (dump.includes(SECRET)) leaks.push("the credential was persisted in page storage");
    if (stats.paths.some((p) => p.includes(SECRET))) leaks.push("the credential appeared in a request URL");
    if ((await page.evaluate(() => window.__faults.xss())) !== 0) leaks.push("server text was interpreted as HTML");
    if (leaks.length) { row.checks.once = false; row.violations.push(...leaks.map((x) => `security: ${x}`)); }
    row.console = consoleLines.filter((l) => !l.startsWith("debug")).slice(0, 20);
  } catch (e) {
    row.violations.push(`harness: ${e.message.split("\n")[0]}`);
    row.checks.once = row.checks.once ?? false;
    row.setupError = true;
    row.console = consoleLines.slice(0, 20);
  } finally {
    for (const t of timers) clearTimeout(t);
    await context.close().catch(() => {});
    await proxy.stop();
    if (own) await own.stop().catch(() => {});
  }
  row.ms = Date.now() - t0;
  row.ok = !row.setupError && ["panic", "once", "bounds", "memory"].every((k) => row.checks[k] === true);
  return row;
}

async function waitUp(up) {
  for (let i = 0; i < 50; i++) {
    try { await fetch(up.url, { method: "OPTIONS", signal: AbortSignal.timeout(500) }); return; } catch { await sleep(200); }
  }
}

const mb = (b) => `${(b / MiB).toFixed(1)} MiB`;
function hash(s) { let h = 2166136261; for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619); return h >>> 0; }

// ---------------------------------------------------------------- table

function table(rows, extra) {
  const mark = (v) => (v === true ? "ok" : v === false ? "**FAIL**" : "–");
  const lines = [
    "| case | server | expect | outcomes | panic-free & usable | exactly one end | request bounds | memory | requests (gets) | faults hit | time |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const out = Object.entries(r.outcomes).map(([k, v]) => `${v} ${k}`).join(", ") || "–";
    lines.push(`| ${r.case} | ${r.kind} | ${r.expect} | ${out} | ${mark(r.checks.panic)} | ${mark(r.checks.once)} | ${mark(r.checks.bounds)} | ${mark(r.checks.memory)} | ${r.requests ? `${r.requests.total} (${r.requests.get})` : "–"} | ${r.requests?.faults ?? (r.case === "server-restart" ? "kill" : "–")} | ${(r.ms / 1000).toFixed(1)} s |`);
  }
  const failures = rows.filter((r) => !r.ok);
  const detail = failures.length ? ["", "### Failed assertions", ""].concat(failures.flatMap((r) => [`- **${r.case} × ${r.kind}**`, ...r.violations.slice(0, 12).map((x) => `  - ${x.replace(/\|/g, "\\|")}`)])) : [];
  if (rows.some((r) => String(r.expect).endsWith("¹"))) lines.push("", "¹ the fault can cut a `tasks/result` answer, and this server's `tasks/result` consumes the task: the result cannot be fetched again, so any single explicit end is accepted.");
  const notes = rows.filter((r) => r.notes?.length);
  const noteLines = notes.length ? ["", "### Notes (not failures)", ""].concat(notes.flatMap((r) => [`- ${r.case} × ${r.kind}: ${r.notes.slice(0, 3).join("; ")}`])) : [];
  return lines.concat(detail, noteLines, extra).join("\n");
}

// ---------------------------------------------------------------- main

async function main() {
  const cases = buildCases({ n: N, timeoutMs: TIMEOUT_MS }).map((c) => {
    const o = CASE_OPTIONS[c.id];
    return o ? { ...c, ...o, title: `${c.title} [${Object.entries(o).map(([k, v]) => `${k} ${v}`).join(", ")}]` } : c;
  });
  for (const id of Object.keys(CASE_OPTIONS)) if (!cases.some((c) => c.id === id)) throw new Error(`--case-options: no case ${id}`);
  const want = opt("--cases") ? opt("--cases").split(",") : null;
  const kinds = (opt("--kinds") ? opt("--kinds").split(",") : DEFAULT_KINDS).filter((k) => KINDS[k]?.transport === "http");
  if (!existsSync(path.join(PKG, "index.js"))) {
    console.error(`fault matrix: ${PKG}/index.js is missing: build it first (bash scripts/build.sh)`);
    console.log("fault matrix: 0 passed, 1 failed");
    process.exit(1);
  }
  rmSync(ARTIFACTS, { recursive: true, force: true });
  const hardStop = setTimeout(() => { console.error(`fault matrix: run budget ${RUN_BUDGET_MS} ms exceeded`); process.exit(1); }, RUN_BUDGET_MS);
  hardStop.unref();

  const { chromium } = loadPlaywright();
  // chromium.launch gives every run a fresh temporary user-data-dir (removed on close)
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-precise-memory-info", "--disable-background-timer-throttling", "--disable-renderer-backgrounding"],
  });
  const st = await startStatic();
  const upstreams = new Map();
  const rows = [];
  const skipped = [];
  try {
    for (const k of kinds) {
      try {
        upstreams.set(k, await startUpstream(k, { args: SERVER_ARGS[k] }));
        log(`server ${k} at ${upstreams.get(k).url}`);
      } catch (e) {
        skipped.push(`${k}: ${e.message.split("\n")[0]}`);
        log(`server ${k} unavailable: ${e.message.split("\n")[0]}`);
      }
    }
    if (!upstreams.size) throw new Error("no server could be started");
    const jobs = [];
    for (const c of cases) {
      if (want && !want.includes(c.id)) continue;
      for (const k of upstreams.keys()) {
        if (c.kinds && !c.kinds.includes(k)) continue;
        jobs.push([c, k]);
      }
    }
    jobs.push([securityCase(), [...upstreams.keys()][0]]);
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const [c, k] = jobs[next++];
        const row = await Promise.race([
          (c.run ? c.run({ browser, staticOrigin: st.origin, up: upstreams.get(k), kind: k, secret: SECRET, ROOT, N }) : runCase(browser, st.origin, c, k))
            .catch((e) => ({ case: c.id, kind: k, title: c.title, expect: c.expect, checks: {}, outcomes: {}, violations: [`harness: ${e.message.split("\n")[0]}`], notes: [], ok: false, ms: 0 })),
          sleep(CASE_BUDGET_MS).then(() => ({ case: c.id, kind: k, title: c.title, expect: c.expect, checks: {}, outcomes: {}, violations: [`harness: case exceeded ${CASE_BUDGET_MS} ms`], ok: false, ms: CASE_BUDGET_MS })),
        ]);
        if (row.detail || row.violations.length) {
          mkdirSync(ARTIFACTS, { recursive: true });
          const record = JSON.stringify(row, null, 1);
          writeFileSync(path.join(ARTIFACTS, `${c.id}--${k}.json`), record);
          // A failure's record is kept apart too: the next run of the case overwrites the one above.
          if (!row.ok) writeFileSync(path.join(ARTIFACTS, `failed-${new Date().toISOString().replace(/[:.]/g, "-")}--${c.id}--${k}.json`), record);
        }
        delete row.detail;
        rows.push(row);
        log(`${row.ok ? "ok  " : "FAIL"} ${c.id} × ${k} (${(row.ms / 1000).toFixed(1)} s)${row.ok ? "" : ": " + row.violations.slice(0, 2).join(" | ")}`);
        if (VERBOSE) log(JSON.stringify(row, null, 1));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
  } finally {
    await browser.close().catch(() => {});
    st.server.close();
    for (const u of upstreams.values()) await u.stop().catch(() => {});
  }
  const order = new Map(cases.map((c, i) => [c.id, i]));
  rows.sort((a, b) => (order.get(a.case) ?? 99) - (order.get(b.case) ?? 99) || a.kind.localeCompare(b.kind));
  const scan = staticHtmlScan(ROOT);
  const extra = [
    "",
    `Static scan (pkg/, www/) for innerHTML / outerHTML / insertAdjacentHTML / document.write: ${scan.ok ? "clean" : "**FAIL**"}`,
    ...scan.findings.map((f) => `- ${f}`),
    ...(skipped.length ? ["", "Servers not available in this run (not counted):", ...skipped.map((s) => `- ${s}`)] : []),
  ];
  const md = table(rows, extra);
  const passed = rows.filter((r) => r.ok).length + (scan.ok ? 1 : 0);
  const failed = rows.length + 1 - passed;
  const header = [
    "# Fault matrix",
    "",
    `Generated by \`bash tests/faults/run.sh --${MODE}${want ? " --cases " + want.join(",") : ""}\` (${N} task(s) per case, client request timeout ${TIMEOUT_MS} ms, ` +
      `tasks of ${TASK_MS} ms, Chromium headless, the built pkg/). Each case runs a batch through the fault proxy ` +
      "(tests/faults/proxy.mjs) in front of a real server; columns are the four assertions of tests/faults/matrix.mjs.",
    "",
    `Run: ${((Date.now() - T0) / 60_000).toFixed(1)} min on ${os.cpus().length} cores, load average (1 min) ` +
      `${(LOADS.reduce((a, b) => a + b, 0) / LOADS.length).toFixed(1)} on average, ${Math.max(...LOADS).toFixed(1)} at most.`,
    "",
  ];
  console.log(md);
  if (!flag("--no-write")) writeFileSync(OUT, header.concat(md, "", `Result: ${passed} passed, ${failed} failed.`, "").join("\n"));
  console.log(`\nfault matrix: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => { console.error(e.stack || e); console.log("fault matrix: 0 passed, 1 failed"); process.exit(1); });
}
