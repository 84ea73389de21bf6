// The JS-level scenarios, written once and run both in Node (tests/js/node) and in a real
// page in headless Chromium (tests/js/browser). Plain ESM with no Node imports: everything the
// scenarios need comes in `ctx`:
//   { McpTaskClient, McpTaskError, kind, url, statsUrl, connectOptions, profile }
// Each scenario throws on failure and stops every client it made. Servers are real (tests/servers).

/** What differs between the test servers (see tests/servers/README.md and tests/servers/rust/README.md). */
export const PROFILES = {
  "ts-sdk": {
    dialect: "legacy",
    fail: ["fail_job", { how: "failed", ms: 100 }],
    failKinds: ["taskFailed"],
    ask: ["ask_input", { message: "Your name?" }],
    sample: true,
    taskSupport: true,
    list: "all",
    expires: true,
    cancelled: ["cancelled"],
    pollMs: 1000,
  },
  "python-http": {
    dialect: "legacy",
    fail: ["fail_job", { how: "failed", ms: 100 }],
    failKinds: ["taskFailed"],
    ask: ["ask_input", { message: "Your name?" }],
    sample: true,
    taskSupport: true,
    list: "all",
    expires: true,
    cancelled: ["cancelled"],
    pollMs: 500,
  },
  rmcp2: {
    dialect: "legacy",
    fail: ["fail_job", { ms: 100 }],
    failKinds: ["rpc", "taskFailed"],
    ask: ["ask_input", { question: "Your name?" }],
    sample: false,
    taskSupport: true,
    list: "running",
    expires: false, // rmcp 2 ignores the requested ttl (ttl: null)
    cancelled: ["cancelled", "failed"],
    pollMs: 1000, // no pollInterval: the client's own floor
  },
  rmcp3: {
    dialect: "modern",
    fail: ["fail_job", { ms: 100 }],
    failKinds: ["rpc"],
    ask: ["ask_input", { question: "Your name?" }],
    sample: false,
    taskSupport: false, // 2026-07-28 has no taskSupport: the server decides
    list: "none",
    expires: true, // the requestor cannot ask for a ttl: a second server runs with a short one
    expiresArgs: ["--ttl-ms=1500"],
    cancelled: ["cancelled"],
    pollMs: 1000,
  },
};
PROFILES["python-ws"] = { ...PROFILES["python-http"] };

// ----- tiny assertion kit (works in Node and in the page) -----

export class ScenarioError extends Error {}

function assert(cond, msg) {
  if (!cond) throw new ScenarioError(`assertion failed: ${msg}`);
}

function eq(actual, expected, msg) {
  if (actual !== expected) {
    throw new ScenarioError(`${msg}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects if `p` takes longer than `ms`. */
async function within(ms, p, what) {
  let timer;
  const t = new Promise((_, rej) => {
    timer = setTimeout(() => rej(new ScenarioError(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** Awaits a rejection and returns the error. */
async function rejection(p, what) {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new ScenarioError(`${what}: expected a rejection`);
}

const text = (result) => JSON.stringify(result?.content ?? result);

async function stats(ctx) {
  const r = await fetch(ctx.statsUrl);
  return r.json();
}

const count = (s, method) => s.byMethod?.[method] ?? 0;

async function connect(ctx, extra = {}) {
  return ctx.McpTaskClient.connect(ctx.url, { ...ctx.connectOptions, ...extra });
}

/** Runs `body(client)` with a fresh client, always closing it. */
async function withClient(ctx, extra, body) {
  const c = await within(15_000, connect(ctx, extra), "connect");
  try {
    return await body(c);
  } finally {
    await within(10_000, c.close(), "close");
  }
}

// ----- scenarios -----

/** A task that completes: statuses, updates(), onDone exactly once, result. */
export async function completes(ctx) {
  await withClient(ctx, {}, async (c) => {
    eq(c.dialect, ctx.profile.dialect, "dialect");
    eq(c.session.dialect, ctx.profile.dialect, "session.dialect");
    const h = await c.callTool("long_job", { steps: 3, stepMs: 150 }, { ttlMs: 60_000 });
    assert(typeof h.id === "string" && h.id.length > 0, "a task id");
    assert(["submitted", "working", "input_required"].includes(h.status), `live status ${h.status}`);
    const seen = [];
    h.onStatus((t) => seen.push(t.status));
    let doneCalls = 0;
    let done;
    h.onDone((d) => {
      doneCalls++;
      done = d;
    });
    const updates = [];
    const reading = (async () => {
      for await (const t of h.updates()) updates.push(t.status);
    })();
    const result = await within(20_000, h.result(), "result");
    assert(/long_job done\b.*\b3 steps/.test(text(result)), `result text: ${text(result)}`);
    await within(5_000, reading, "updates() ends");
    eq(updates[updates.length - 1], "completed", "last update");
    await sleep(0);
    eq(doneCalls, 1, "onDone calls");
    eq(done.kind, "finished", "done.kind");
    eq(done.status, "completed", "done.status");
    eq(done.taskId, h.id, "done.taskId");
    eq(done.outcome?.kind, "result", "done.outcome.kind");
    eq(h.status, "completed", "handle status");
    assert(h.isDone, "isDone");
    eq(c.task(h.id)?.status ?? "completed", "completed", "client.task snapshot");
    let late = 0;
    h.onDone(() => late++);
    eq(late, 0, "late onDone is asynchronous");
    await sleep(10);
    eq(late, 1, "late onDone fires once");
    const again = await h.result();
    eq(JSON.stringify(again), JSON.stringify(result), "result() again");
    const off = h.onStatus(() => {});
    off();
    off(); // unsubscribe twice is harmless
  });
}

/** A task that fails: result() rejects with a typed McpTaskError; onDone says failed. */
export async function fails(ctx) {
  await withClient(ctx, {}, async (c) => {
    const [tool, args] = ctx.profile.fail;
    const h = await c.callTool(tool, args);
    let done;
    h.onDone((d) => (done = d));
    const e = await within(20_000, rejection(h.result(), "failing task"), "failure");
    assert(e instanceof ctx.McpTaskError, `McpTaskError, got ${e}`);
    assert(e instanceof Error, "an Error");
    eq(e.name, "McpTaskError", "name");
    assert(ctx.profile.failKinds.includes(e.kind), `kind ${e.kind} in ${ctx.profile.failKinds}`);
    if (e.kind === "rpc") assert(Number.isInteger(e.code), `rpc code ${e.code}`);
    eq(e.taskId, h.id, "error.taskId");
    assert(/on purpose/.test(e.message), `the tool's own text in the message: ${e.message}`);
    await sleep(0);
    eq(done?.kind, "finished", "done.kind");
    eq(done?.status, "failed", "done.status");
    eq(done?.error?.kind, e.kind, "done.error.kind is the rejection's");
    eq(done?.error?.message, e.message, "done.error.message is the rejection's");
  });
}

/** A task cancelled by the caller: tasks/cancel goes out once, result() rejects `cancelled`. */
export async function cancels(ctx) {
  await withClient(ctx, {}, async (c) => {
    const before = await stats(ctx);
    const h = await c.callTool("slow_job", { ms: 15_000 });
    assert(h.id, "a task id");
    await within(10_000, h.cancel(), "cancel acknowledged");
    const e = await within(15_000, rejection(h.result(), "cancelled task"), "end after cancel");
    assert(e instanceof ctx.McpTaskError, `McpTaskError, got ${e}`);
    const status = h.status;
    assert(ctx.profile.cancelled.includes(status), `status ${status} in ${ctx.profile.cancelled}`);
    if (status === "cancelled") eq(e.kind, "cancelled", "error kind");
    const after = await stats(ctx);
    const cancels = count(after, "tasks/cancel") - count(before, "tasks/cancel");
    eq(cancels, 1, "tasks/cancel requests");
    await h.cancel(); // cancelling a finished handle is a no-op
    eq(count(await stats(ctx), "tasks/cancel"), count(after, "tasks/cancel"), "no second tasks/cancel");
  });
}

/** The server asks for input mid-task; `onInput` answers; the task completes with the answer. */
export async function asksInput(ctx) {
  const asked = [];
  const onInput = async (req) => {
    asked.push(req);
    if (req.method === "sampling/createMessage") {
      return { role: "assistant", content: { type: "text", text: "hello from the page" }, model: "test-model" };
    }
    eq(req.method, "elicitation/create", "input method");
    const props = Object.keys(req.params?.requestedSchema?.properties ?? { answer: {} });
    return { action: "accept", content: Object.fromEntries(props.map((k) => [k, k === "confirm" ? true : "Ada"])) };
  };
  await withClient(ctx, { onInput }, async (c) => {
    const [tool, args] = ctx.profile.ask;
    const h = await c.callTool(tool, args);
    const result = await within(30_000, h.result(), "result after input");
    assert(text(result).includes("Ada"), `answer in result: ${text(result)}`);
    assert(asked.length >= 1, "onInput was called");
    const elicit = asked.find((r) => r.method === "elicitation/create");
    assert(elicit, "an elicitation request");
    assert(typeof elicit.key === "string" && elicit.key.length > 0, "input key");
    if (elicit.taskId !== null) eq(elicit.taskId, h.id, "input request's task");
    if (ctx.profile.sample) {
      const s = await c.callTool("sample_job", { prompt: "Say hello" });
      const r = await within(30_000, s.result(), "sampling result");
      assert(text(r).includes("hello from the page"), `sampling answer in result: ${text(r)}`);
    }
  });
}

/** Required / optional / forbidden tools: augmentation follows taskSupport, refusals send nothing. */
export async function taskSupport(ctx) {
  await withClient(ctx, {}, async (c) => {
    const tools = await c.listTools();
    const support = Object.fromEntries(tools.tools.map((t) => [t.name, t.execution?.taskSupport]));
    if (!ctx.profile.taskSupport) {
      // Modern: the server decides; `quick` stays inline, the others become tasks.
      const q = await c.callTool("quick", { text: "inline" });
      eq(q.id, null, "quick is inline");
      assert(text(await q.result()).includes("inline"), "quick result");
      const n = await c.callTool("needs_task", { text: "x" });
      assert(typeof n.id === "string", "needs_task is a task");
      await within(20_000, n.result(), "needs_task result");
      return;
    }
    eq(support.needs_task, "required", "needs_task taskSupport");
    eq(support.maybe_task, "optional", "maybe_task taskSupport");
    const before = count(await stats(ctx), "tools/call");
    const e1 = await rejection(c.callTool("needs_task", {}, { task: "never" }), "required without a task");
    eq(e1.kind, "invalidInput", "required + never");
    if (support.quick === "forbidden") {
      // (A tool without taskSupport is the engine's call: only an explicit "always" augments it.)
      const e2 = await rejection(c.callTool("quick", {}, { task: "always" }), "forbidden as a task");
      eq(e2.kind, "invalidInput", "forbidden + always");
    }
    eq(count(await stats(ctx), "tools/call"), before, "refused calls sent nothing");
    const q = await c.callTool("quick", { text: "plain" });
    eq(q.id, null, "forbidden → inline");
    assert(text(await q.result()).includes("plain"), "quick result");
    const m = await c.callTool("maybe_task", {});
    assert(typeof m.id === "string", "optional → a task (auto)");
    await within(20_000, m.result(), "maybe_task result");
    const r = await c.callTool("needs_task", {});
    assert(typeof r.id === "string", "required → a task");
    await within(20_000, r.result(), "needs_task result");
    eq(count(await stats(ctx), "tools/call"), before + 3, "three calls went out");
  });
}

/** listTasks(): the server's task list, in the common model. */
export async function lists(ctx) {
  await withClient(ctx, {}, async (c) => {
    if (ctx.profile.list === "none") {
      const e = await rejection(c.listTasks(), "tasks/list on a modern server");
      assert(e instanceof ctx.McpTaskError, "typed error");
      return;
    }
    const a = await c.callTool("slow_job", { ms: 4000 });
    const b = await c.callTool("slow_job", { ms: 4000 });
    const page = await within(10_000, c.listTasks(), "listTasks");
    assert(Array.isArray(page.tasks), "tasks array");
    const ids = page.tasks.map((t) => t.taskId);
    for (const h of [a, b]) assert(ids.includes(h.id), `${h.id} listed in ${JSON.stringify(ids)}`);
    for (const t of page.tasks) assert(typeof t.status === "string", "each task has a status");
    assert(page.nextCursor === undefined || typeof page.nextCursor === "string", "nextCursor");
    await Promise.all([a.cancel(), b.cancel()]);
  });
}

/** A task whose ttl runs out while it works ends `expired` (or the server's `failed`). */
export async function expires(ctx) {
  if (!ctx.profile.expires) return "skipped: the server ignores ttl";
  await withClient(ctx, {}, async (c) => {
    const h = await c.callTool("slow_job", { ms: 12_000 }, { ttlMs: 1500 });
    assert(h.id, "a task id");
    const e = await within(15_000, rejection(h.result(), "expired task"), "end at the deadline");
    assert(e instanceof ctx.McpTaskError, `McpTaskError, got ${e}`);
    assert(["expired", "failed"].includes(h.status), `status ${h.status}`);
    if (ctx.profile.dialect === "legacy") {
      eq(h.status, "expired", "legacy status");
      eq(e.kind, "expired", "error kind");
    }
  });
}

/** Ten watchers on one task share one poller: one tasks/get per interval at the server. */
export async function tenWatchers(ctx) {
  await withClient(ctx, {}, async (c) => {
    const t0 = Date.now() - 50; // server clocks are this machine's; ids may repeat across sessions (rmcp 2)
    const h = await c.callTool("slow_job", { ms: 7000 });
    const id = h.id;
    const watchers = Array.from({ length: 10 }, () => c.watch(id));
    const heard = new Array(10).fill(0);
    watchers.forEach((w, i) => w.onStatus(() => heard[i]++));
    const start = Date.now();
    await sleep(5000);
    const s = await stats(ctx);
    const gets = (s.requests ?? [])
      .filter((r) => r.method === "tasks/get" && r.taskId === id && r.t >= t0)
      .map((r) => r.t);
    const n = gets.length;
    const elapsed = Date.now() - start;
    // Where connections are free (Node, WebSocket) a legacy task holds its tasks/result instead:
    // polls are only the safety net then.
    const held = (s.requests ?? []).some((r) => r.method === "tasks/result" && r.taskId === id && r.t >= t0);
    assert(n >= 1 || held, `the task was polled (${n}) or its result held`);
    const bound = Math.ceil(elapsed / ctx.profile.pollMs) + 1;
    assert(n <= bound, `${n} tasks/get in ${elapsed} ms for 11 subscribers (≤ ${bound})`);
    gets.sort((a, b) => a - b);
    for (let i = 1; i < gets.length; i++) {
      const gap = gets[i] - gets[i - 1];
      assert(gap >= ctx.profile.pollMs * 0.9, `tasks/get ${gap} ms after the previous one`);
    }
    for (const w of watchers) eq(w.id, id, "watcher id");
    assert(heard.every((k) => k >= 1), `every watcher heard a status: ${heard}`);
    for (const w of watchers) w.stop();
    for (const w of watchers) assert(w.isDone, "stopped watcher is done");
    eq(h.isDone, false, "the call's own handle still waits");
    await h.cancel();
    return `${n} tasks/get in ${elapsed} ms`;
  });
}

/** AbortSignal: already aborted → nothing sent; abort later → stop waiting locally, no cancel. */
export async function aborts(ctx) {
  await withClient(ctx, {}, async (c) => {
    const before = await stats(ctx);
    const ac = new AbortController();
    ac.abort(new Error("not wanted"));
    const e = await rejection(c.callTool("long_job", {}, { signal: ac.signal }), "aborted call");
    assert(e instanceof ctx.McpTaskError, `an McpTaskError, got ${e}`);
    eq(e.kind, "aborted", "kind");
    eq(e.cause?.message, "not wanted", "the signal's reason is the cause");
    const w = c.watch("some-task", { signal: ac.signal });
    assert(w.isDone, "a watch with an aborted signal is done at once");
    await sleep(200);
    const mid = await stats(ctx);
    eq(count(mid, "tools/call"), count(before, "tools/call"), "no tools/call for an aborted signal");

    const ac2 = new AbortController();
    const h = await c.callTool("slow_job", { ms: 3000 }, { signal: ac2.signal });
    let done;
    h.onDone((d) => (done = d));
    ac2.abort();
    const e2 = await within(2000, rejection(h.result(), "aborted wait"), "abort is immediate");
    assert(e2 instanceof ctx.McpTaskError, `an McpTaskError, got ${e2}`);
    eq(e2.kind, "aborted", "kind");
    eq(e2.cause?.name, "AbortError", "default abort reason as the cause");
    eq(done?.kind, "aborted", "done.kind");
    eq(done?.error?.kind, "aborted", "done.error.kind");
    assert(done?.task && done.task.taskId === h.id, "done.task keeps the last snapshot");
    eq(done?.status, h.status, "done.status is the last status");
    await sleep(200);
    eq(count(await stats(ctx), "tasks/cancel"), count(before, "tasks/cancel"), "aborting sent no cancel");
    // The task itself goes on: a new watcher sees it finish.
    const again = c.watch(h.id);
    await within(15_000, again.result(), "the task still completes");
  });
}

/**
 * The lifecycle of clients and handles: connect({ signal }), each snapshot once from updates(),
 * stop() keeps the last snapshot, free()/Symbol.dispose end instead of breaking later calls,
 * Symbol.asyncDispose closes, and an onInput answer that does not fit its method is refused.
 */
export async function lifecycle(ctx) {
  const warnings = [];
  const onInput = async () => ({ action: "accept", content: { answer: "wrong method" } });
  const c = await within(15_000, connect(ctx, { onInput, onWarning: (w) => warnings.push(w.error) }), "connect");
  try {
    // updates(): every snapshot once; the last is the final one, with the outcome.
    const h = await c.callTool("long_job", { steps: 3, stepMs: 150 });
    const seen = [];
    for await (const t of h.updates()) seen.push(t);
    const texts = seen.map((t) => JSON.stringify(t));
    for (let i = 1; i < texts.length; i++) assert(texts[i] !== texts[i - 1], `snapshot ${i} repeats: ${texts[i]}`);
    eq(seen.filter((t) => t.status === "completed").length, 1, "one terminal snapshot ");
    eq(seen[seen.length - 1].status, "completed", "the last snapshot is the final one");

    // A member set to `undefined` is left out, as JSON.stringify does (not sent as null): the
    // server's own default applies (ts-sdk and Python echo "hi" only when `text` is absent).
    const q = await c.callTool("quick", { text: undefined });
    const echoed = text(await within(10_000, q.result(), "quick with an undefined member"));
    if (["ts-sdk", "python-http", "python-ws"].includes(ctx.kind)) assert(echoed.includes("quick: hi"), `the server's default: ${echoed}`);

    // stop(), free() and Symbol.dispose on handles: the handle ends aborted and keeps working.
    for (const end of ["stop", "free", "dispose"]) {
      const s = await c.callTool("slow_job", { ms: 3000 });
      let done;
      s.onDone((d) => (done = d));
      if (end === "dispose") s[Symbol.dispose]();
      else s[end]();
      assert(s.isDone, `${end}: done`);
      eq((await rejection(s.result(), `${end}: result`)).kind, "aborted", `${end}: result() kind`);
      await sleep(0);
      eq(done?.kind, "aborted", `${end}: done.kind`);
      eq(done?.task?.taskId, s.id, `${end}: done.task is the last snapshot`);
      s.stop();
      s.free(); // twice: still harmless
      eq(s.id, done.taskId, `${end}: the handle still answers`);
      await s.cancel();
    }

    // An elicitation-shaped answer to a sampling request is refused before it reaches the server.
    if (ctx.profile.sample) {
      const s = await c.callTool("sample_job", { prompt: "Say hello" });
      await within(30_000, s.result().catch(() => null), "the sampling task ends");
      const w = warnings.find((x) => x.kind === "invalidInput");
      assert(w && /sampling\/createMessage/.test(w.message), `an invalidInput warning: ${JSON.stringify(warnings)}`);
    }
  } finally {
    c.free(); // closes (does not break the later close below)
    await within(10_000, c[Symbol.asyncDispose](), "asyncDispose closes");
    await c.close();
  }
  const closed = await rejection(c.callTool("quick", {}), "a closed client");
  eq(closed.kind, "closed", "calls after dispose reject closed");

  // connect({ signal }). Last: the Python SDK's WebSocket server stops running tasks for later
  // sessions once a session closes right after it connected (as the racing one below may).
  const gaveUp = new Error("gave up");
  const ac = new AbortController();
  ac.abort(gaveUp);
  const e0 = await rejection(connect(ctx, { signal: ac.signal }), "connect with an aborted signal");
  assert(e0 instanceof ctx.McpTaskError, `McpTaskError, got ${e0}`);
  eq(e0.kind, "aborted", "connect abort kind");
  assert(e0.cause === gaveUp, "the signal's reason is the cause");
  // Aborting while connecting either wins (aborted, nothing left open) or comes too late (a client).
  const ac1 = new AbortController();
  const racing = connect(ctx, { signal: ac1.signal });
  await sleep(1);
  ac1.abort();
  const raced = await racing.catch((e) => e);
  if (raced instanceof ctx.McpTaskError) eq(raced.kind, "aborted", "mid-connect abort kind");
  else await raced.close();
}

/** Every scenario, in the order the suites run them. */
export const ALL = { completes, fails, cancels, asksInput, taskSupport, lists, expires, tenWatchers, aborts, lifecycle };

/** The assertion kit, for scenario modules of single dialects (draft-scenarios.mjs). */
export const kit = { assert, eq, sleep, within, rejection, stats, count, withClient };
