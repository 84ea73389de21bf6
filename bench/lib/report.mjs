// Renders bench results (the object run.mjs builds) as the markdown table in bench/results/latest.md.
const NAMES = { ours: "ours", sdk1: "SDK v1", ext: "ext-tasks" };
const OTHERS = ["sdk1", "ext"];
/** The rows of a latency section: [field, label]. */
const LATENCY_STATS = [["median", "latency median"], ["p95", "latency p95"], ["requests", "requests per task"]];

export function renderMarkdown(R) {
  const notes = [];
  const note = (text) => {
    const i = notes.indexOf(text);
    if (i >= 0) return `[^${i + 1}]`;
    notes.push(text);
    return `[^${notes.length}]`;
  };
  const num = (x, unit = "") => {
    if (!Number.isFinite(x)) return "n/a";
    const a = Math.abs(x);
    const s = a >= 1000 ? Math.round(x).toLocaleString("en-US") : a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
    return s + unit;
  };
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `×${num(a / b)}` : "—");
  /** A cell: value, or n/a with the reason as a footnote. */
  const cell = (v, pick, unit) => {
    if (v === undefined) return "n/a";
    if (v.skip) return "—";
    if (v.na) return `n/a${note(v.na)}`;
    if (v.error) return `n/a${note(`error: ${String(v.error).split("\n")[0].slice(0, 300)}`)}`;
    const x = pick(v);
    if (!Number.isFinite(x)) return `n/a${note(v.why ?? "not measured in this run")}`;
    return num(x, unit) + (v.warn ? note(v.warn) : "");
  };
  const val = (v, pick) => (v && !v.error && !v.na ? pick(v) : NaN);
  const row = (label, get, pick, unit = "") => {
    const o = get("ours");
    const vals = { ours: o, sdk1: get("sdk1"), ext: get("ext") };
    return `| ${label.join(" | ")} | ${["ours", ...OTHERS].map((s) => cell(vals[s], pick, unit)).join(" | ")} | ${OTHERS.map((s) => ratio(val(o, pick), val(vals[s], pick))).join(" | ")} |`;
  };
  const sdkModern = { na: "the TS SDK v1 client speaks only the legacy dialect" };
  const m = R.meta;
  const L = [];
  L.push("# Benchmarks: mcp-task-client vs the official TypeScript requester stacks", "");
  L.push(`Run ${m.date} by \`bash bench/run.sh\`${m.quick ? " (--quick: fewer repeats, smaller sizes)" : ""}${m.only ? ` (only: ${m.only.join(", ")})` : ""}; took ${Math.round(m.durationS)} s.`);
  L.push(`Machine: ${m.machine}. Node ${m.node}${m.chromium ? `, Chromium ${m.chromium}` : ""}. Load average at start / end: ${m.loadStart} / ${m.loadEnd}${Math.max(...`${m.loadStart} ${m.loadEnd}`.split(" ").map(Number)) > 2.5 ? " (other work was running: timing figures are noisier than on an idle machine)" : ""}.`);
  L.push(`Versions: ours ${m.versions.ours}; ${Object.entries(m.versions).filter(([k]) => k !== "ours").map(([k, v]) => `${k} ${v}`).join(", ")}.`, "");
  L.push("Stacks: **ours** = this package (`pkg/`); **SDK v1** = `@modelcontextprotocol/sdk` client, `client.experimental.tasks` (legacy dialect only);");
  L.push("**ext-tasks** = `@modelcontextprotocol/ext-tasks` on `@modelcontextprotocol/client` v2 (legacy, and modern via the host's `rawDispatch` + `v2RequestFraming`).");
  L.push("Ratios are ours ÷ theirs: below ×1 means ours is lower (better, except throughput where higher is better).", "");
  for (const n of R.notes ?? []) L.push(`> ${n}`, "");

  const head = (cols) => [`| ${cols.join(" | ")} | ours | SDK v1 | ext-tasks | ours ÷ SDK v1 | ours ÷ ext-tasks |`, `|${Array(cols.length + 5).fill("---").join("|")}|`];

  if (Object.keys(R.counts ?? {}).length || Object.keys(R.tabs ?? {}).length) {
    L.push("## Requests sent per task per server interval (lower is better)", "");
    L.push("Counted at the server (its request log) over a window of N server intervals P starting once every watcher is attached;");
    L.push("each task created through the stack's call API (watcher 1) plus W−1 more watchers of it. Median over tasks (T = 100) or over 3 runs (T = 1).");
    L.push("The official stacks wait P after each response, so their rate is W·P/(P + response time): on a loaded machine it drops below W.");
    L.push("Ours polls at P (+ ≤ 2 % jitter) while a task is young, then every tenth of its age; one poll per task however many watchers.");
    L.push("Modern, pushes off: neither ours (`subscribe: false`) nor the ext-tasks host opens `subscriptions/listen`; with pushes on both do.");
    L.push("K tabs: K Chromium pages of one origin watch the same 20 tasks (tab 1 creates them, each other tab adds one watcher per task as W does; ours with `persist: true`, the others one session per tab, the server letting any session read any task).", "");
    L.push(...head(["dialect", "push", "W × T", "P × N"]));
    for (const d of ["legacy", "modern"]) {
      for (const push of ["off", "on"]) {
        for (const wt of ["1x1", "10x1", "100x1", "1x100", "10x100", "100x100"]) {
          const any = Object.entries(R.counts).find(([k]) => k.endsWith(`|${d}|${push}|${wt}`));
          if (!any) continue;
          const pn = `${any[1].P / 1000} s × ${any[1].N}`;
          L.push(row([d, push, wt.replace("x", " × "), pn], (s) => (s === "sdk1" && d === "modern" ? sdkModern : withErr(R.counts[`${s}|${d}|${push}|${wt}`])), (v) => v.median));
        }
        if (d !== "legacy" || push !== "off") continue;
        for (const K of [1, 3, 5]) {
          const any = ["ours", ...OTHERS].map((s) => R.tabs?.[`${s}|${K}`]).find((v) => v?.P);
          if (!any && !["ours", ...OTHERS].some((s) => R.tabs?.[`${s}|${K}`])) continue;
          const pn = any ? `${any.P / 1000} s × ${any.N}` : "—";
          L.push(row([d, push, `${K} tab${K > 1 ? "s" : ""} × ${any?.T ?? 20} tasks`, pn], (s) => withErr(R.tabs[`${s}|${K}`]), (v) => v.median));
        }
      }
    }
    L.push("");
  }

  if (Object.keys(R.latency ?? {}).length) {
    L.push("## Completion → callback latency, ms (lower is better)", "");
    L.push("3 rounds × 50 tasks of 2–4 s each (lengths from 3 seeds), pooled: 150 per stack; server interval 1 s; from the server marking a task completed to the stack handing the outcome to the app. The stacks run side by side and create their tasks together once all have connected.", "");
    L.push(...head(["dialect", "status pushes", "statistic"]));
    for (const d of ["legacy", "modern"]) {
      for (const push of ["off", "on"]) {
        for (const stat of ["median", "p95"]) {
          L.push(row([d, push === "off" ? "off (polled)" : "on (pushed)", stat], (s) => (s === "sdk1" && d === "modern" ? sdkModern : R.latency[`${s}|${d}|${push}`]), (v) => v[stat]));
        }
      }
    }
    L.push("");
  }

  if (Object.keys(R.page ?? {}).length) {
    L.push("## Every stack in a Chromium page: completion → callback latency (ms) and requests per task (lower is better)", "");
    L.push("One Chromium, one page per stack (each bundled by esbuild as an app would), each against its own bench server, all creating");
    L.push("their tasks together once every page has connected; server interval P = 1 s. The page is on another origin than the server,");
    L.push("which sends no `Timing-Allow-Origin`. Links: **h1** = the bench server itself (HTTP/1.1, 6 connections per origin);");
    L.push("**h2** = the same server behind a local nginx TLS + HTTP/2 proxy (`bench/lib/nginx.mjs`, one listening port per stack).");
    L.push("Rounds: **random** = 2 × 20 tasks of 2–4 s; **fixed** = 3 × 20 tasks of exactly 3 s; **W = 10** = 20 tasks of 2–4 s with 9 more");
    L.push("watchers each; **long** = 5 tasks of 30 s (the Node section has 120 s). Requests per task: those naming the task over its life");
    L.push("plus task-less ones after the calls shared over the tasks; per interval: that ÷ (task length ÷ P).", "");
    L.push(...head(["dialect", "link", "push", "round", "statistic"]));
    const ROUNDS = [["random", "random"], ["fixed", "fixed 3 s"], ["w10", "W = 10"], ["long", "long 30 s"]];
    const STATS = [["median", "latency median"], ["p95", "latency p95"], ["requests", "requests per task"], ["perInterval", "requests per task per interval"]];
    for (const [link, d] of [["h1", "legacy"], ["h2", "legacy"], ["h1", "modern"]]) {
      for (const push of ["off", "on"]) {
        for (const [rn, rl] of ROUNDS) {
          const k = (s) => `${link}|${d}|${push}|${rn}|${s}`;
          if (!["ours", ...OTHERS].some((s) => R.page[k(s)])) continue;
          for (const [stat, label] of STATS) {
            L.push(row([d, link, push, rl, label], (s) => (s === "sdk1" && d === "modern" ? sdkModern : R.page[k(s)]), (v) => v[stat]));
          }
        }
      }
    }
    L.push("");
  }

  if (Object.keys(R.long ?? {}).length) {
    L.push("## Long tasks: latency (ms) and requests per task (lower is better)", "");
    L.push("Pushes off, server interval 1 s; N tasks of exactly the given length created at once. Latency as above; requests: the ones naming");
    L.push("the task over its whole life (polls, result fetch) plus task-less ones after the calls shared over the tasks (session setup and the call not counted).");
    L.push("Ours polls at the interval while a task is young, then every tenth of its age (≤ 20 s): fewer requests, a later callback for long tasks.", "");
    L.push(...head(["dialect", "task", "statistic"]));
    for (const d of ["legacy", "modern"]) {
      for (const ms of [30_000, 120_000]) {
        if (!["ours", ...OTHERS].some((s) => R.long[`${s}|${d}|${ms}`])) continue;
        for (const [stat, label] of LATENCY_STATS) {
          L.push(row([d, `${ms / 1000} s`, label], (s) => (s === "sdk1" && d === "modern" ? sdkModern : R.long[`${s}|${d}|${ms}`]), (v) => v[stat]));
        }
      }
    }
    L.push("");
  }

  if (Object.keys(R.blocking ?? {}).length) {
    L.push("## Completion at push speed: latency (ms) and requests per task (lower is better)", "");
    L.push("Node, N tasks of 2–4 s per stack, each stack alone against a fresh server. Latency: completion → the app's callback (tests/servers");
    L.push("kinds log no completion time: tasks are created one after another, and the time the server logged each `tools/call` + the work's duration");
    L.push("stands in; on the bench server all are created at once and it logs each completion). Requests: the ones naming the task");
    L.push("over its whole life plus task-less ones after the calls, shared. Ours on a legacy server holds one blocking `tasks/result` per running task");
    L.push("(link `node` / `websocket`), polls only every 20 s meanwhile; modern: one `subscriptions/listen` (the bench server pushes `notifications/tasks`).");
    L.push("The official clients poll at the server's interval (1 s; python 0.5 s; rmcp2 names none: the client's default).");
    L.push("WebSocket: the bench server serves legacy at `/ws` (bench/servers/ws-socket.mjs); of the real test servers only python does");
    L.push("(ts-sdk and the rmcp servers speak Streamable HTTP only).", "");
    L.push(...head(["server", "transport", "dialect", "statistic"]));
    const seen = [...new Set(Object.keys(R.blocking).map((k) => k.split("|").slice(0, 3).join("|")))];
    for (const g of seen) {
      for (const [stat, label] of LATENCY_STATS) {
        L.push(row([...g.split("|"), label], (s) => R.blocking[`${g}|${s}`], (v) => v[stat]));
      }
    }
    L.push("");
  }

  if (Object.keys(R.wireFloor ?? {}).length) {
    L.push("## The servers' own floor on the wire (ms, median / p95; lower is better)", "");
    L.push("bench/node/wire-floor.mjs, right after the stacks of each server, against a fresh one: the same N tasks from a raw client");
    L.push("(JSON-RPC by hand, no stack) that holds `tasks/result` for each task and, on a pushed terminal `notifications/tasks/status`,");
    L.push("asks `tasks/result` again at once: the earliest any client can have the outcome. Measured from the completion the server");
    L.push("stamps (the terminal task's `lastUpdatedAt`), except the last two columns: \"in hand, stand-in\" is the same measured like");
    L.push("the rows above (against the logged `tools/call` + the work's duration); \"stand-in − completion\" is that reference's own");
    L.push("error (negative: the server finishes later than the stand-in, and the rows above count that as latency, for every stack).");
    L.push("A separate run: on a loaded machine it moves as much as the rows above.", "");
    L.push("| server | transport | push after completion | held result after completion | in hand after completion | in hand, stand-in | stand-in − completion |");
    L.push("|---|---|---|---|---|---|---|");
    const pair = (v) => (v?.n ? `${num(v.median)} / ${num(v.p95)}` : `n/a${note("the server keeps no completion time on the wire (no terminal `lastUpdatedAt` it still answers for) and pushes nothing")}`);
    for (const [k, v] of Object.entries(R.wireFloor)) {
      const [server, transport] = k.split("|");
      if (v.error) { L.push(`| ${server} | ${transport} | n/a${note(`error: ${String(v.error).split("\n")[0].slice(0, 300)}`)} | | | | |`); continue; }
      L.push(`| ${server} | ${transport} | ${v.notify?.n ? pair(v.notify) : "none"} | ${pair(v.held)} | ${pair(v.inHand)} | ${pair(v.inHandStandIn)} | ${pair(v.standInBias)} |`);
    }
    L.push("");
  }

  if (R.bundle) {
    L.push("## Bundle size, bytes gzipped (lower is better)", "");
    L.push("Theirs: client + Streamable HTTP transport + tasks, bundled and minified by esbuild for the browser, gzip -9.");
    L.push("Ours: the .wasm gzipped + our JS entry and wasm-bindgen glue bundled and minified the same way, gzipped.");
    L.push("Core = `mcp-task-client/core` (tasks over HTTP and WebSocket in the 2025-11-25 and 2026-07-28 dialects, pushes, input requests);");
    L.push("full = the package root (core + tab coordination, persistence, OAuth, tasks the client runs for the server, the draft dialect).", "");
    L.push(...head(["what"]));
    const b = (s) => (R.bundle[s] ? R.bundle[s] : s === "ours" ? { na: "pkg/ not built" } : undefined);
    const full = (s) => (s === "ours" ? (R.bundle.oursFull ?? { na: "pkg/ not built" }) : b(s));
    L.push(row(["total (gz), ours = core"], b, (v) => v.totalGz, " B"));
    L.push(row(["of which JS (gz)"], b, (v) => v.jsGz, " B"));
    L.push(row(["of which wasm (gz)"], (s) => (s === "ours" ? b(s) : { skip: true }), (v) => v.wasmGz, " B"));
    L.push(row(["total (gz), ours = full"], full, (v) => v.totalGz, " B"));
    L.push("");
    if (R.bundle.oursLazy) {
      L.push("Ours through the package root, which fetches the build each client's options need when it connects (the base build:");
      L.push("all but tab coordination / persistence and OAuth; the full build for `persist` or `auth`), bundled by esbuild with code");
      L.push("splitting: what the page fetches before `connect()` resolves (JS chunks and wasm, each gzipped), and what that adds to");
      L.push("the default options' fetch.", "");
      L.push("| connect options | build | fetched (gz) | added to the initial (gz) |", "|---|---|---|---|");
      for (const [k, v] of Object.entries(R.bundle.oursLazy)) L.push(`| ${k} | ${v.build} | ${num(v.totalGz, " B")} | ${k === "default options" ? "(the initial load)" : v.added === 0 ? "0 B (in the initial load)" : `${v.added > 0 ? "+" : "−"}${num(Math.abs(v.added), " B")}`} |`);
      L.push("");
    }
  }

  if (Object.keys(R.scale ?? {}).length) {
    L.push("## 10,000 tracked tasks in one Chromium page (lower is better)", "");
    L.push("Tasks created through each stack's call API (server interval 20 s). Live timers and heap after creation (2 forced GCs;");
    L.push("ours counts wasm memory growth too). Per due task, in each stack's steady state: the window opens one interval after the last");
    L.push("`tools/call` the server saw (every task is in its poll loop) and lasts one interval (each task due about once); main-thread");
    L.push("JS + GC time over it from a CPU profile, ÷ the task requests the server saw in it (a ratio of the window's sums); busy = all");
    L.push("main-thread work (CDP TaskDuration) ÷ the same requests; CPU = the main thread's CPU time (CDP ThreadTime) ÷ the same requests");
    L.push("(the other two are wall time and grow with the machine's load).", "");
    L.push(...head(["dialect", "figure"]));
    const sc = (s, d) => (s === "sdk1" && d === "modern" ? sdkModern : withScaleErr(R.scale[`${s}|${d}`]));
    for (const d of ["legacy", "modern"]) {
      L.push(row([d, "time to create and track them"], (s) => sc(s, d), (v) => v.createMs / 1000, " s"));
      L.push(row([d, "live JS timers"], (s) => sc(s, d), (v) => v.timers));
      L.push(row([d, "heap growth per task"], (s) => sc(s, d), (v) => v.heapPerTask, " B"));
      L.push(row([d, "JS+GC ms per due task"], (s) => sc(s, d), (v) => v.jsMsPerDue));
      L.push(row([d, "busy ms per due task"], (s) => sc(s, d), (v) => v.busyMsPerDue));
      L.push(row([d, "main-thread CPU ms per due task"], (s) => sc(s, d), (v) => v.cpuMsPerDue));
    }
    L.push("");
  }

  if (Object.keys(R.chromeTp ?? {}).length || Object.keys(R.nodeTp ?? {}).length) {
    L.push("## Decode + dispatch throughput, status messages per second (higher is better)", "");
    L.push("A recorded stream of 20,000 task status pushes (SSE, round-robin over 100 tracked tasks) written to the client's open stream at once;");
    L.push("time until every task's last status reached the app. Median of 3 runs.", "");
    L.push(...head(["runtime", "dialect"]));
    for (const [rt, obj] of [[`Chromium`, R.chromeTp], [`Node ${R.meta.node}`, R.nodeTp]]) {
      if (!Object.keys(obj ?? {}).length) continue;
      for (const d of ["legacy", "modern"]) {
        L.push(row([rt, d], (s) => (s === "sdk1" && d === "modern" ? sdkModern : obj[`${s}|${d}`]), (v) => v.median));
      }
    }
    L.push("");
  }

  if (Object.keys(R.real ?? {}).length) {
    L.push("## Cross-check on the project's real test servers: requests per task per interval", "");
    L.push("`slow_job` tasks (30 s) on tests/servers kinds, server interval 1 s, window 3 s. Median over tasks / 3 runs.", "");
    L.push(...head(["server", "W × T"]));
    for (const [kind, d] of [["ts-sdk", "legacy"], ["rmcp3-modern", "modern"]]) {
      for (const wt of ["1x1", "10x10"]) {
        const get = (s) => {
          if (s === "sdk1" && d === "modern") return sdkModern;
          const startErr = R.real[`${kind}|${s}`];
          return startErr ?? withErr(R.real[`${kind}|${s}|${wt}`]);
        };
        if (!["ours", "sdk1", "ext"].some((s) => R.real[`${kind}|${s}|${wt}`] || R.real[`${kind}|${s}`])) continue;
        L.push(row([`${kind} (${d})`, wt.replace("x", " × ")], get, (v) => v.median));
      }
    }
    L.push("");
  }

  L.push("## How each stack watches", "");
  L.push("- ours: `client.callTool(name, args, {task: \"always\"})` → `TaskHandle` (`onStatus`/`onDone`); extra watchers `client.watch(taskId)`.");
  L.push("- SDK v1: `client.experimental.tasks.callToolStream(...)` (polls `tasks/get` every `pollInterval`, ignores pushes); it has no way to attach to an");
  L.push("  existing task, so extra watchers run the loop its `requestStream` runs (`getTask`, wait `pollInterval`, `getTaskResult` when completed).");
  L.push("- ext-tasks: `session.callTool(name, args, {task: {preference: \"require\"}})` + `execution.settle({onEvent})`; extra watchers");
  L.push("  `session.task(taskId).result()` (one execution per task per session is allowed). Modern pushes need the host to open");
  L.push("  `client.listen({taskIds})`, which the harness does when pushes are on.");
  L.push("- Servers: bench/servers/fast-server.mjs (raw node:http, both dialects, counts every request, pushes each status change when");
  L.push("  push is on; statusMessage changes every interval) unless a section names a tests/servers kind.", "");

  if (notes.length) {
    L.push("## Notes", "");
    notes.forEach((n, i) => L.push(`[^${i + 1}]: ${n}`));
    L.push("");
  }
  return L.join("\n");
}

/** A count entry with errors but no value is an error cell; with both, the value stands (errors go to latest.json). */
function withErr(v) {
  if (!v) return undefined;
  if (!Number.isFinite(v.median) && v.errors?.length) return { error: v.errors[0] };
  if (v.errors?.length) return { ...v, warn: `measured, but some watchers failed: ${String(v.errors[0]).split("\n")[0].slice(0, 200)}` };
  return v;
}

function withScaleErr(v) {
  if (!v) return undefined;
  if (v.error) return v;
  if (!v.duePolls) return { ...v, why: "no task request in the window" };
  const warns = [];
  if (v.createErrors) warns.push(`${v.createErrors} of ${v.n} creations failed, e.g. ${v.createErrorSamples?.[0] ?? "?"}`);
  // In a steady state the page starts about as many requests as the server sees in the window.
  const due = v.duePolls + (v.listPages ?? 0);
  if (v.fetchesStarted !== undefined && Math.abs(v.fetchesStarted - due) > 0.1 * due) {
    warns.push(`not steady: the page started ${v.fetchesStarted} requests in the window and the server saw ${due} (requests queueing in the browser)`);
  }
  return warns.length ? { ...v, warn: warns.join("; ") } : v;
}
