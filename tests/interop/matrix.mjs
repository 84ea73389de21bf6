// Interop matrix: every server kind registered in tests/servers/launch.mjs (and the configurations of
// variants.mjs) × {Node, Chromium page} ×
// the scenarios of scenarios.mjs, each client made with default options. A cell passes when its
// scenario works, or when it rejects with a typed McpTaskError naming a server limitation that the
// README documents (limits.mjs). Prints the table, writes docs/interop.md, checks the README's table
// of limitations, ends with `N passed, M failed`; exit code 1 when any cell (or the README check) fails.
//
//   node --experimental-websocket tests/interop/matrix.mjs [--kinds a,b] [--runtimes node,chromium]
//        [--scenarios x,y] [--timeout-ms 20000] [--no-write] [--write-readme]
//
// Kinds run side by side within a runtime (their scenarios one after another, each bounded), the two
// runtimes side by side, each runtime against its own servers; the whole run stops itself at RUN_BUDGET_MS.
// Needs pkg/ (bash scripts/build.sh), the test servers (tests/servers/install.sh), tests/js's
// node_modules (playwright-core) and /usr/bin/chromium. Talks only to 127.0.0.1. harness.test.mjs checks
// this machinery (the limitation matcher, the README table, that the poller count catches ten pollers).
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeKind, kindList, kinds as registeredKinds, startServer } from "../servers/launch.mjs";
import { startProxy } from "../faults/proxy.mjs";
import { startCountingWsFront } from "../js/wsfront.mjs";
import { openChromium } from "../js/browser/chromium.mjs";
import { LIMITS, limitFor, openFor, withReadmeTable } from "./limits.mjs";
import { VARIANTS } from "./variants.mjs";
import { OBSERVED, observeWarnings, runCell, SCENARIOS, TASK_MS } from "./scenarios.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const OUT = path.join(ROOT, "docs", "interop.md");
const README = path.join(ROOT, "README.md");
const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const list = (n, all) => {
  if (!argv.includes(n)) return all;
  const want = String(opt(n, "")).split(",").filter(Boolean);
  for (const w of want) if (!all.includes(w)) throw new Error(`${n}: unknown ${w} (known: ${all.join(", ")})`);
  return want;
};
const CELL_MS = Number(opt("--timeout-ms", 20_000));
const RUN_BUDGET_MS = 225_000; // the stage's budget is 4 min: this leaves time to start and to write
const OBSERVE_MS = 40_000; // the warnings pass: a few scenarios again, with onWarning
const RUNTIMES = { node: "Node", chromium: "Chromium" };
const T0 = Date.now();
const LOADS = [os.loadavg()[0]];
setInterval(() => LOADS.push(os.loadavg()[0]), 5_000).unref();
const log = (...a) => console.error(`[interop ${((Date.now() - T0) / 1000).toFixed(1)}s]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PANIC = /unreachable|panicked|RuntimeError/i;

/** `p`, or `fallback()` once `ms` passed. */
async function bounded(p, ms, fallback) {
  let timer;
  const late = new Promise((r) => {
    timer = setTimeout(() => r(fallback()), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
const timedOut = () => ({ ok: false, error: { typed: false, message: `no end within ${CELL_MS} ms` } });

// ---------------------------------------------------------------- servers and counting

/** Kinds whose server serves one client per process: each scenario gets a fresh server. */
const ONE_CLIENT = new Set([]);
const LISTEN = "subscriptions/listen";

/** Our tool name → the server's, for kinds whose library renames tools (the launcher's `tools`). */
function toolsOf(kind) {
  const base = VARIANTS[kind]?.base ?? kind;
  return kindList().find((k) => k.kind === base)?.tools ?? null;
}

/**
 * A server of `kind` for one runtime, and how to count what it received about a task (scenarios.mjs's
 * `count`; `listen` counts the push streams opened since then, whatever their tasks, as one scenario
 * runs at a time on a server; `statuses` are the task's statuses as the server sent them, null where
 * unseen). Kinds without GET /stats are reached through the fault proxy (no faults), which counts;
 * WebSocket ones through the counting WebSocket front (tests/js/wsfront.mjs), which counts the same.
 */
async function serve(kind) {
  const v = VARIANTS[kind];
  // A machine busy with the other kinds may delay a slow starter past its first deadline: one more try.
  const start = () => startServer(v?.base ?? kind, { port: 0, timeoutMs: 45_000, args: v?.args, env: v?.env });
  const server = await start().catch(start);
  const tools = toolsOf(kind);
  if (server.statsUrl) {
    const count = async (taskId, since) => {
      const s = await (await fetch(server.statsUrl)).json();
      const all = (s.requests ?? []).filter((r) => r.t >= since);
      const reqs = all.filter((r) => r.taskId === taskId);
      const n = (m) => reqs.filter((r) => r.method === m).length;
      const listen = all.filter((r) => r.method === LISTEN).length;
      return { get: reqs.filter((r) => r.method === "tasks/get").map((r) => r.t), result: n("tasks/result"), cancel: n("tasks/cancel"), listen, statuses: null };
    };
    return { url: server.url, tools, count, stop: () => server.stop() };
  }
  const ws = !server.url.startsWith("http");
  const proxy = ws ? await startCountingWsFront(server.url) : await startProxy({ target: server.url });
  const count = async (taskId, since) => {
    const s = proxy.stats();
    const after = (rel) => s.startedAt + rel >= since;
    const listen = s.timeline.filter(([rel, method]) => method === LISTEN && after(rel)).length;
    const t = s.tasks[taskId];
    if (!t) return { get: [], result: 0, cancel: 0, listen, statuses: [] };
    const n = (m) => t.reqs.filter(([rel, method]) => method === m && after(rel)).length;
    const get = t.gets.filter((g) => after(g.t)).map((g) => s.startedAt + g.t);
    return { get, result: n("tasks/result"), cancel: n("tasks/cancel"), listen, statuses: [...t.statuses] };
  };
  return { url: proxy.url, tools, count, stop: async () => { await proxy.stop(); await server.stop(); } };
}

// ---------------------------------------------------------------- runtimes

/** Node: the built package's Node entry, in this process. */
async function nodeRuntime() {
  const { McpTaskClient, McpTaskError } = await import(path.join(ROOT, "pkg", "node.js"));
  return {
    lane: async () => ({
      run: (name, srv) => bounded(runCell(name, { McpTaskClient, McpTaskError, url: srv.url, tools: srv.tools, count: srv.count }), CELL_MS, timedOut),
      observe: (srv) => observeWarnings({ McpTaskClient, McpTaskError, url: srv.url, tools: srv.tools, count: srv.count }),
      close: async () => {},
    }),
    close: async () => {},
  };
}

/** Chromium: one page per kind on the static site's own 127.0.0.1 origin (cross-origin to the servers). */
async function chromiumRuntime() {
  const chrome = await openChromium("mcp-interop-");
  return {
    lane: async (srv) => {
      let page = null;
      let panics = [];
      const fresh = async () => {
        page = await chrome.browser.newPage();
        page.on("pageerror", (e) => panics.push(String(e)));
        page.on("console", (m) => PANIC.test(m.text()) && panics.push(m.text()));
        await page.exposeFunction("__interopCount", (taskId, since) => srv.count(taskId, since));
        await page.goto(`${chrome.site.origin}/tests/interop/page.html`);
        await page.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
      };
      return {
        run: async (name) => {
          try {
            if (!page) await fresh();
          } catch (e) {
            await page?.close().catch(() => {});
            page = null;
            return { ok: false, error: { typed: false, message: `page: ${e.message.split("\n")[0]}` } };
          }
          panics = [];
          const cell = await bounded(page.evaluate(([n, url, tools]) => window.runCell(n, url, tools), [name, srv.url, srv.tools]).catch((e) => ({
            ok: false, error: { typed: false, message: `page: ${e.message.split("\n")[0]}` },
          })), CELL_MS, timedOut);
          if (panics.length) return { ok: false, error: { typed: false, message: `page error: ${panics[0].slice(0, 300)}` } };
          if (!cell.ok && !cell.error.typed) {
            // a stuck or broken page must not leak into the next scenario
            await page.close().catch(() => {});
            page = null;
          }
          return cell;
        },
        observe: async () => {
          if (!page) await fresh();
          return page.evaluate(([url, tools]) => window.observeWarnings(url, tools), [srv.url, srv.tools]);
        },
        close: async () => { await page?.close().catch(() => {}); },
      };
    },
    close: () => chrome.close(),
  };
}

const OPEN = { node: nodeRuntime, chromium: chromiumRuntime };

/** Replaces `srv`'s server by a fresh one, in place (a lane reads its url and count at each call). */
async function renew(kind, srv) {
  await srv.stop().catch(() => {});
  Object.assign(srv, await serve(kind));
}

/** Every cell of one runtime: kinds side by side, each kind's scenarios one after another. */
async function runRuntime(runtime, kinds, scenarios, rows) {
  let rt;
  try {
    rt = await OPEN[runtime]();
  } catch (e) {
    for (const kind of kinds) rows.push(setupRow(kind, runtime, `runtime: ${e.message.split("\n")[0]}`, scenarios));
    return;
  }
  await Promise.all(kinds.map(async (kind) => {
    const row = { kind, runtime, cells: {}, about: null, url: null };
    rows.push(row);
    let srv;
    let lane;
    try {
      srv = await serve(kind);
      row.url = srv.url;
      lane = await rt.lane(srv);
    } catch (e) {
      Object.assign(row, setupRow(kind, runtime, `setup: ${e.message.split("\n")[0]}`, scenarios));
      await srv?.stop().catch(() => {});
      return;
    }
    for (const [i, name] of scenarios.entries()) {
      const t = Date.now();
      const fresh = i > 0 && ONE_CLIENT.has(kind) ? renew(kind, srv) : Promise.resolve();
      const attempt = () => fresh.then(() => lane.run(name, srv)).catch((e) => ({ ok: false, error: { typed: false, message: `harness: ${e.message.split("\n")[0]}` } }));
      let cell = await attempt();
      let limit = cell.ok ? null : limitFor(kind, runtime, name, cell.error);
      // A cell that failed outright runs once more (two cores shared by every kind and both runtimes
      // delay servers and pages): the matrix is about what a server does, not about this machine's load.
      if (!cell.ok && !limit) {
        const first = errorText(cell.error);
        cell = await attempt();
        limit = cell.ok ? null : limitFor(kind, runtime, name, cell.error);
        if (cell.ok || limit) cell.note = [cell.note, `on a second run; the first: ${first.slice(0, 80)}`].filter(Boolean).join("; ");
      }
      cell.ms = Date.now() - t;
      cell.limit = limit;
      cell.open = cell.ok || limit ? null : openFor(kind, runtime, name, cell.error);
      if (cell.about) row.about = cell.about;
      row.cells[name] = cell;
      log(`${verdict(cell).padEnd(5)} ${kind} × ${runtime} × ${name} (${(cell.ms / 1000).toFixed(1)} s)${cell.ok ? "" : `: ${errorText(cell.error)}`}`);
    }
    const watch = (ONE_CLIENT.has(kind) ? renew(kind, srv) : Promise.resolve()).then(() => lane.observe(srv)).catch((e) => [{ text: `(not observed: ${e.message.split("\n")[0]})`, times: 1 }]);
    row.warnings = await bounded(watch, OBSERVE_MS, () => [{ text: `(observation unfinished after ${OBSERVE_MS / 1000} s)`, times: 1 }]);
    await lane.close();
    await srv.stop().catch(() => {});
  }));
  await rt.close().catch(() => {});
}

/** How a passing cell ended: the scenario's verdict, "works", or the limitation it met. */
const ending = (c) => (c.ok ? (c.verdict ?? "works") : `limit: ${c.limit.id}`);
/** Cells compared across runtimes: the ones that worked or met a documented limitation. */
const settled = (c) => c.ok || Boolean(c.limit);

/**
 * One verdict per task whatever the runtime: cells of one kind and scenario that passed with different
 * ends (or where one met a limitation the other did not, unless the limitation is one runtime's) fail in each.
 */
function sameEverywhere(rows, kinds, scenarios) {
  for (const kind of kinds) {
    for (const s of scenarios) {
      const passed = rows.filter((r) => r.kind === kind && r.cells[s] && settled(r.cells[s]));
      if (passed.some((r) => r.cells[s].limit?.runtimes)) continue;
      if (new Set(passed.map((r) => ending(r.cells[s]))).size < 2) continue;
      const said = passed.map((r) => `${RUNTIMES[r.runtime]}: ${ending(r.cells[s])}`).join(", ");
      for (const r of passed) r.cells[s] = { ...r.cells[s], ok: false, limit: null, error: { typed: false, message: `the same scenario ended differently (${said})` } };
    }
  }
}

function setupRow(kind, runtime, message, scenarios) {
  const cells = Object.fromEntries(scenarios.map((s) => [s, { ok: false, limit: null, ms: 0, error: { typed: false, message } }]));
  return { kind, runtime, cells, about: null };
}

// ---------------------------------------------------------------- table

const verdict = (c) => (c.ok ? "ok" : c.limit ? "limit" : c.open ? "open" : "FAIL");
const passes = (c) => c.ok || Boolean(c.limit) || Boolean(c.open);
function errorText(e) {
  if (!e) return "";
  const what = e.typed ? `McpTaskError ${e.kind}${e.code !== null && e.code !== undefined ? ` ${e.code}` : ""}${e.httpStatus ? ` (HTTP ${e.httpStatus})` : ""}: ` : "";
  return `${what}${e.message}`.replace(/\s+/g, " ");
}
const md = (s) => String(s).replace(/\|/g, "\\|");

function mark(c) {
  if (!c) return "–";
  if (c.ok) return c.note ? `✓ (${md(c.note)})` : "✓";
  if (c.limit) return `limit: ${c.limit.id}`;
  if (c.open) return `open: ${md(c.open.id)}`;
  const t = errorText(c.error);
  return `✗ ${md(t.length > 140 ? `${t.slice(0, 140)}…` : t)}`;
}

/** Library and version (the kind's one-line description up to its first comma) and the rest of it. */
function about(kind) {
  const v = VARIANTS[kind];
  const d = v ? `${describeKind(v.base)}, ${v.what}` : (describeKind(kind) ?? kind);
  const i = d.indexOf(", ");
  return i < 0 ? { library: d, rest: "" } : { library: d.slice(0, i), rest: d.slice(i + 2) };
}

/** The transport a default client uses for the server's URL. */
function transport(rows, kind) {
  const url = rows.find((r) => r.kind === kind && r.url)?.url;
  if (!url) return "?";
  return /^wss?:/.test(url) ? "WebSocket" : "Streamable HTTP";
}

/** The era `auto` negotiated, per runtime where they differ (a browser's CORS rules may narrow it). */
function era(rows, kind) {
  const seen = rows.filter((r) => r.kind === kind && r.about).map((r) => [r.runtime, `${r.about.dialect} (${r.about.protocolVersion})`]);
  if (!seen.length) return "? (connect failed)";
  const eras = new Set(seen.map(([, e]) => e));
  return eras.size === 1 ? [...eras][0] : seen.map(([rt, e]) => `${e} in ${RUNTIMES[rt]}`).join(", ");
}

function table(rows, kinds, runtimes, scenarios) {
  const head = ["server kind", "runtime", ...scenarios.map((s) => SCENARIOS[s].title)];
  const out = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const kind of kinds) {
    for (const runtime of runtimes) {
      const r = rows.find((x) => x.kind === kind && x.runtime === runtime);
      out.push(`| ${kind} | ${RUNTIMES[runtime]} | ${scenarios.map((s) => mark(r?.cells[s])).join(" | ")} |`);
    }
  }
  return out;
}

function kindsTable(rows, kinds) {
  const out = ["| server kind | library / version | era (negotiated by `auto`) | transport | serverInfo | the kind, as its launcher describes it |", "|---|---|---|---|---|---|"];
  for (const kind of kinds) {
    const a = about(kind);
    const server = rows.find((r) => r.kind === kind && r.about)?.about?.server ?? "–";
    out.push(`| ${kind} | ${md(a.library)} | ${era(rows, kind)} | ${transport(rows, kind)} | ${md(server)} | ${md(a.rest)} |`);
  }
  return out;
}

function warningsSeen(rows, kinds, runtimes) {
  const out = [];
  for (const kind of kinds) {
    for (const runtime of runtimes) {
      const w = rows.find((r) => r.kind === kind && r.runtime === runtime)?.warnings;
      if (!w) continue;
      out.push(`- ${kind} × ${RUNTIMES[runtime]}: ${w.length ? w.map((x) => `${md(x.text)}${x.times > 1 ? ` (×${x.times})` : ""}`).join("; ") : "none"}`);
    }
  }
  return out;
}

function failures(rows, scenarios) {
  const out = [];
  for (const r of rows) {
    for (const s of scenarios) {
      const c = r.cells[s];
      if (c && !passes(c)) out.push(`- **${r.kind} × ${RUNTIMES[r.runtime]} × ${s}**: ${md(errorText(c.error))}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- main

async function main() {
  const registered = registeredKinds();
  const all = [...registered, ...Object.keys(VARIANTS).filter((k) => registered.includes(VARIANTS[k].base))];
  const kinds = list("--kinds", all);
  const runtimes = list("--runtimes", Object.keys(RUNTIMES));
  const scenarios = list("--scenarios", Object.keys(SCENARIOS));
  if (!existsSync(path.join(ROOT, "pkg", "node.js"))) {
    console.error("interop matrix: pkg/ is missing: build it first (bash scripts/build.sh)");
    console.log("interop matrix: 0 passed, 1 failed");
    process.exit(1);
  }
  if (runtimes.includes("node") && typeof globalThis.WebSocket !== "function") {
    console.error("interop matrix: this Node has no global WebSocket: run it with node --experimental-websocket (Node 20)");
  }
  process.on("unhandledRejection", (e) => log(`unhandled rejection: ${e?.message ?? e}`));

  const rows = [];
  const done = Promise.all(runtimes.map((rt) => runRuntime(rt, kinds, scenarios, rows)));
  const finished = await bounded(done.then(() => true), RUN_BUDGET_MS, () => false);
  if (!finished) log(`run budget ${RUN_BUDGET_MS} ms exceeded: cells not run count as failed`);
  for (const kind of kinds) {
    for (const runtime of runtimes) {
      let r = rows.find((x) => x.kind === kind && x.runtime === runtime);
      if (!r) rows.push((r = { kind, runtime, cells: {}, about: null }));
      for (const s of scenarios) r.cells[s] ??= { ok: false, limit: null, ms: 0, error: { typed: false, message: "not run: the run budget was exceeded" } };
    }
  }

  sameEverywhere(rows, kinds, scenarios);
  const cells = rows.flatMap((r) => scenarios.map((s) => r.cells[s]));
  let passed = cells.filter(passes).length;
  let failed = cells.length - passed;
  const limitsUsed = new Set(cells.filter((c) => c.limit).map((c) => c.limit.id));

  // The README's table of limitations is this list's rendering.
  const readme = readFileSync(README, "utf8");
  const wanted = withReadmeTable(readme);
  let readmeNote;
  if (wanted === null) readmeNote = "README.md has no interop limitations table (markers missing)";
  else if (wanted !== readme && flag("--write-readme")) writeFileSync(README, wanted);
  else if (wanted !== readme) readmeNote = "README.md's interop limitations table differs from tests/interop/limits.mjs: run node tests/interop/matrix.mjs --write-readme";
  if (readmeNote) {
    failed++;
    console.error(`interop matrix: ${readmeNote}`);
  } else passed++;

  const minutes = ((Date.now() - T0) / 60_000).toFixed(1);
  const load = `${(LOADS.reduce((a, b) => a + b, 0) / LOADS.length).toFixed(1)} on average, ${Math.max(...LOADS).toFixed(1)} at most`;
  const grid = table(rows, kinds, runtimes, scenarios);
  const fails = failures(rows, scenarios);
  const doc = [
    "# Interop matrix",
    "",
    "Written by `node --experimental-websocket tests/interop/matrix.mjs` (a stage of `bash scripts/test.sh`); not edited by hand.",
    `Every server kind of \`tests/servers/launch.mjs\` × the built \`pkg/\` in Node ${process.version} (\`pkg/node.js\`) and in a headless Chromium page`,
    "(`pkg/index.js`, on its own 127.0.0.1 origin) × the scenarios of `tests/interop/scenarios.mjs`, every client made with default",
    `options (\`McpTaskClient.connect(url)\`, plus \`onInput\` for the input scenario; the scenarios about a running task ask for one`,
    `with \`task: "always"\`); tasks work ${TASK_MS / 1000} s; each cell bounded to ${CELL_MS / 1000} s. Node runs with \`--experimental-websocket\` (Node 20`,
    "has no global `WebSocket`, which a default client uses for `ws://` URLs). Kinds run side by side within a runtime, the runtimes side by side.",
    "",
    "✓ the scenario works · limit: it fails with a typed `McpTaskError` naming a server limitation the README's interop table",
    "documents (`tests/interop/limits.mjs`) · open: it fails in a way listed as not yet fixed (`OPEN` in the same file, with what is",
    "missing; not counted as a failure) · ✗ it fails otherwise, with the error. A cell that fails outright runs once more.",
    "",
    "## Servers",
    "",
    ...kindsTable(rows, kinds),
    "",
    "## Matrix",
    "",
    ...grid,
    "",
    ...(fails.length ? ["## Failing cells", "", ...fails, ""] : []),
    ...(limitsUsed.size
      ? ["## Limitations met", "", ...LIMITS.filter((l) => limitsUsed.has(l.id)).map((l) => `- **${l.id}** (${l.kinds.join(", ")}): ${md(l.server)} → \`${l.errorKind}\`: ${md(l.client)}`), ""]
      : []),
    "## Warnings (observed, not counted)",
    "",
    `What \`onWarning\` reported when ${OBSERVED.join(", ")} ran again with it as the only added option (each distinct warning once):`,
    "",
    ...warningsSeen(rows, kinds, runtimes),
    "",
    ...(readmeNote ? [`README check: **FAIL**: ${readmeNote}`, ""] : []),
    `Run: ${minutes} min on ${os.cpus().length} cores, load average (1 min) ${load}.`,
    "",
    `Result: ${passed} passed, ${failed} failed (${cells.length} cells and the README check).`,
    "",
  ].join("\n");
  console.log(["", ...grid, "", ...fails].join("\n"));
  if (!flag("--no-write")) writeFileSync(OUT, doc);
  console.log(`\ninterop matrix: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || e);
  console.log("interop matrix: 0 passed, 1 failed");
  process.exit(1);
});
