// Completion -> callback latency and requests per task with every stack inside a Chromium page: one page
// per stack, each against its own server, all created together once every page has connected (`gate`).
import { getStats } from "../lib/daemon.mjs";
import { measureTasks } from "../lib/latency-core.mjs";

const settle = (p, ms) => Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, ms))]);

/**
 * Connects `stack` in a fresh page to `url` (`push`: the stack's own push handling on), waits at `gate`, runs
 * `run` ({n, minMs, maxMs, seed, W}) and returns {latencies, requests, perInterval, outcomes}. `statsUrl`: the
 * server's own log, read directly (not through a proxy).
 */
export async function pageTasks(chrome, { staticUrl, stack, dialect, push, url, statsUrl, gate, run, P, oursOptions = {} }) {
  let arrived = false;
  const arrive = () => { if (!arrived) { arrived = true; return gate.arrive(); } };
  let page;
  let cdp;
  try {
    ({ page, cdp } = await chrome.page(staticUrl, stack));
    // BENCH_TRACE with BENCH_TRACE_NET=1: the page's network events too (when each request left, each body chunk came).
    const net = [];
    if (process.env.BENCH_TRACE && process.env.BENCH_TRACE_NET) {
      for (const ev of ["requestWillBeSent", "responseReceived", "dataReceived", "loadingFinished"]) {
        cdp.on(`Network.${ev}`, (e) => net.push({ ev, id: e.requestId, ts: e.timestamp, wall: e.wallTime, body: e.request?.postData, len: e.dataLength, timing: e.response?.timing, conn: e.response?.connectionId }));
      }
      await cdp.send("Network.enable");
    }
    // `oursOptions` (BENCH_OURS_OPTIONS, by default none: ours learns the HTTP version the page cannot see, a
    // server on another origin without Timing-Allow-Origin, by default) adds ours' connect options.
    const extra = stack === "ours" ? oursOptions : {};
    // BENCH_FETCH_TRACE=1 (with BENCH_TRACE): when the page called each fetch and when its head came, in the trace.
    if (process.env.BENCH_FETCH_TRACE) {
      await page.evaluate(() => {
        const log = (window.__fetchLog = []);
        const orig = window.fetch;
        window.fetch = function (url, init = {}) {
          const at = performance.timeOrigin + performance.now();
          let what = init.method ?? "GET";
          try { const b = JSON.parse(init.body); what = `${b.method} ${b.params?.taskId ?? ""}`; } catch { /* not JSON */ }
          const e = { what, at };
          log.push(e);
          const p = orig.call(this, url, init);
          p.then(() => { e.head = performance.timeOrigin + performance.now(); }, () => {});
          return p;
        };
      });
    }
    await page.evaluate(([u, d, p, o]) => window.bench.connect(u, d, { push: p, ...o }), [url, dialect, push, extra]);
    await arrive();
    // BENCH_CPUPROFILE=<dir>: the page's CPU profile over the whole run (DevTools' .cpuprofile; bench/profile-top.mjs sums it).
    const profiling = Boolean(process.env.BENCH_CPUPROFILE);
    // Trace and profile files name the round's seed and link: the rounds of one run do not overwrite each other's.
    const tag = `${run.seed}-${url.startsWith("https:") ? "h2" : "h1"}`;
    if (profiling) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
      await cdp.send("Profiler.start");
    }
    // The page's main-thread CPU, script and task time over the run (ms), kept in the trace.
    const cpu = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((x) => [x.name, x.value]));
    const before = process.env.BENCH_TRACE ? await cpu() : null;
    const res = await page.evaluate((o) => window.bench.tasks(o), run);
    const after = before ? await cpu() : null;
    if (profiling) {
      const { profile } = await cdp.send("Profiler.stop");
      (await import("node:fs")).writeFileSync(`${process.env.BENCH_CPUPROFILE}/page-${stack}-${dialect}-${push ? "on" : "off"}-${run.minMs}-${tag}.cpuprofile`, JSON.stringify(profile));
    }
    const st = await getStats(statsUrl);
    if (process.env.BENCH_FETCH_TRACE) st.fetchLog = await page.evaluate(() => window.__fetchLog);
    // BENCH_TRACE=<prefix>: the server's request log and the page's outcome times, one JSON file per run.
    if (process.env.BENCH_TRACE) (await import("node:fs")).writeFileSync(`${process.env.BENCH_TRACE}-${stack}-${dialect}-${push ? "on" : "off"}-${run.minMs}-${tag}.json`, JSON.stringify({ st, res, net, cpuMs: after && ["ThreadTime", "ScriptDuration", "TaskDuration"].map((k) => (after[k] - before[k]) * 1000) }));
    const m = measureTasks(st, res, { P });
    await settle(page.evaluate(() => window.bench.close()), 3000);
    return { ...m, outcomes: res.outcomes };
  } finally {
    await arrive();
    await page?.close().catch(() => {});
  }
}
