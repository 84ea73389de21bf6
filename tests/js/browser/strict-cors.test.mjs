// First contact from a Chromium page with `dialect: "auto"` against servers whose CORS allow-list
// names only the 2025-11-25 request headers (STRICT_CORS=1: Content-Type, Accept, Authorization,
// Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID; Mcp-Session-Id exposed). The modern
// `server/discover` probe carries `Mcp-Method`, so its preflight is refused: the client must fall
// back to `initialize`, run a task, and remember the era so the next connect makes no refused
// request (no CORS console error). Also: a server whose discover answer lacks the tasks extension
// while `initialize` offers tasks is used in the legacy era. What the page is told: the fallback
// warned once, a modern-only server's refused headers named, an unreachable server's URL and the
// headers to allow, an HTML error page quoted.
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { openChromium } from "./chromium.mjs";

const KINDS = (process.env.STRICT_CORS_KINDS ?? "ts-sdk,python-http,rmcp2,rmcp3").split(",").filter(Boolean);

let browser;
let site;
let chromium;

before(async () => {
  chromium = await openChromium("mcp-cors-");
  ({ browser, site } = chromium);
});

after(async () => {
  await chromium?.close();
});

/** In the page: connect with `dialect: "auto"`, call `tool`, wait for the result; what happened. */
async function contact(page, url, tool, args) {
  return page.evaluate(async ([url, tool, args]) => {
    const { McpTaskClient } = await import("/pkg/index.js");
    const warnings = [];
    const c = await McpTaskClient.connect(url, { onWarning: (w) => warnings.push(w.error.message) });
    try {
      const out = { dialect: c.dialect, serverInfo: c.session?.serverInfo ?? null, warnings };
      try {
        const h = await c.callTool(tool, args);
        out.taskId = h.id;
        const r = await h.result();
        out.text = r?.content?.[0]?.text ?? null;
        out.status = h.status;
      } catch (e) {
        out.error = { kind: e.kind, code: e.code ?? null, message: e.message };
      }
      if (out.taskId === null) {
        // No task came: following one must fail at once, not hang.
        out.watchKind = await c.watch("no-such-task").result().then(() => null, (e) => e.kind);
      }
      return out;
    } finally {
      await c.close();
    }
  }, [url, tool, args]);
}

/** What a page is told when a request to `url` got no response: the URL, the causes, the headers to allow. */
function unreached(url) {
  return new RegExp(`^no response from ${url.replace(/[.]/g, "\\.")} \\(Failed to fetch\\): the server is down or unreachable, or its CORS policy refuses this page's origin or request headers; it must allow Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and the headers option's \\(Authorization\\), and expose Mcp-Session-Id$`);
}

/** Console errors about refused or failed requests (a CORS refusal logs one or two). */
function requestErrors(lines) {
  return lines.filter((l) => /CORS|ERR_FAILED|Failed to load resource/i.test(l));
}

describe("strict CORS, dialect auto", { concurrency: true }, () => {
  for (const kind of KINDS) {
    test(kind, { timeout: 90_000 }, async (t) => {
      const server = await startServer(kind, { port: 0, timeoutMs: 30_000, env: { STRICT_CORS: "1" } });
      const page = await browser.newPage();
      const consoleErrors = [];
      page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
      try {
        await page.goto(`${site.origin}/tests/js/browser/page.html`);
        await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
        const args = { steps: 2, stepMs: 100 };
        const first = await contact(page, server.url, "long_job", args);
        assert.equal(first.dialect, "legacy", `${kind}: the modern probe is refused, initialize works`);
        assert.ok(first.serverInfo?.name, "serverInfo from initialize");
        assert.ok(requestErrors(consoleErrors).length > 0, "the refused probe shows in the console");
        const fellBack = first.warnings.filter((w) => /^server\/discover got no response while initialize did: the server's CORS policy refuses the 2026-07-28 request headers, so the 2025-11-25 era is used; for 2026-07-28 its preflight must allow Mcp-Method, Mcp-Name and MCP-Protocol-Version/.test(w));
        assert.equal(fellBack.length, 1, `the fallback is warned once: ${JSON.stringify(first.warnings)}`);
        if (kind === "rmcp3") {
          // rmcp 3's legacy side serves tools inline only (tasks need the modern extension, whose
          // headers this allow-list refuses): the call completes without a task.
          assert.equal(first.taskId, null, "rmcp3 legacy: no task");
          assert.match(first.text ?? "", /long_job/);
          assert.equal(first.watchKind, "unsupported", "watch fails at once");
          t.diagnostic("rmcp3 with strict CORS: connects legacy (dual-era); tools run inline, no tasks (watch: unsupported)");
        } else {
          assert.equal(typeof first.taskId, "string", `${kind}: a task: ${JSON.stringify(first)}`);
          assert.equal(first.status, "completed");
        }
        const before = requestErrors(consoleErrors).length;
        const second = await contact(page, server.url, "long_job", args);
        assert.equal(second.dialect, "legacy");
        assert.deepEqual(second.warnings.filter((w) => /CORS/.test(w)), [], "no probe, nothing refused: no warning");
        assert.equal(requestErrors(consoleErrors).length, before,
          `the remembered era skips the probe: no new console error (${consoleErrors.slice(before).join(" | ")})`);
      } finally {
        await page.close();
        await server.stop();
      }
    });
  }

  /** A fresh page at the static site. */
  async function freshPage() {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/tests/js/browser/page.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    return page;
  }

  /** In the page: connect (`connect` options as JSON) and call a tool; the error's kind and message. */
  function failure(page, url, options = {}) {
    return page.evaluate(async ([url, options]) => {
      const { McpTaskClient } = await import("/pkg/index.js");
      let c;
      try {
        c = await McpTaskClient.connect(url, options);
        const h = await c.callTool("long_job", { steps: 1, stepMs: 10 });
        await h.result();
        return null;
      } catch (e) {
        return { kind: e.kind, message: e.message };
      } finally {
        await c?.close();
      }
    }, [url, options]);
  }

  test("a modern-only server refusing the modern headers: the error names them", { timeout: 60_000 }, async () => {
    const server = await startServer("rmcp3-modern", { port: 0, timeoutMs: 30_000, env: { STRICT_CORS: "1" } });
    const page = await freshPage();
    try {
      const e = await failure(page, server.url);
      assert.equal(e?.kind, "transport", JSON.stringify(e));
      assert.equal(e.message, `the server's CORS policy refuses this page's 2026-07-28 requests: its preflight must allow the request headers Mcp-Method, Mcp-Name and MCP-Protocol-Version for this page's origin; URL ${server.url}`);
    } finally {
      await page.close();
      await server.stop();
    }
  });

  test("no server: the error names the URL, the causes and the headers to allow", { timeout: 60_000 }, async () => {
    const closed = createServer();
    await new Promise((ok) => closed.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${closed.address().port}/mcp`;
    await new Promise((ok) => closed.close(ok));
    const page = await freshPage();
    try {
      const e = await failure(page, url, { dialect: "legacy", requestTimeoutMs: 5_000 });
      assert.equal(e?.kind, "transport", JSON.stringify(e));
      assert.match(e.message, unreached(url));
    } finally {
      await page.close();
    }
  });

  test("a server that sends no CORS headers: only its preflight arrives, the error names the URL, the causes and the headers to allow", { timeout: 60_000 }, async () => {
    const seen = [];
    const bare = createServer((req, res) => {
      seen.push(req.method);
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise((ok) => bare.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${bare.address().port}/mcp`;
    const page = await freshPage();
    try {
      const e = await failure(page, url, { dialect: "legacy", requestTimeoutMs: 5_000 });
      assert.equal(e?.kind, "transport", JSON.stringify(e));
      assert.match(e.message, unreached(url));
      assert.ok(seen.length > 0 && seen.every((m) => m === "OPTIONS"), `only preflights reached the server: ${seen}`);
    } finally {
      await page.close();
      await new Promise((ok) => bare.close(ok));
    }
  });

  test("an HTML error page is quoted", { timeout: 60_000 }, async () => {
    const html = "<html><body><h1>400 Bad Request</h1></body></html>";
    const server = createServer((req, res) => {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Access-Control-Allow-Headers", "*");
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
      if (req.method === "OPTIONS") return res.writeHead(204).end();
      res.writeHead(400, { "Content-Type": "text/html" }).end(html);
    });
    await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
    const page = await freshPage();
    try {
      const e = await failure(page, `http://127.0.0.1:${server.address().port}/mcp`, { dialect: "legacy" });
      assert.equal(e?.kind, "transport", JSON.stringify(e));
      assert.equal(e.message, `HTTP 400, not JSON-RPC: ${html}`);
    } finally {
      await page.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  test("discover without the tasks extension, tasks via initialize: legacy", { timeout: 60_000 }, async () => {
    const server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000, env: { DISCOVER_WITHOUT_TASKS: "1" } });
    const page = await browser.newPage();
    try {
      await page.goto(`${site.origin}/tests/js/browser/page.html`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
      const r = await contact(page, server.url, "long_job", { steps: 2, stepMs: 100 });
      assert.equal(r.dialect, "legacy", JSON.stringify(r));
      assert.equal(typeof r.taskId, "string", "a task");
      assert.equal(r.status, "completed");
      const stats = await (await fetch(server.statsUrl)).json();
      assert.equal(stats.byMethod["server/discover"], 1, "probed once");
      assert.equal(stats.byMethod.initialize, 1);
    } finally {
      await page.close();
      await server.stop();
    }
  });
});
