// The built pkg/ in a real page in headless Chromium (Debian's, through playwright-core): the shared
// scenarios against real servers over fetch/SSE and the browser's own WebSocket.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { ALL } from "../scenarios.mjs";
import { openChromium } from "./chromium.mjs";

const KINDS = (process.env.PAGE_KINDS ?? "ts-sdk,python-http,python-ws,rmcp2,rmcp3").split(",").filter(Boolean);
// The core build (pkg/core) over the page's fetch and the browser's own WebSocket.
const CORE_KINDS = ["ts-sdk", "python-ws"].filter((k) => KINDS.includes(k));
const SUITES = [...KINDS.map((kind) => ({ kind, build: "full" })), ...CORE_KINDS.map((kind) => ({ kind, build: "core" }))];

let browser;
let site;
let chrome;

before(async () => {
  chrome = await openChromium();
  ({ browser, site } = chrome);
});

after(async () => {
  await chrome?.close();
});

describe("Chromium page", { concurrency: true }, () => {
  for (const { kind, build } of SUITES) {
    describe(build === "core" ? `${kind}, core build` : kind, { concurrency: 1 }, () => {
      let server;
      let page;
      const errors = [];
      before(async () => {
        server = await startServer(kind, { port: 0, timeoutMs: 30_000 });
        page = await browser.newPage();
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${site.origin}/tests/js/browser/page.html${build === "core" ? "?build=core" : ""}`);
        await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
      });
      after(async () => {
        await page?.close();
        await server?.stop();
      });
      test("runs in a window, loads the wasm with fetch", async () => {
        const info = await page.evaluate(() => window.pageInfo());
        assert.equal(info.hasWindow, true);
      });
      if (build === "core") {
        test("is the core build: `persist` refused, naming the full build", async () => {
          assert.equal(await page.evaluate(() => window.refusesPersist()), true);
        });
      }
      for (const name of Object.keys(ALL)) {
        test(name, { timeout: 90_000 }, async (t) => {
          let s = server;
          if (name === "expires" && kind === "rmcp3") {
            s = await startServer(kind, { port: 0, args: ["--ttl-ms=1500"], timeoutMs: 30_000 });
          }
          try {
            const r = await page.evaluate(([n, c]) => window.runScenario(n, c), [name, { kind, url: s.url, statsUrl: s.statsUrl }]);
            assert.ok(r.ok, r.error);
            if (r.note) t.diagnostic(r.note);
          } finally {
            if (s !== server) await s.stop();
          }
        });
      }
      test("no uncaught page errors", () => {
        assert.deepEqual(errors, []);
      });
    });
  }
});
