// Side-by-side benchmark: our pkg/ vs @modelcontextprotocol/sdk@1.32.2 (client.experimental.tasks) vs
// @modelcontextprotocol/ext-tasks@0.2.2 on @modelcontextprotocol/client@2.4.0, same servers, same run.
// Writes bench/results/latest.md (+ latest.json). Usage: node run.mjs [--only=a,b] [--quick]
//   phases: bundle, counts, latency, long, real, blocking, node-tp, page, chromium (scale: its 10,000-task part), tabs
//   --stacks=ours[,ext:modern,…]: only those stacks (and dialects)
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync, existsSync, createWriteStream } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execSync } from "node:child_process";
import { startDaemon } from "./lib/daemon.mjs";
import { median, p95 } from "./lib/stats.mjs";
import { benchDir, outDir, pkgPath, oursAvailable, bundleSizes, buildHarnesses, snapshotPkg } from "./lib/build.mjs";
import { renderMarkdown } from "./lib/report.mjs";

const argv = process.argv.slice(2);
if (argv.includes("--render")) {
  // Re-renders results/latest.md from results/latest.json (after a change to lib/report.mjs); measures nothing.
  const R = JSON.parse(readFileSync(path.join(benchDir, "results", "latest.json"), "utf8"));
  writeFileSync(path.join(benchDir, "results", "latest.md"), renderMarkdown(R));
  process.exit(0);
}
if (argv.includes("--merge")) {
  // Puts the sections a partial run measured (.out/partial.json, e.g. --only=page) into results/latest.json,
  // with a note naming that run, and re-renders results/latest.md.
  const file = path.join(benchDir, "results", "latest.json");
  const R = JSON.parse(readFileSync(file, "utf8"));
  const P = JSON.parse(readFileSync(path.join(outDir, "partial.json"), "utf8"));
  const took = Object.keys(P).filter((k) => !["meta", "notes"].includes(k) && P[k] && Object.keys(P[k]).length);
  for (const k of took) R[k] = P[k];
  R.notes = [...(R.notes ?? []).filter((n) => !n.startsWith(`Sections ${took.join(", ")}:`)),
    `Sections ${took.join(", ")}: from \`node run.mjs --only=${P.meta.only?.join(",")}\` at ${P.meta.date} (${P.meta.versions.ours}; Chromium ${P.meta.chromium}; load average ${P.meta.loadStart} / ${P.meta.loadEnd}), merged into this run by \`node run.mjs --merge\`.`];
  writeFileSync(file, JSON.stringify(R, null, 2) + "\n");
  writeFileSync(path.join(benchDir, "results", "latest.md"), renderMarkdown(R));
  process.exit(0);
}
const only = argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
const quick = argv.includes("--quick");
const want = (p) => !only || only.includes(p);
const T_START = Date.now();
const log = (...a) => console.error(`[bench +${((Date.now() - T_START) / 1000).toFixed(0)}s]`, ...a);

mkdirSync(path.join(outDir, "logs"), { recursive: true });
const childLog = createWriteStream(path.join(outDir, "logs", "children.log"));

/**
 * Runs a bench child script (Node, own process) and returns its last stdout line as JSON. With a `gate`
 * (see {@link startLine}) the child gets `barrier: true`: it reports ready once connected and starts
 * measuring when every child of the gate is ready. `flags`: extra Node options.
 */
function child(script, arg, timeoutMs = 300_000, gate = null, flags = []) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--no-warnings", ...flags, path.join(benchDir, script), JSON.stringify(gate ? { ...arg, barrier: true } : arg)], { stdio: [gate ? "pipe" : "ignore", "pipe", "pipe"] });
    let out = "";
    let arrived = false;
    p.stdout.on("data", (c) => {
      out += c;
      if (gate && !arrived && out.includes('{"ready":true}')) {
        arrived = true;
        gate.arrive().then(() => p.stdin.end("go\n"));
      }
    });
    p.stdin?.on("error", () => {}); // a child that died before the start
    p.stderr.on("data", (c) => childLog.write(c));
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("exit", (code) => {
      clearTimeout(timer);
      if (gate && !arrived) gate.arrive(); // it failed to start: the others need not wait for it
      const last = out.trim().split("\n").pop();
      try { resolve(JSON.parse(last)); } catch { resolve({ error: `${script} exited ${code} without a result` }); }
    });
  });
}

/**
 * A common start for `n` children measured side by side: each loads its stack and connects, then waits for
 * the others (at most 2 min). Without it the stack that loads fastest (ours: < 1 s, the official stacks ≈ 5 s under load)
 * would run its whole measurement while the others' start-up takes the CPU, and theirs after it exited.
 */
function startLine(n) {
  let count = 0;
  let open;
  const all = new Promise((r) => { open = r; });
  setTimeout(() => open(), 120_000).unref(); // a child stuck connecting holds nobody back for long
  return { arrive: () => { if (++count >= n) open(); return all; } };
}

const snap = snapshotPkg();
if (snap) process.env.BENCH_PKG_DIR = snap; // children inherit it
const pkgDir = pkgPath();
const STACKS = [
  { stack: "ours", dialect: "legacy" }, { stack: "sdk1", dialect: "legacy" }, { stack: "ext", dialect: "legacy" },
  { stack: "ours", dialect: "modern" }, { stack: "ext", dialect: "modern" },
];
const haveOurs = oursAvailable();
// --stacks=ours or --stacks=ours:modern,ext:modern keeps only those stack (and dialect) runs.
const stacksArg = argv.find((a) => a.startsWith("--stacks="))?.slice(9).split(",");
const picked = (s) => !stacksArg || stacksArg.some((x) => x === s.stack || x === `${s.stack}:${s.dialect}`);
const stacksNow = STACKS.filter((s) => (s.stack !== "ours" || haveOurs) && picked(s));
const fastKind = (d) => (d === "legacy" ? "fast-legacy" : "fast-modern");
const R = { meta: {}, notes: [], bundle: null, counts: {}, tabs: {}, latency: {}, long: {}, real: {}, blocking: {}, wireFloor: {}, nodeTp: {}, page: {}, chromeTp: {}, scale: {} };
const key = (s, d, push) => `${s}|${d}|${push ? "on" : "off"}`;

/** Harness bundles, the static server and a fresh Chromium for `fn`; closed after it. */
async function withChromium(fn) {
  const { startStatic } = await import("./lib/static.mjs");
  const browser = await import("./browser/chromium.mjs");
  await buildHarnesses();
  const st = await startStatic();
  const chrome = await browser.launchChromium();
  R.meta.chromium = chrome.version;
  try {
    await fn({ ...browser, chrome, staticUrl: st.url });
  } finally {
    await chrome.close();
    await st.stop();
  }
}

const daemon = await startDaemon();
let daemon2;
const secondDaemon = () => (daemon2 ??= startDaemon());
try {
  R.meta = meta();
  R.meta.loadStart = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  if (!haveOurs) R.notes.push("pkg/ was not built when the run started (run `bash scripts/build.sh`): every `ours` figure is n/a.");

  // ---- bundle sizes ----
  if (want("bundle")) {
    log("bundle sizes (esbuild, browser, minified, gzip -9)");
    R.bundle = await bundleSizes();
  }

  // ---- request counts ----
  if (want("counts")) {
    const groups = quick
      ? [{ name: "A", P: 1000, N: 3, configs: [[1, 1, 1], [10, 1, 1], [1, 100, 1]] }]
      : [
        { name: "A", P: 1000, N: 3, configs: [[1, 1, 3], [10, 1, 3], [100, 1, 3], [1, 100, 1]] },
        { name: "B", P: 2000, N: 3, configs: [[10, 100, 1]] },
        { name: "C", P: 20000, N: 2, configs: [[100, 100, 1]] },
      ];
    for (const g of groups) {
      log(`request counts, group ${g.name}: P=${g.P} ms, window ${g.N} intervals, configs ${JSON.stringify(g.configs)}`);
      // Each side of a pair gets its own server process: at W·T = 10,000 Node's fetch opens a socket per
      // in-flight request, and one process would run out of file descriptors serving both.
      const job = async (s, push) => {
        const dmn = push ? await secondDaemon() : daemon;
        const runs = [];
        for (const [W, T, reps] of g.configs) {
          for (let r = 0; r < reps; r++) {
            const srv = await dmn.start({ kind: fastKind(s.dialect), pollIntervalMs: g.P, progressMs: g.P, push });
            runs.push({ key: `${W}x${T}#${r}`, W, T, P: g.P, N: g.N, taskMs: (g.N + 10) * g.P, url: srv.url, statsUrl: srv.statsUrl, id: srv.id });
          }
        }
        const res = await child("node/requests.mjs", { stack: s.stack, dialect: s.dialect, push, runs }, 600_000);
        for (const r of runs) await dmn.stop(r.id);
        for (const [W, T] of g.configs) {
          const per = [];
          const errs = [];
          for (const r of runs.filter((x) => x.W === W && x.T === T)) {
            const x = res[r.key] ?? { error: res.error ?? "no result" };
            if (x.error) errs.push(x.error); else per.push(...x.perTask);
            if (x.errorCount) errs.push(`${x.errorCount} watcher errors, e.g. ${x.errors?.[0]}`);
          }
          R.counts[`${key(s.stack, s.dialect, push)}|${W}x${T}`] = { median: median(per), mean: per.reduce((a, b) => a + b, 0) / per.length, min: Math.min(...per), n: per.length, P: g.P, N: g.N, errors: errs.slice(0, 2) };
        }
      };
      // Official stacks one at a time, push off and on side by side (2 client processes on 2 cores, ≤ 500
      // requests/s each by the choice of P); then ours, all four jobs together (they send a few requests/s).
      for (const s of stacksNow.filter((x) => x.stack !== "ours")) await Promise.all([job(s, false), job(s, true)]);
      await Promise.all(stacksNow.filter((x) => x.stack === "ours").flatMap((s) => [job(s, false), job(s, true)]));
    }
  }

  // ---- latency ----
  // Rounds with different task lengths (seeds), pooled: one round's 50 phases between a task's end and
  // the next poll move the median by ±50 ms from run to run.
  if (want("latency")) {
    const n = quick ? 20 : 50;
    const seeds = quick ? [42] : [42, 43, 44];
    for (const push of [false, true]) {
      const pooled = new Map(stacksNow.map((s) => [key(s.stack, s.dialect, push), { lat: [], error: null }]));
      for (const seed of seeds) {
        log(`latency, push ${push ? "on" : "off"}, seed ${seed}: ${n} tasks per stack, 2–4 s each, P = 1000 ms`);
        const gate = startLine(stacksNow.length);
        await Promise.all(stacksNow.map(async (s) => {
          const srv = await daemon.start({ kind: fastKind(s.dialect), pollIntervalMs: 1000, progressMs: 1000, push });
          const res = await child("node/latency.mjs", { stack: s.stack, dialect: s.dialect, push, url: srv.url, statsUrl: srv.statsUrl, n, minMs: 2000, maxMs: 4000, seed }, undefined, gate);
          await daemon.stop(srv.id);
          const lat = (res.latencies ?? []).filter(Number.isFinite);
          const p = pooled.get(key(s.stack, s.dialect, push));
          if (res.error || lat.length < n) p.error ??= res.error ?? `${n - lat.length} of ${n} tasks never reached the app (outcomes ${JSON.stringify(res.outcomes)})`;
          p.lat.push(...lat);
        }));
      }
      for (const [k, p] of pooled) {
        R.latency[k] = p.error ? { error: p.error } : { median: median(p.lat), p95: p95(p.lat), n: p.lat.length };
      }
    }
  }

  // ---- long tasks: latency and requests per task over a task's whole life ----
  if (want("long")) {
    const n = quick ? 4 : 10;
    const lengths = quick ? [30_000] : [30_000, 120_000];
    log(`long tasks, push off: ${n} tasks of ${lengths.map((ms) => `${ms / 1000} s`).join(" and ")} per stack, P = 1000 ms`);
    const gate = startLine(stacksNow.length * lengths.length);
    await Promise.all(stacksNow.flatMap((s) => lengths.map(async (ms) => {
      const srv = await daemon.start({ kind: fastKind(s.dialect), pollIntervalMs: 1000, progressMs: 1000, push: false });
      const res = await child("node/latency.mjs", { stack: s.stack, dialect: s.dialect, push: false, url: srv.url, statsUrl: srv.statsUrl, n, minMs: ms, maxMs: ms, seed: 7 }, ms + 120_000, gate);
      await daemon.stop(srv.id);
      const lat = (res.latencies ?? []).filter(Number.isFinite);
      R.long[`${s.stack}|${s.dialect}|${ms}`] = res.error || lat.length < n
        ? { error: res.error ?? `${n - lat.length} of ${n} tasks never reached the app (outcomes ${JSON.stringify(res.outcomes)})` }
        : { median: median(lat), p95: p95(lat), requests: median(res.requests ?? []), n: lat.length };
    })));
  }

  // ---- real servers (cross-check of the request counts) ----
  if (want("real")) {
    const real = [
      { kind: "ts-sdk", dialect: "legacy", options: { args: ["--poll-ms", "1000"] } },
      { kind: "rmcp3-modern", dialect: "modern", options: { args: ["--poll-ms=1000"] } },
    ];
    for (const rs of real) {
      for (const s of stacksNow.filter((x) => x.dialect === rs.dialect)) {
        log(`real server ${rs.kind}: ${s.stack}`);
        const runs = [];
        try {
          for (const [W, T, reps] of quick ? [[1, 1, 1]] : [[1, 1, 3], [10, 10, 1]]) {
            for (let r = 0; r < reps; r++) {
              const srv = await daemon.start({ kind: rs.kind, options: rs.options });
              runs.push({ key: `${W}x${T}#${r}`, W, T, P: 1000, N: 3, taskMs: 30_000, url: srv.url, statsUrl: srv.statsUrl, id: srv.id });
            }
          }
        } catch (e) {
          R.real[`${rs.kind}|${s.stack}`] = { error: `server did not start: ${String(e.message ?? e).split("\n")[0]}` };
          for (const r of runs) await daemon.stop(r.id);
          continue;
        }
        const res = await child("node/requests.mjs", { stack: s.stack, dialect: s.dialect, push: true, tool: "slow_job", runs });
        for (const r of runs) await daemon.stop(r.id);
        for (const cfg of ["1x1", "10x10"]) {
          const per = [];
          const errs = [];
          for (const r of runs.filter((x) => x.key.startsWith(`${cfg}#`))) {
            const x = res[r.key] ?? { error: res.error ?? "no result" };
            if (x.error) errs.push(x.error.split("\n")[0]); else per.push(...x.perTask);
            if (x.errorCount) errs.push(`${x.errorCount} watcher errors, e.g. ${String(x.errors?.[0]).split("\n")[0]}`);
          }
          if (per.length || errs.length) R.real[`${rs.kind}|${s.stack}|${cfg}`] = { median: median(per), n: per.length, errors: errs.slice(0, 2) };
        }
      }
    }
  }

  // ---- completion at push speed: held legacy tasks/result, modern pushes, over HTTP and WebSocket ----
  if (want("blocking")) {
    const n = quick ? 5 : 10;
    const servers = [
      { name: "bench", dialect: "legacy", cfg: { kind: "fast-legacy", pollIntervalMs: 1000, progressMs: 1000, push: false }, tool: "work" },
      { name: "bench", dialect: "legacy", cfg: { kind: "fast-legacy", pollIntervalMs: 1000, progressMs: 1000, push: false, transport: "websocket" }, tool: "work", transport: "websocket" },
      { name: "bench", dialect: "modern", cfg: { kind: "fast-modern", pollIntervalMs: 1000, progressMs: 1000, push: true }, tool: "work", push: true },
      { name: "ts-sdk", dialect: "legacy", cfg: { kind: "ts-sdk", options: { args: ["--poll-ms", "1000"] } }, tool: "slow_job" },
      { name: "python-http", dialect: "legacy", cfg: { kind: "python-http" }, tool: "slow_job" },
      { name: "rmcp2", dialect: "legacy", cfg: { kind: "rmcp2" }, tool: "slow_job" },
      { name: "python-ws", dialect: "legacy", cfg: { kind: "python-ws" }, tool: "slow_job", transport: "websocket" },
    ];
    const canSpeak = (stack, sv) => STACKS.some((x) => x.stack === stack && x.dialect === sv.dialect)
      && (stack !== "ext" || !sv.transport);
    for (const sv of servers) {
      const transport = sv.transport ?? "http";
      for (const stack of ["ours", "sdk1", "ext"]) {
        const k = `${sv.name}|${transport}|${sv.dialect}|${stack}`;
        if (!canSpeak(stack, sv)) { R.blocking[k] = { na: stack === "ext" ? "the ext-tasks adapter speaks Streamable HTTP only" : "the TS SDK v1 client speaks only the legacy dialect" }; continue; }
        if (stack === "ours" && !haveOurs) continue;
        log(`blocking: ${sv.name} (${transport}, ${sv.dialect}): ${stack}, ${n} tasks of 2–4 s`);
        let srv;
        try { srv = await daemon.start(sv.cfg); } catch (e) {
          R.blocking[k] = { error: `server did not start: ${String(e.message ?? e).split("\n")[0]}` };
          continue;
        }
        const res = await child("node/latency.mjs", { stack, dialect: sv.dialect, push: sv.push ?? false, url: srv.url, statsUrl: srv.statsUrl, n, minMs: 2000, maxMs: 4000, seed: 42, tool: sv.tool, transport, sequential: !sv.cfg.kind.startsWith("fast-") }, 120_000, null, ["--experimental-websocket"]);
        await daemon.stop(srv.id);
        const lat = (res.latencies ?? []).filter(Number.isFinite);
        R.blocking[k] = res.error || lat.length < n
          ? { error: res.error ?? `${n - lat.length} of ${n} tasks never reached the app (outcomes ${JSON.stringify(res.outcomes)})` }
          : { median: median(lat), p95: p95(lat), requests: median(res.requests ?? []), n: lat.length };
      }
      // The server's own floor: a raw wire client (no stack) that holds tasks/result and re-asks on a pushed end.
      if (!sv.cfg.kind.startsWith("fast-")) {
        log(`blocking: ${sv.name} (${transport}): the server's floor on the wire`);
        R.wireFloor[`${sv.name}|${transport}`] = await child("node/wire-floor.mjs", { kind: sv.cfg.kind, args: sv.cfg.options?.args ?? [], n, minMs: 2000, maxMs: 4000 }, 120_000, null, ["--experimental-websocket"]);
      }
    }
  }

  // ---- throughput in Node 20 ----
  if (want("node-tp")) {
    const reps = quick ? 1 : 3;
    for (const s of stacksNow) {
      log(`throughput in Node ${process.version}: ${s.stack} ${s.dialect}, ${reps} runs`);
      const rates = [];
      let err;
      for (let i = 0; i < reps; i++) {
        const srv = await daemon.start({ kind: fastKind(s.dialect), pollIntervalMs: 60_000, progressMs: 0, push: true });
        const r = await child("node/throughput.mjs", { stack: s.stack, dialect: s.dialect, url: srv.url, base: srv.base, K: 100, M: 20_000 });
        await daemon.stop(srv.id);
        if (r.error) err = r.error; else rates.push(r.rate);
      }
      R.nodeTp[`${s.stack}|${s.dialect}`] = rates.length ? { median: median(rates), n: rates.length } : { error: err };
    }
  }

  // ---- Chromium: every stack in a page, latency and requests per task ----
  // Links: legacy on an HTTP/1.1 origin (the bench server itself), legacy on an HTTP/2 origin (lib/nginx.mjs:
  // TLS + HTTP/2 in front of the same kind of server, no Timing-Allow-Origin), modern on HTTP/1.1. The page is
  // on another origin (the static server) in every case.
  if (want("page")) {
    const { nginxAvailable, startNginx } = await import("./lib/nginx.mjs");
    const nginx = nginxAvailable() ? await startNginx(STACKS.length, path.join(outDir, "nginx")) : null;
    if (!nginx) R.notes.push("No /usr/sbin/nginx (Debian package `nginx`): the page rows over HTTP/2 are n/a.");
    const P = 1000;
    // BENCH_PAGE_LINKS=h1:legacy,h2:legacy and BENCH_PAGE_ROUNDS=fixed,long narrow a run; BENCH_OURS_OPTIONS
    // (JSON) sets ours' extra connect options (default none: the page learns the HTTP version by default);
    // BENCH_PAGE_PUSH=on (or off) runs only the rounds with the server's pushes on (or off).
    const pick = (env, all, key) => (process.env[env] ? all.filter((x) => process.env[env].split(",").includes(key(x))) : all);
    const links = pick("BENCH_PAGE_LINKS", [["h1", "legacy"], ["h2", "legacy"], ["h1", "modern"]], (l) => l.join(":"));
    const oursOptions = JSON.parse(process.env.BENCH_OURS_OPTIONS ?? "{}");
    const rounds = pick("BENCH_PAGE_ROUNDS", quick
      ? [{ name: "random", n: 10, minMs: 2000, maxMs: 4000, seeds: [42], W: 1 }]
      : [
        { name: "random", n: 20, minMs: 2000, maxMs: 4000, seeds: [42, 43], W: 1 },
        { name: "fixed", n: 20, minMs: 3000, maxMs: 3000, seeds: [42, 43, 44], W: 1 },
        { name: "w10", n: 20, minMs: 2000, maxMs: 4000, seeds: [44], W: 10, pushOff: true },
        { name: "long", n: 5, minMs: 30_000, maxMs: 30_000, seeds: [7], W: 1, pushOff: true },
      ], (r) => r.name);
    try {
      await withChromium(async ({ chrome, staticUrl }) => {
        const { pageTasks } = await import("./browser/page-tasks.mjs");
        for (const [link, dialect] of links) {
          if (link === "h2" && !nginx) continue;
          for (const push of [false, true].filter((x) => !process.env.BENCH_PAGE_PUSH || x === (process.env.BENCH_PAGE_PUSH === "on"))) {
            for (const r of rounds.filter((x) => !(push && x.pushOff))) {
              const stacks = stacksNow.filter((s) => s.dialect === dialect);
              const pooled = new Map(stacks.map((s) => [s.stack, { lat: [], req: [], per: [], error: null }]));
              for (const seed of r.seeds) {
                log(`page: ${dialect} on ${link}, push ${push ? "on" : "off"}, ${r.name}: ${r.n} tasks of ${r.minMs}–${r.maxMs} ms, W = ${r.W}, seed ${seed}`);
                const gate = startLine(stacks.length);
                await Promise.all(stacks.map(async (s, i) => {
                  const srv = await daemon.start({ kind: fastKind(dialect), pollIntervalMs: P, progressMs: P, push });
                  const url = link === "h2" ? nginx.proxied(srv.url, i) : srv.url;
                  const res = await pageTasks(chrome, { staticUrl, stack: s.stack, dialect, push, url, statsUrl: srv.statsUrl, gate, P, oursOptions, run: { n: r.n, minMs: r.minMs, maxMs: r.maxMs, seed, W: r.W } })
                    .catch((e) => ({ error: String(e.message ?? e).split("\n")[0] }));
                  await daemon.stop(srv.id);
                  const p = pooled.get(s.stack);
                  const lat = (res.latencies ?? []).filter(Number.isFinite);
                  if (res.error || lat.length < r.n) p.error ??= res.error ?? `${r.n - lat.length} of ${r.n} tasks never reached the app (outcomes ${JSON.stringify(res.outcomes)})`;
                  p.lat.push(...lat);
                  p.req.push(...(res.requests ?? []));
                  p.per.push(...(res.perInterval ?? []));
                }));
              }
              for (const [stack, p] of pooled) {
                R.page[`${link}|${dialect}|${push ? "on" : "off"}|${r.name}|${stack}`] = p.error ? { error: p.error }
                  : { median: median(p.lat), p95: p95(p.lat), requests: median(p.req), perInterval: median(p.per), n: p.lat.length, W: r.W, taskMs: [r.minMs, r.maxMs] };
              }
            }
          }
        }
      });
    } finally {
      await nginx?.stop();
    }
  }

  // ---- Chromium: throughput and 10,000-task scale ----
  // `scale` alone runs only the 10,000-task figure of this section.
  if (want("chromium") || want("scale")) {
    await withChromium(async ({ chrome, staticUrl, scaleFigure, throughputFigure }) => {
      const reps = quick ? 1 : 3;
      for (const s of want("chromium") ? stacksNow : []) {
        log(`throughput in Chromium: ${s.stack} ${s.dialect}, ${reps} runs`);
        const rates = [];
        let err;
        for (let i = 0; i < reps; i++) {
          const srv = await daemon.start({ kind: fastKind(s.dialect), pollIntervalMs: 60_000, progressMs: 0, push: true });
          const r = await throughputFigure(chrome, { staticUrl, stack: s.stack, dialect: s.dialect, server: srv, K: 100, M: 20_000 }).catch((e) => ({ error: String(e.message ?? e) }));
          await daemon.stop(srv.id);
          if (r.error) err = r.error; else rates.push(r.rate);
        }
        R.chromeTp[`${s.stack}|${s.dialect}`] = rates.length ? { median: median(rates), n: rates.length } : { error: err };
      }
      const n = quick ? 1000 : 10_000;
      for (const s of stacksNow) {
        log(`scale in Chromium: ${n} tasks, ${s.stack} ${s.dialect}`);
        const P = quick ? 5000 : 20_000;
        const srv = await daemon.start({ kind: fastKind(s.dialect), pollIntervalMs: P, progressMs: 0 });
        const r = await scaleFigure(chrome, { staticUrl, stack: s.stack, dialect: s.dialect, server: srv, n, intervalMs: P })
          .catch((e) => ({ error: String(e.message ?? e).split("\n")[0] }));
        await daemon.stop(srv.id);
        R.scale[`${s.stack}|${s.dialect}`] = r;
      }
    });
  }

  // ---- Chromium: request counts with K tabs of one origin (legacy, pushes off) ----
  if (want("tabs")) {
    // A fresh browser (fresh profile) of its own; every (stack, K) run its own server, so its own tab scope.
    // The server lets any session read any task: the official stacks' tabs each open their own session.
    const T = 20, P = 1000, N = 3;
    await withChromium(async ({ chrome, staticUrl, tabsFigure }) => {
      for (const s of stacksNow.filter((x) => x.dialect === "legacy")) {
        for (const K of quick ? [1, 5] : [1, 3, 5]) {
          log(`tabs in Chromium: ${s.stack}, ${K} tab(s) × ${T} tasks, P = ${P} ms, window ${N} intervals`);
          const srv = await daemon.start({ kind: "fast-legacy", pollIntervalMs: P, progressMs: P, push: false, crossSession: true });
          const r = await tabsFigure(chrome, { staticUrl, stack: s.stack, server: srv, K, T, P, N })
            .catch((e) => ({ error: String(e.message ?? e).split("\n")[0] }));
          await daemon.stop(srv.id);
          R.tabs[`${s.stack}|${K}`] = r.error ? { error: r.error } : {
            median: median(r.perTask), n: r.perTask.length, P, N, T, roles: r.roles, byMethod: r.byMethod,
            errors: r.errorCount ? [`${r.errorCount} watcher errors, e.g. ${r.errors[0]}`] : [],
          };
        }
      }
    });
  }
} finally {
  await daemon.close();
  if (daemon2) await (await daemon2).close();
}

R.meta.durationS = (Date.now() - T_START) / 1000;
R.meta.loadEnd = os.loadavg().map((x) => x.toFixed(1)).join(" ");
R.meta.quick = quick;
R.meta.only = only ?? null;
// Only a full run replaces latest.md; --quick / --only / --stacks runs go to .out/partial.md.
const full = !quick && !only && !stacksArg;
const dir = full ? path.join(benchDir, "results") : outDir;
const base = full ? "latest" : "partial";
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${base}.json`), JSON.stringify(R, null, 2) + "\n");
const md = renderMarkdown(R);
writeFileSync(path.join(dir, `${base}.md`), md);
process.stdout.write(md);
log(`done in ${R.meta.durationS.toFixed(0)} s; wrote ${path.relative(path.resolve(benchDir, ".."), path.join(dir, `${base}.md`))}`);
childLog.end();

function meta() {
  const v = (p) => { try { return JSON.parse(readFileSync(path.join(benchDir, "node_modules", p, "package.json"), "utf8")).version; } catch { return "?"; } };
  const sh = (c) => { try { return execSync(c, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(); } catch { return "?"; } };
  let oursVersion = "n/a";
  if (existsSync(path.join(pkgDir, "package.json"))) oursVersion = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
  return {
    date: new Date().toISOString(),
    machine: `${os.cpus()[0]?.model ?? "?"}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${sh("uname -sr")}, Debian ${sh("cat /etc/debian_version")}`,
    node: process.version,
    versions: {
      ours: `${oursVersion} (commit ${sh("git -C .. rev-parse --short HEAD")}${sh("git -C .. status --porcelain -- src Cargo.toml") ? ", dirty tree" : ""}, pkg/ built ${existsSync(path.join(pkgDir, "mcp_task_client_bg.wasm")) ? sh(`date -u -r ${path.join(pkgDir, "mcp_task_client_bg.wasm")} +%FT%TZ`) : "never"})`,
      "@modelcontextprotocol/sdk": v("@modelcontextprotocol/sdk"),
      "@modelcontextprotocol/client": v("@modelcontextprotocol/client"),
      "@modelcontextprotocol/ext-tasks": v("@modelcontextprotocol/ext-tasks"),
      esbuild: v("esbuild"), "playwright-core": v("playwright-core"), zod: v("zod"),
    },
  };
}
