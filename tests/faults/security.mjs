// Security checks, run as one more row of the fault matrix (plus a static scan):
//   - credentials only through the header provider: every request the proxy sees carries the
//     provider's Authorization value, none carries it in the URL, and it never shows up in the
//     console, localStorage, sessionStorage, IndexedDB, Cache Storage or cookies;
//   - server text never interpreted as HTML: the proxy puts <img onerror> / <script> payloads in
//     status messages, results, error messages and error pages, and the page must not run them;
//     pkg/ and www/ must not feed non-constant strings to innerHTML / outerHTML /
//     insertAdjacentHTML / document.write;
//   - size limits: an oversized answer to tools/call ends the call with an error that says so.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { startProxy } from "./proxy.mjs";
import { KINDS } from "./servers.mjs";

const SINKS = /\b(innerHTML|outerHTML)\s*\+?=|insertAdjacentHTML\s*\(|document\s*\.\s*write(ln)?\s*\(|createContextualFragment\s*\(|DOMParser\b[^;]*parseFromString/;
const CONSTANT_RHS = /\b(innerHTML|outerHTML)\s*=\s*(""|''|``|"[^"$+]*"|'[^'$+]*')\s*;?\s*$/;

/** Files we ship to browsers: pkg/*.js and www/ (html, js, mjs), not node_modules. */
function shippedFiles(root) {
  const out = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(m?js|html|ts)$/.test(name)) out.push(p);
    }
  };
  walk(path.join(root, "pkg"));
  walk(path.join(root, "www"));
  return out;
}

/** Every HTML sink in shipped code whose value is not a constant string literal. */
export function staticHtmlScan(root) {
  const findings = [];
  for (const f of shippedFiles(root)) {
    const lines = readFileSync(f, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!SINKS.test(line)) return;
      if (CONSTANT_RHS.test(line.trim())) return;
      if (/^\s*(\/\/|\*)/.test(line)) return; // comments
      findings.push(`${path.relative(root, f)}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  return { ok: findings.length === 0, findings, scanned: shippedFiles(root).length };
}

const PAYLOAD = `<img src=x onerror="window.__faultXss=(window.__faultXss||0)+1"><script>window.__faultXss=1</script>`;

/**
 * Loads the shipped dashboard (www/index.html?server=<proxy>) with every server string carrying an
 * HTML payload, starts a task from its UI and waits for its card to end. The payload must show up
 * as literal text and never as elements (the page's CSP would block inline handlers anyway, so the
 * check counts injected elements rather than handler runs).
 */
async function checkDashboard({ context, staticOrigin, proxy, root }) {
  if (!existsSync(path.join(root, "www", "index.html"))) return { skipped: "no www/index.html" };
  const violations = [];
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    proxy.setRules([{ fault: "html-text", method: "*", payload: PAYLOAD }]);
    await page.goto(`${staticOrigin}/www/index.html?server=${encodeURIComponent(proxy.url)}`);
    const start = page.locator('[data-tool="slow_job"] button.start');
    await start.waitFor({ timeout: 15_000 });
    await page.locator('[data-tool="slow_job"] textarea.args').fill('{"ms": 500}');
    await start.click();
    let status = "?";
    const end = Date.now() + 20_000;
    while (Date.now() < end) {
      status = await page.evaluate(() => {
        const t = document.querySelector("#tasks [data-status]");
        return t ? t.getAttribute("data-status") : document.querySelector("#tasks")?.textContent?.match(/completed|failed|expired|cancelled/)?.[0] ?? "?";
      });
      if (/completed|failed|expired|cancelled/.test(status)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const injected = await page.evaluate(() => document.querySelectorAll("img[src=x], script:not([src])").length);
    const literal = await page.evaluate(() => document.body.innerText.split("<img src=x").length - 1);
    if (injected) violations.push(`${injected} element(s) from server text were created in the DOM`);
    if (!literal) violations.push("the payload never appeared as text (was it interpreted or dropped?)");
    if (errors.length) violations.push(`page errors: ${errors.slice(0, 2).join("; ")}`);
    return { violations, status, literal };
  } catch (e) {
    return { violations: [`dashboard check failed: ${e.message.split("\n")[0]}`], status: "?", literal: 0 };
  } finally {
    proxy.setRules([]);
    await page.close().catch(() => {});
  }
}

/** The matrix row: credentials, HTML payloads, oversized create answer. */
export function securityCase() {
  return {
    id: "security",
    title: "credentials / HTML payloads / size limit",
    expect: "ended",
    async run({ browser, staticOrigin, up, kind, secret, N, ROOT }) {
      const row = { case: "security", kind, title: this.title, expect: this.expect, checks: {}, violations: [], notes: [], outcomes: {}, ms: 0 };
      const t0 = Date.now();
      const spec = KINDS[kind];
      const proxy = await startProxy({ target: up.url, seed: 99 });
      const context = await browser.newContext();
      const page = await context.newPage();
      const consoleLines = [];
      page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.stack || e.message}`));
      const options = { requestTimeoutMs: 2500, maxMessageBytes: 1024 * 1024, resultGcMs: 500 };
      const args = (n, extra = {}) => ({ url: proxy.url, n, tool: spec.tool.name, args: spec.tool.args(1500), ttlMs: 60_000, deadlineMs: 25_000, graceMs: 500, options, secret, ...extra });
      try {
        await page.goto(`${staticOrigin}/page/index.html`);
        await page.waitForFunction(() => window.__faults?.ready === true, null, { timeout: 20_000 });
        // 1. HTML payloads everywhere the server speaks
        proxy.setRules([{ fault: "html-text", method: "*", payload: PAYLOAD }]);
        const a = await page.evaluate((x) => window.__faults.runBatch(x), args(N));
        for (const r of a.recs) for (const e of r.ends) { const t = e.via === "onDone" ? String(e.status ?? "done") : "error"; row.outcomes[t] = (row.outcomes[t] || 0) + 1; }
        // 2. HTML error pages and a 404 page
        proxy.setRules([{ fault: "status", statuses: [502, 500], method: "tasks/get", count: 2 }]);
        await page.evaluate((x) => window.__faults.runBatch(x), args(1));
        // 3. oversized answer to tools/call: the call must fail, saying why
        proxy.setRules([{ fault: "oversized", bytes: 3 * 1024 * 1024, method: "tools/call", count: 1 }]);
        const big = await page.evaluate((x) => window.__faults.runBatch(x), args(1));
        proxy.setRules([]);
        const bigEnd = big.recs[0]?.ends[0];
        const bigText = JSON.stringify([bigEnd, big.recs[0]?.result, big.warnings]);
        const sizeOk = !!bigEnd && !(bigEnd.via === "onDone" && /completed/.test(String(bigEnd.status))) && /too (large|big|long)|exceed|limit|size|bytes/i.test(bigText);
        if (!sizeOk) row.violations.push(`size: an oversized tools/call answer did not end the call with a clear size error (${bigText.slice(0, 240)})`);
        await page.evaluate(() => window.__faults.closeAll());
        const stats = proxy.stats();

        // credentials
        const cred = [];
        if (stats.auth.without > 0) cred.push(`${stats.auth.without} request(s) without the provider's Authorization header`);
        if (stats.auth.values.some((v) => v !== `Bearer ${secret}`)) cred.push(`unexpected Authorization values: ${stats.auth.values.filter((v) => v !== `Bearer ${secret}`).join(", ").slice(0, 120)}`);
        if (stats.paths.some((p) => p.includes(secret))) cred.push("the credential was put in a URL");
        if (consoleLines.some((l) => l.includes(secret))) cred.push("the credential was logged to the console");
        const dump = await page.evaluate(() => window.__faults.storageDump());
        if (dump.includes(secret)) cred.push("the credential was persisted (localStorage/sessionStorage/IndexedDB/caches/cookies)");
        row.violations.push(...cred.map((x) => `credentials: ${x}`));
        // HTML
        const xss = await page.evaluate(() => window.__faults.xss());
        const imgs = await page.evaluate(() => document.querySelectorAll("img[src=x], script:not([type=module])").length);
        if (xss || imgs) row.violations.push(`html: server text was interpreted as HTML (${xss} handler runs, ${imgs} injected elements)`);
        // the dashboard we ship (www/), against the same HTML payloads
        const dash = await checkDashboard({ context, staticOrigin, proxy, root: ROOT });
        if (dash.skipped) row.notes.push(`dashboard: ${dash.skipped}`);
        else {
          row.notes.push(`dashboard: task ended "${dash.status}", payload shown as text ${dash.literal}×`);
          row.violations.push(...dash.violations.map((x) => `html (www/): ${x}`));
        }
        row.checks = { panic: !consoleLines.some((l) => /unreachable|panicked|RuntimeError/.test(l)), once: cred.length === 0 && !xss && !imgs && sizeOk && !dash.violations?.length, bounds: true, memory: true };
        row.requests = { total: stats.requests, get: stats.byMethod["tasks/get"] ?? 0, faults: Object.values(stats.faults).reduce((a, b) => a + b, 0) };
        row.notes.push(`auth header on ${stats.auth.with}/${stats.auth.with + stats.auth.without} requests`);
      } catch (e) {
        row.violations.push(`harness: ${e.message.split("\n")[0]}`);
        row.setupError = true;
      } finally {
        await context.close().catch(() => {});
        await proxy.stop();
      }
      row.ms = Date.now() - t0;
      row.ok = !row.setupError && row.violations.length === 0;
      if (row.checks.once !== undefined) row.checks.once = row.checks.once && row.ok;
      return row;
    },
  };
}
