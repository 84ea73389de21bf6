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
  try {
    let cdp;
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
    await page.evaluate(([u, d, p, o]) => window.bench.connect(u, d, { push: p, ...o }), [url, dialect, push, extra]);
    await arrive();
    // BENCH_PROFILE=<prefix>: a CPU profile of the page while its tasks run (<prefix>-<stack>.cpuprofile).
    if (process.env.BENCH_PROFILE) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
      await cdp.send("Profiler.start");
    }
    const res = await page.evaluate((o) => window.bench.tasks(o), run);
    if (process.env.BENCH_PROFILE) {
      const { profile } = await cdp.send("Profiler.stop");
      (await import("node:fs")).writeFileSync(`${process.env.BENCH_PROFILE}-${stack}.cpuprofile`, JSON.stringify(profile));
    }
    const st = await getStats(statsUrl);
    // BENCH_TRACE=<prefix>: the server's request log and the page's outcome times, one JSON file per run.
    if (process.env.BENCH_TRACE) (await import("node:fs")).writeFileSync(`${process.env.BENCH_TRACE}-${stack}-${dialect}-${push ? "on" : "off"}-${run.minMs}.json`, JSON.stringify({ st, res, net }));
    const m = measureTasks(st, res, { P });
    await settle(page.evaluate(() => window.bench.close()), 3000);
    return { ...m, outcomes: res.outcomes };
  } finally {
    await arrive();
    await page?.close().catch(() => {});
  }
}
