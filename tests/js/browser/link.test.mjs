// Learning the HTTP version a page cannot see, in Chromium and (where Debian's firefox-esr is installed)
// Firefox: the page's origin is not the server's, which sends no Timing-Allow-Origin, so `nextHopProtocol`
// tells nothing and the client (default options: it learns) starts as HTTP/1.1. Through a local TLS + HTTP/2
// nginx (bench/lib/nginx.mjs) a batch of more tasks than the browser's 6 connections, after a first task's result
// (asked again: the server keeps results, so the probe may run), proves HTTP/2: more than 6
// `tasks/result` held at once, outcomes at push speed; a later client of the same server in the page, and one after
// a reload of the tab (sessionStorage), holds from its first task; `link: "http1"` opts out (HTTP/1.1's budget: two
// running tasks hold their results). Against the same server over plain HTTP/1.1: never more than 6 requests open,
// nothing lost, every outcome within an interval, and HTTP/1.1 remembered across the reload.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { startFastServer } from "../../../bench/servers/fast-server.mjs";
import { nginxAvailable, startNginx } from "../../../bench/lib/nginx.mjs";
import { openChromium } from "./chromium.mjs";
import { FIREFOX, firefoxAvailable, openFirefox } from "./firefox.mjs";

const P = 1_000;
const TASK_MS = 4_000;

let chromium;
let firefox;
let nginx;
let nginxDir;

before(async () => {
  chromium = await openChromium("mcp-link-", { args: ["--ignore-certificate-errors"] });
  if (firefoxAvailable()) firefox = await openFirefox();
  if (nginxAvailable()) {
    nginxDir = await mkdtemp(path.join(tmpdir(), "mcp-link-nginx-"));
    nginx = await startNginx(1, nginxDir);
  }
});

after(async () => {
  await nginx?.stop();
  if (nginxDir) await rm(nginxDir, { recursive: true, force: true });
  await firefox?.close();
  await chromium?.close();
});

/** In the page: one client per entry of `batches` (its `options` added to the defaults), each runs its `n` tasks
 * of `ms`, after a `first` task of that many ms if given (a result fetched: the client then knows whether the server
 * keeps results, which the probe needs). */
async function inPage({ url, batches }) {
  const { McpTaskClient } = await import("/pkg/index.js");
  const out = [];
  for (const { n, ms, first, options } of batches) {
    const c = await McpTaskClient.connect(url, { dialect: "legacy", subscribe: false, ...options });
    if (first) await (await c.callTool("work", { ms: first }, { task: "always" })).result();
    const handles = await Promise.all(Array.from({ length: n }, () => c.callTool("work", { ms }, { task: "always" })));
    const done = await Promise.all(handles.map((h) => h.result().then(
      (r) => ({ id: h.id, at: performance.timeOrigin + performance.now(), text: r?.content?.[0]?.text ?? null }),
      (e) => ({ id: h.id, error: String(e?.message ?? e) }))));
    await c.close();
    out.push(done);
  }
  return out;
}

/** Runs `inPage` with each of `args` in one fresh tab of each browser, reloaded between them; their results. */
const BROWSERS = {
  async chromium(...args) {
    const page = await chromium.browser.newPage();
    const out = [];
    try {
      for (const arg of args) {
        await page.goto(`${chromium.site.origin}/tests/js/browser/page.html`);
        await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
        out.push(await page.evaluate(inPage, arg));
      }
      return out;
    } finally {
      await page.close();
    }
  },
  firefox: (...args) => firefox.visits(`${chromium.site.origin}/tests/js/browser/page.html`, args.map((a) => [inPage, a])),
};

/** The server's log: `tasks/result` requests that arrived while no task of `ids` had ended yet. */
async function serverView(statsUrl, ids) {
  const st = await (await fetch(statsUrl)).json();
  const ends = ids.map((id) => st.completions[id]);
  const firstEnd = Math.min(...ends);
  const early = st.requests.filter((r) => r.method === "tasks/result" && ids.includes(r.taskId) && r.t < firstEnd);
  const gets = st.requests.filter((r) => r.method === "tasks/get" && ids.includes(r.taskId)).length;
  return { ends: Object.fromEntries(ids.map((id, i) => [id, ends[i]])), early: early.length, gets };
}

function checkDelivered(done, ends, bound) {
  for (const d of done) {
    assert.equal(d.error, undefined, `${d.id}: ${d.error}`);
    assert.ok(Number.isFinite(ends[d.id]), `${d.id}: completed at the server`);
    const latency = d.at - ends[d.id];
    assert.ok(latency <= bound, `${d.id}: outcome ${Math.round(latency)} ms after its end (bound ${bound})`);
  }
}

for (const [name, run] of Object.entries(BROWSERS)) {
  describe(`link learning in a ${name} page, server on another origin without Timing-Allow-Origin`, () => {
    test("HTTP/2 through nginx, default options: learnt from a batch, results held; remembered in the page and across a reload; http1 opts out", { timeout: 90_000 }, async (t) => {
      if (name === "firefox" && !firefox) return t.skip(`no ${FIREFOX} (Debian package firefox-esr)`);
      if (!nginx) return t.skip("no /usr/sbin/nginx (Debian package nginx)");
      const server = await startFastServer({ dialect: "legacy", pollIntervalMs: P, push: false });
      try {
        const url = nginx.proxied(server.url);
        const [[batch, later], [reloaded, optedOut]] = await run(
          { url, batches: [{ n: 12, ms: TASK_MS, first: 100 }, { n: 3, ms: TASK_MS }] },
          { url, batches: [{ n: 3, ms: TASK_MS }, { n: 8, ms: TASK_MS, options: { link: "http1" } }] });
        const first = await serverView(server.statsUrl, batch.map((d) => d.id));
        assert.ok(first.early > 6, `more results held at once than HTTP/1.1 allows: ${first.early}`);
        checkDelivered(batch, first.ends, P);
        const again = await serverView(server.statsUrl, later.map((d) => d.id));
        assert.equal(again.early, 3, "the link was remembered: three tasks held from the start");
        checkDelivered(later, again.ends, 500);
        const afterReload = await serverView(server.statsUrl, reloaded.map((d) => d.id));
        assert.equal(afterReload.early, 3, "remembered across the reload: three tasks held from the start");
        checkDelivered(reloaded, afterReload.ends, 500);
        const opted = await serverView(server.statsUrl, optedOut.map((d) => d.id));
        assert.equal(opted.early, 2, "link: http1 learns nothing and holds HTTP/1.1's two");
        checkDelivered(optedOut, opted.ends, P + 1_000);
      } finally {
        await server.stop();
      }
    });

    test("HTTP/1.1, default options: at most six requests open, nothing lost, every outcome within an interval; remembered across a reload", { timeout: 90_000 }, async (t) => {
      if (name === "firefox" && !firefox) return t.skip(`no ${FIREFOX} (Debian package firefox-esr)`);
      const server = await startFastServer({ dialect: "legacy", pollIntervalMs: P, push: false });
      try {
        const [[batch, later], [reloaded]] = await run(
          { url: server.url, batches: [{ n: 12, ms: TASK_MS, first: 100 }, { n: 3, ms: TASK_MS }] },
          { url: server.url, batches: [{ n: 8, ms: TASK_MS }] });
        const first = await serverView(server.statsUrl, batch.map((d) => d.id));
        assert.ok(first.early <= 6, `no more results held than connections: ${first.early}`);
        assert.ok(first.gets >= 12, `the tasks were polled: ${first.gets} status requests`);
        checkDelivered(batch, first.ends, P + 1_000);
        const again = await serverView(server.statsUrl, later.map((d) => d.id));
        assert.equal(again.early, 2, "HTTP/1.1 remembered: a later client holds two, polls the others");
        checkDelivered(later, again.ends, P + 1_000);
        const afterReload = await serverView(server.statsUrl, reloaded.map((d) => d.id));
        assert.equal(afterReload.early, 2, "HTTP/1.1 remembered across the reload: no probe, two held");
        checkDelivered(reloaded, afterReload.ends, P + 1_000);
      } finally {
        await server.stop();
      }
    });
  });
}
