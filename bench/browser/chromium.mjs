// Chromium figures (playwright-core driving /usr/bin/chromium): scale with 10,000 tracked tasks,
// decode+dispatch throughput (each measurement on a fresh page, fresh heap), and request counts with
// K tabs (K pages of the one browser context: tabs of one origin).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getStats } from "../lib/daemon.mjs";
import { perTaskRates } from "../lib/stats.mjs";

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
  // The bench's TLS + HTTP/2 proxy (lib/nginx.mjs) has a self-signed certificate.
  "--ignore-certificate-errors"];

/** Counts live JS timers (setTimeout/setInterval not yet fired or cleared). Runs before page scripts. */
const TIMER_PROBE = `(() => {
  const live = new Set();
  const st = window.setTimeout, ct = window.clearTimeout, si = window.setInterval, ci = window.clearInterval;
  window.setTimeout = function (fn, ms, ...args) {
    let id;
    const wrapped = typeof fn === "function" ? function (...a) { live.delete(id); return fn.apply(this, a); } : fn;
    id = st.call(window, wrapped, ms, ...args);
    live.add(id);
    return id;
  };
  window.clearTimeout = function (id) { live.delete(id); return ct.call(window, id); };
  window.setInterval = function (fn, ms, ...args) { const id = si.call(window, fn, ms, ...args); live.add(id); return id; };
  window.clearInterval = function (id) { live.delete(id); return ci.call(window, id); };
  window.__liveTimers = () => live.size;
})();`;

export async function launchChromium() {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), "bench-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium", headless: true, args: FLAGS,
  });
  const browser = context.browser();
  const version = browser?.version() ?? (await (async () => {
    const p = await context.newPage();
    const v = await p.evaluate(() => navigator.userAgent);
    await p.close();
    return v.match(/Chrome\/([\d.]+)/)?.[1] ?? "unknown";
  })());
  return {
    version,
    /** A fresh page on the harness for `stack`, with the timer probe and a CDP session. */
    async page(staticUrl, stack) {
      const page = await context.newPage();
      await page.addInitScript(TIMER_PROBE);
      await page.goto(`${staticUrl}?stack=${stack}`);
      await page.waitForFunction(() => window.bench?.ready || window.benchError, null, { timeout: 30_000 });
      const err = await page.evaluate(() => window.benchError);
      if (err) throw new Error(`page failed to load ${stack}: ${err}`);
      const cdp = await context.newCDPSession(page);
      await cdp.send("Performance.enable");
      return { page, cdp };
    },
    close: async () => { await context.close(); rmSync(userDataDir, { recursive: true, force: true }); },
  };
}

async function heap(cdp, page) {
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  const wasm = await page.evaluate(() => window.bench.wasmBytes());
  return { js: usedSize, wasm };
}

/**
 * Sampled main-thread time in a CPU profile: JS (incl. wasm) and GC, excluding idle and "(program)";
 * also per 1-second bin (ms since profile start), to show how steady the window was.
 */
function profileBusy(profile) {
  const kind = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let js = 0;
  let gc = 0;
  const bins = [];
  const { samples = [], timeDeltas = [] } = profile;
  let at = 0; // µs since profile start
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    const dt = (timeDeltas[i + 1] ?? 0) / 1000;
    const k = kind.get(samples[i]);
    if (k === "(idle)" || k === "(program)" || k === "(root)") continue;
    const b = Math.floor(at / 1e6);
    bins[b] = (bins[b] ?? 0) + dt;
    if (k === "(garbage collector)") gc += dt; else js += dt;
  }
  return { js, gc, bins };
}

async function mainThreadSeconds(cdp) {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  return { script: m.ScriptDuration ?? NaN, task: m.TaskDuration ?? NaN, cpu: m.ThreadTime ?? NaN };
}

/**
 * 10,000 tasks tracked in one page. Returns live timers, heap growth per task, and main-thread
 * time per due task over one server interval in the stack's steady state.
 *
 * The window opens one interval `intervalMs` after the last `tools/call` the server saw (every task is
 * then in its poll loop, whatever the stack's creation took) and lasts one interval, so each task is due
 * about once in it. Per due task = the window's sums (JS + GC from a CPU profile; busy = CDP TaskDuration)
 * ÷ the task requests the server saw in it. A ratio of sums, not a median over short bins: a stack whose
 * requests queue in the browser is charged for a `fetch` in one bin and seen by the server in a later one.
 */
export async function scaleFigure(chrome, { staticUrl, stack, dialect, server, n, intervalMs }) {
  const T = performance.now();
  const phase = (what) => { if (process.env.BENCH_DEBUG) console.error(`[scale ${stack}] ${what} +${((performance.now() - T) / 1000).toFixed(1)}s`); };
  const { page, cdp } = await chrome.page(staticUrl, stack);
  phase("page ready");
  try {
    await page.evaluate(([u, d]) => window.bench.connect(u, d), [server.url, dialect]);
    const timersBefore = await page.evaluate(() => window.__liveTimers());
    const before = await heap(cdp, page);
    const tc = performance.timeOrigin + performance.now();
    const created = await page.evaluate(([k]) => window.bench.createMany(k, 3_600_000), [n]);
    const createMs = performance.timeOrigin + performance.now() - tc;
    const lastCreate = Math.max(...(await getStats(server.statsUrl)).requests.filter((r) => r.method === "tools/call").map((r) => r.t));
    phase("created");
    await page.waitForTimeout(1000);
    const after = await heap(cdp, page);
    phase("heap measured");
    const wait = lastCreate + intervalMs - (performance.timeOrigin + performance.now());
    if (wait > 0) await page.waitForTimeout(wait);
    const timers = await page.evaluate(() => window.__liveTimers());
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 250 });
    // Requests the page starts (CDP Network.requestWillBeSent, which the browser sends when a request starts, before it
    // waits for a connection): a window is steady when about as many start as the server sees.
    let started = 0;
    const onRequest = () => { started++; };
    page.on("request", onRequest);
    const m0 = await mainThreadSeconds(cdp);
    const t0 = performance.timeOrigin + performance.now();
    await cdp.send("Profiler.start");
    await page.waitForTimeout(intervalMs);
    const { profile } = await cdp.send("Profiler.stop");
    const m1 = await mainThreadSeconds(cdp);
    const t1 = performance.timeOrigin + performance.now();
    page.off("request", onRequest);
    const fetchesStarted = started;
    const prof = profileBusy(profile);
    // BENCH_CPUPROFILE=<dir>: keep the window's profile (DevTools' .cpuprofile; bench/profile-top.mjs sums it).
    const keep = process.env.BENCH_CPUPROFILE;
    if (keep) writeFileSync(path.join(keep, `scale-${stack}-${dialect}.cpuprofile`), JSON.stringify(profile));
    phase("profiled");
    const st = await getStats(server.statsUrl);
    const inWindow = st.requests.filter((r) => r.t >= t0 && r.t < t1);
    const polls = inWindow.filter((r) => r.taskId).length;
    const listPages = inWindow.filter((r) => r.method === "tasks/list").length;
    // Task requests per 1-s bin, and JS + GC ms per bin: how steady the window was (kept in latest.json).
    const pollsPerS = Array.from({ length: Math.ceil((t1 - t0) / 1000) }, () => 0);
    for (const r of inWindow) if (r.taskId || r.method === "tasks/list") pollsPerS[Math.floor((r.t - t0) / 1000)]++;
    phase("stats read");
    await Promise.race([page.evaluate(() => window.bench.close()).catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
    phase("closed");
    const due = polls + listPages;
    return {
      n, createErrors: created.errors, createErrorSamples: created.samples, createMs,
      lastCreateS: (lastCreate - tc) / 1000, windowStartS: (t0 - tc) / 1000, windowMs: t1 - t0,
      timersBefore, timers,
      heapPerTask: (after.js - before.js + after.wasm - before.wasm) / n,
      jsHeapPerTask: (after.js - before.js) / n, wasmPerTask: (after.wasm - before.wasm) / n,
      scriptMs: (m1.script - m0.script) * 1000, taskMs: (m1.task - m0.task) * 1000,
      duePolls: polls, listPages, preflights: st.preflights ?? 0,
      fetchesStarted,
      busyMsPerDue: due > 0 ? ((m1.task - m0.task) * 1000) / due : NaN,
      // The main thread's CPU time (CDP ThreadTime): the profile's samples and TaskDuration are wall time,
      // which grows with the load of other processes on the machine.
      cpuMsPerDue: due > 0 ? ((m1.cpu - m0.cpu) * 1000) / due : NaN,
      jsMs: prof.js, gcMs: prof.gc,
      jsMsPerDue: due > 0 ? (prof.js + prof.gc) / due : NaN,
      pollsPerS, jsMsPerS: Array.from(prof.bins, (x) => x ?? 0),
    };
  } finally {
    await page.close().catch(() => {});
    phase("page closed");
  }
}

export async function throughputFigure(chrome, { staticUrl, stack, dialect, server, K, M }) {
  const { page } = await chrome.page(staticUrl, stack);
  try {
    return await page.evaluate((o) => window.bench.throughput(o), { url: server.url, base: server.base, dialect, K, M });
  } finally {
    await page.close().catch(() => {});
  }
}

/**
 * K tabs watching the same T legacy tasks: tab 1 creates them through the stack's call API, tabs 2..K
 * attach one more watcher each (ours: `persist: true` in every tab, so one leader polls for all).
 * Requests per task per interval at the server over N intervals P from the moment every tab is attached.
 */
export async function tabsFigure(chrome, { staticUrl, stack, server, K, T, P, N }) {
  const pages = [];
  try {
    for (let i = 0; i < K; i++) pages.push((await chrome.page(staticUrl, stack)).page);
    const opts = stack === "ours" ? { persist: true } : {};
    const roles = [];
    for (const p of pages) roles.push(await p.evaluate(([u, o]) => window.bench.connect(u, "legacy", o), [server.url, opts]));
    const created = await pages[0].evaluate(([n, ms]) => window.bench.createMany(n, ms, 64, { keepIds: true }), [T, (N + 10) * P]);
    if (created.ids.length < T) throw new Error(`${T - created.ids.length} of ${T} creations failed, e.g. ${created.samples[0]}`);
    for (const p of pages.slice(1)) await p.evaluate((ids) => window.bench.watchMany(ids), created.ids);
    const t0 = performance.timeOrigin + performance.now();
    await new Promise((r) => setTimeout(r, N * P + 100));
    const rates = perTaskRates((await getStats(server.statsUrl)).requests, created.ids, t0, P, N);
    const watchErrors = await Promise.all(pages.map((p) => p.evaluate(() => window.bench.watchErrors())));
    const errorCount = watchErrors.reduce((a, w) => a + w.count, 0);
    await Promise.all(pages.map((p) => Promise.race([p.evaluate(() => window.bench.close()).catch(() => {}), new Promise((r) => setTimeout(r, 3000))])));
    return { ...rates, roles, errorCount, errors: watchErrors.flatMap((w) => w.samples).slice(0, 2) };
  } finally {
    await Promise.all(pages.map((p) => p.close().catch(() => {})));
  }
}
