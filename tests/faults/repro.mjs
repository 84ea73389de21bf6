// Reproduces one fault by hand: one server, the proxy with the given rules, the built pkg/ in headless
// Chromium, one batch of tasks; prints what every task saw and what the proxy counted.
//
//   node tests/faults/repro.mjs <kind> '<rules JSON>' [tasks=1] [taskMs=1500] [--again] [--pkg DIR]
//   e.g. node tests/faults/repro.mjs ts-sdk '[{"fault":"sse-retry","ms":0,"method":"GET"}]'
//
// --again: after the batch, clears the rules and runs one more task on the same client.
// Env: DEADLINE_MS (default 20000), TIMEOUT_MS (client request timeout, default 2500).
import http from "node:http";
import { createReadStream, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startProxy } from "./proxy.mjs";
import { KINDS, startUpstream } from "./servers.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const argv = process.argv.slice(2);
const pos = argv.filter((a, i) => !a.startsWith("--") && argv[i - 1] !== "--pkg");
const [kind = "ts-sdk", rulesJson = "[]", n = "1", taskMs = "1500"] = pos;
const pkgIdx = argv.indexOf("--pkg");
const PKG = path.resolve(pkgIdx >= 0 ? argv[pkgIdx + 1] : path.join(ROOT, "pkg"));
const spec = KINDS[kind];
if (!spec) throw new Error(`unknown kind ${kind}`);
const { chromium } = createRequire(path.join(ROOT, "tests/js/package.json"))("playwright-core");

const roots = { "/pkg/": PKG, "/page/": path.join(HERE, "page") };
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const st = http.createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  const p = Object.keys(roots).find((r) => u.pathname.startsWith(r));
  const f = p && path.join(roots[p], path.normalize(u.pathname.slice(p.length)));
  if (!f || !f.startsWith(roots[p]) || !existsSync(f) || !statSync(f).isFile()) { res.writeHead(404).end(); return; }
  res.writeHead(200, { "content-type": types[path.extname(f)] || "application/octet-stream" });
  createReadStream(f).pipe(res);
});
await new Promise((r) => st.listen(0, "127.0.0.1", r));
const up = await startUpstream(kind, { args: kind === "ts-sdk" ? ["--poll-ms", "500"] : [] });
const proxy = await startProxy({ target: up.url });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
try {
  const page = await browser.newPage();
  page.on("console", (m) => { if (process.env.CONSOLE) console.error(`console ${m.type()}: ${m.text()}`); });
  await page.goto(`http://127.0.0.1:${st.address().port}/page/index.html`);
  await page.waitForFunction(() => window.__faults?.ready === true);
  const options = { requestTimeoutMs: Number(process.env.TIMEOUT_MS || 2500), maxMessageBytes: 1024 * 1024, resultGcMs: 500 };
  const args = (extra) => ({ url: proxy.url, tool: spec.tool.name, ttlMs: 60_000, graceMs: 500, options, secret: "repro", deadlineMs: Number(process.env.DEADLINE_MS || 20_000), ...extra });
  proxy.setRules(JSON.parse(rulesJson));
  const batch = await page.evaluate((a) => window.__faults.runBatch(a), args({ n: Number(n), args: spec.tool.args(Number(taskMs)), keep: true }));
  const stats = proxy.stats();
  const brief = (r) => ({ task: r.taskId, statuses: r.statuses.join("→"), ends: r.ends.map((e) => (e.via === "callTool" ? `callTool rejected: ${e.error?.kind}: ${e.error?.message}` : `onDone ${e.kind} ${e.status ?? ""} ${e.outcomeKind ?? ""}${e.isError ? " isError" : ""} ${e.error?.message ?? ""}`)), result: r.result && (r.result.ok ? "resolved" : `rejected: ${r.result.error?.message}`) });
  console.log(JSON.stringify({ recs: batch.recs.map(brief), connectError: batch.connectError, warnings: batch.warnings.slice(0, 10) }, null, 1));
  console.log("proxy:", JSON.stringify({ byMethod: stats.byMethod, byStatus: stats.byStatus, faults: stats.faults }));
  console.log("timeline (ms, method):", JSON.stringify(stats.timeline.slice(0, 60)), stats.timeline.length > 60 ? `… ${stats.timeline.length} in all` : "");
  if (argv.includes("--again")) {
    proxy.setRules([]);
    const again = await page.evaluate((a) => window.__faults.runBatch(a), args({ n: 1, args: spec.tool.args(300), reuse: true }));
    console.log("again (same client, no fault):", JSON.stringify(again.recs.map(brief)));
  }
} finally {
  await browser.close();
  await proxy.stop();
  await up.stop();
  st.close();
}
