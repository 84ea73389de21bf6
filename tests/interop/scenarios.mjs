// The interop matrix's scenarios, written once and run both in Node and in a Chromium page (plain ESM,
// no Node imports). Every client is made with default options: `McpTaskClient.connect(url)` plus only
// what the scenario needs (`onInput`). Everything else comes in `ctx`:
//   { McpTaskClient, McpTaskError, url, tools?: { ourName: serverName } (where the library renames tools),
//     count(taskId, sinceMs) -> Promise<{ get: number[] (ms since epoch), result: number, cancel: number, listen: number }> }
// (what the server received about one task since a moment, counted outside the client; `listen`: push
// streams opened for it, where the server pushes instead of being polled).
// The scenarios about a running task ask for one (`{ task: "always" }`): a call that would run inline
// has nothing to cancel, watch or leave open.
// A scenario throws on failure: a ScenarioError when the client misbehaved, or the client's own
// McpTaskError, which the runner checks against the documented server limitations (limits.mjs).
// It resolves with { note?, verdict?, about? } and closes every client it made. observeWarnings runs
// some of them again with `onWarning` (ctx.onWarning), to record what the client warns about.
import { kit, ScenarioError } from "../js/scenarios.mjs";

const { assert, eq, sleep, within, rejection } = kit;

/** How long the scenarios' tasks work at the server (a 2–4 s task). */
export const TASK_MS = 3000;
const WATCHERS = 10;
const DIALECTS = ["legacy", "modern", "draft"];
/** The call option of the scenarios about a running task (cancel, watchers, a second client, close). */
const AS_TASK = { task: "always" };

const text = (result) => JSON.stringify(result?.content ?? result);

/** The server's name for one of our tools (`slow_job`, `fail_job`, `ask_input`). */
const tool = (ctx, name) => ctx.tools?.[name] ?? name;

async function open(ctx, options) {
  const chosen = ctx.onWarning ? { ...options, onWarning: ctx.onWarning } : options;
  return within(15_000, chosen ? ctx.McpTaskClient.connect(ctx.url, chosen) : ctx.McpTaskClient.connect(ctx.url), "connect");
}

async function shut(client) {
  await within(10_000, client.close(), "close");
}

/** Runs `body(client)` with a fresh default client, always closing it. */
async function withClient(ctx, options, body) {
  const c = await open(ctx, options);
  try {
    return await body(c);
  } finally {
    await shut(c);
  }
}

/** A call's result, or the client's own error when it rejects (anything else is the client's fault). */
async function settled(ctx, promise, what) {
  try {
    return await within(15_000, promise, what);
  } catch (e) {
    if (e instanceof ScenarioError || e instanceof ctx.McpTaskError) throw e;
    throw new ScenarioError(`${what}: rejected with ${e?.name ?? typeof e} (not an McpTaskError): ${e?.message ?? e}`);
  }
}

/** How a call ended: `{ value }` when result() resolved, `{ error }` when it rejected (not in time: thrown). */
async function outcome(h, ms, what) {
  try {
    return { value: await within(ms, h.result(), what) };
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    return { error: e };
  }
}

/** How a call that must not succeed ended: its error, or a ScenarioError saying what it resolved with. */
async function refusal(h, ms, what) {
  const end = await outcome(h, ms, what);
  if ("error" in end) return end.error;
  throw new ScenarioError(`${what}: result() resolved (status ${h.status}): ${text(end.value).slice(0, 200)}`);
}

/** The task a scenario needs: a call that ran inline has none to watch. */
function taskOf(h, what) {
  if (typeof h.id !== "string" || h.id === "") throw new ScenarioError(`${what}: the call ran inline (no task id)`);
  return h.id;
}

/** The shortest gap the client may leave between two polls of a task: the server's interval, 1 s without one. */
function interval(h) {
  const ms = h.task?.pollIntervalMs;
  return typeof ms === "number" && ms > 0 ? ms : 1000;
}

// ----- scenarios -----

/** connect(url) with no options: a session in some dialect, the tool list readable, close. */
export async function connect(ctx) {
  return withClient(ctx, undefined, async (c) => {
    assert(DIALECTS.includes(c.dialect), `a known dialect, got ${c.dialect}`);
    eq(c.session.dialect, c.dialect, "session.dialect");
    const tools = await within(10_000, c.listTools(), "listTools");
    const slow = tool(ctx, "slow_job");
    assert(tools.tools.some((t) => t.name === slow), `${slow} listed: ${tools.tools.map((t) => t.name)}`);
    const info = c.session.serverInfo ?? {};
    return {
      about: { dialect: c.dialect, protocolVersion: c.session.protocolVersion, server: [info.name, info.version].filter(Boolean).join(" ") },
    };
  });
}

/** A 3 s call completes: its result once, onDone once, the handle ends `completed`. */
export async function complete(ctx) {
  return withClient(ctx, undefined, async (c) => {
    const h = await settled(ctx, c.callTool(tool(ctx, "slow_job"), { ms: TASK_MS }), "callTool");
    let doneCalls = 0;
    let done;
    h.onDone((d) => {
      doneCalls++;
      done = d;
    });
    const r = await settled(ctx, h.result(), "result");
    assert(/slow_job/.test(text(r)) && text(r).includes(String(TASK_MS)), `the tool's result: ${text(r)}`);
    await sleep(0);
    eq(doneCalls, 1, "onDone calls");
    eq(done?.kind, "finished", "done.kind");
    if (h.id === null) return { note: "inline (no task)", verdict: "completed" };
    eq(done.status, "completed", "done.status");
    eq(h.status, "completed", "handle status");
    return { verdict: "completed" };
  });
}

/**
 * A failing tool: result() rejects with an McpTaskError carrying the tool's text, onDone says so; or,
 * where the library ends a thrown tool error `completed` with an `isError: true` result (MCP's
 * tool-error channel), result() resolves with that result, the tool's text in it, and the client
 * reports the status the server sent.
 */
export async function fail(ctx) {
  return withClient(ctx, undefined, async (c) => {
    const h = await settled(ctx, c.callTool(tool(ctx, "fail_job"), { ms: 200 }), "callTool");
    let done;
    h.onDone((d) => (done = d));
    const end = await outcome(h, 15_000, "a failing tool");
    if ("value" in end) return toolError(ctx, h, end.value, () => done);
    const e = end.error;
    assert(e instanceof ctx.McpTaskError, `an McpTaskError, got ${e?.name}: ${e?.message}`);
    assert(["taskFailed", "rpc"].includes(e.kind), `kind taskFailed or rpc, got ${e.kind}: ${e.message}`);
    assert(/failed on purpose/.test(e.message), `the tool's own text in the message: ${e.message}`);
    await sleep(0);
    eq(done?.error?.kind, e.kind, "done.error.kind is the rejection's");
    if (h.id !== null) {
      eq(e.taskId, h.id, "error.taskId");
      eq(done.status, "failed", "done.status");
    }
    const verdict = `${e.kind}${e.code !== undefined && e.code !== null ? ` ${e.code}` : ""}`;
    return { note: verdict, verdict };
  });
}

/** A failing tool's call that resolved: its result must be a tool error, ended as the server said. */
async function toolError(ctx, h, result, done) {
  if (result?.isError !== true) {
    throw new ScenarioError(`a failing tool: result() resolved (status ${h.status}) without isError: ${text(result).slice(0, 200)}`);
  }
  assert(/failed on purpose/.test(text(result)), `the tool's own text in the isError result: ${text(result)}`);
  await sleep(0);
  eq(done()?.kind, "finished", "done.kind of an isError result");
  if (h.id === null) return { note: "isError (inline)", verdict: "isError inline" };
  const sent = (await ctx.count(h.id, 0)).statuses;
  assert(Array.isArray(sent) && sent.length > 0, `the server's statuses of the task are unseen: nothing to compare the client's ${h.status} with`);
  eq(h.status, sent[sent.length - 1], "the client's status is the server's last");
  eq(done().status, h.status, "done.status");
  return { note: `isError result, ${h.status}`, verdict: `isError ${h.status}` };
}

/** cancel() on a running task: acknowledged, the call ends `cancelled`, one tasks/cancel sent. */
export async function cancel(ctx) {
  return withClient(ctx, undefined, async (c) => {
    const since = Date.now();
    const h = await settled(ctx, c.callTool(tool(ctx, "slow_job"), { ms: 15_000 }, AS_TASK), "callTool");
    await sleep(300);
    await settled(ctx, h.cancel(), "cancel");
    const e = await refusal(h, 10_000, "a cancelled call");
    if (!(e instanceof ctx.McpTaskError)) throw new ScenarioError(`not an McpTaskError: ${e?.name}: ${e?.message}`);
    if (e.kind !== "cancelled") throw e;
    taskOf(h, "cancel");
    eq(h.status, "cancelled", "handle status");
    await h.cancel(); // cancelling an ended handle sends nothing
    await sleep(200);
    eq((await ctx.count(h.id, since)).cancel, 1, "tasks/cancel requests at the server");
    return { verdict: "cancelled" };
  });
}

/** The server asks for input mid-task; onInput answers; the result carries the answer. */
export async function input(ctx) {
  const asked = [];
  const onInput = async (req) => {
    asked.push(req.method);
    if (req.method !== "elicitation/create") throw new Error(`unexpected input request ${req.method}`);
    const props = Object.keys(req.params?.requestedSchema?.properties ?? { answer: {} });
    return { action: "accept", content: Object.fromEntries(props.map((k) => [k, k === "confirm" ? true : "Ada"])) };
  };
  return withClient(ctx, { onInput }, async (c) => {
    const h = await settled(ctx, c.callTool(tool(ctx, "ask_input"), {}), "callTool");
    const r = await settled(ctx, h.result(), "result after the answer");
    assert(asked.includes("elicitation/create"), `onInput was asked to elicit (asked: ${asked})`);
    assert(text(r).includes("Ada"), `the answer in the result: ${text(r)}`);
    return h.id === null ? { note: "inline (no task)" } : {};
  });
}

/**
 * Ten watchers on one running task share its one poller: the server sees the polls of one subscriber
 * (at most one per interval), and every watcher ends with the call's own result.
 */
export async function watchers(ctx) {
  return withClient(ctx, undefined, async (c) => {
    const since = Date.now();
    const h = await settled(ctx, c.callTool(tool(ctx, "slow_job"), { ms: TASK_MS }, AS_TASK), "callTool");
    const id = taskOf(h, "ten watchers");
    const start = Date.now();
    const ws = Array.from({ length: WATCHERS }, () => c.watch(id));
    const [own, ...theirs] = await Promise.all([h, ...ws].map((x, i) => settled(ctx, x.result(), i ? `watcher ${i}` : "result")));
    const elapsed = Date.now() - start;
    theirs.forEach((r, i) => eq(text(r), text(own), `watcher ${i + 1}'s result`));
    const seen = await ctx.count(id, since);
    const n = seen.get.length;
    const pushed = seen.listen ?? 0;
    assert(n >= 1 || seen.result >= 1 || pushed >= 1, `the task was polled (${n}), its result held (${seen.result}) or pushed (${pushed} push streams)`);
    const every = interval(h);
    const bound = Math.ceil(elapsed / every) + 1;
    assert(n <= bound, `${n} tasks/get in ${elapsed} ms for ${WATCHERS + 1} subscribers (one poller: ≤ ${bound})`);
    // one held tasks/result, and one more when a pushed end races it
    assert(seen.result <= 2, `${seen.result} tasks/result for one task`);
    // pushes instead of polls: one stream for every subscriber, and one more when it is renewed
    assert(pushed <= 2, `${pushed} push streams (subscriptions/listen) for ${WATCHERS + 1} subscribers of one task`);
    const push = pushed ? `, ${pushed} push stream${pushed > 1 ? "s" : ""}` : "";
    return { note: `${n} tasks/get, ${seen.result} tasks/result${push} in ${(elapsed / 1000).toFixed(1)} s` };
  });
}

/** A second client watches the first one's task by id and sees it end the same way. */
export async function second(ctx) {
  return withClient(ctx, undefined, async (c) => {
    const h = await settled(ctx, c.callTool(tool(ctx, "slow_job"), { ms: TASK_MS }, AS_TASK), "callTool");
    const id = taskOf(h, "watch from a second client");
    return withClient(ctx, undefined, async (other) => {
      const w = other.watch(id);
      eq(w.id, id, "the watcher's task id");
      const [mine, theirs] = await Promise.allSettled([settled(ctx, h.result(), "result"), settled(ctx, w.result(), "the second client's result")]);
      if (mine.status === "rejected") throw mine.reason;
      if (theirs.status === "rejected") throw theirs.reason;
      eq(text(theirs.value), text(mine.value), "the second client's result");
      eq(w.status, h.status, "the second client's last status");
      return { verdict: w.status };
    });
  });
}

/** close() with a task running: its handle ends `closed`, later calls reject `closed`, polling stops. */
export async function close(ctx) {
  const c = await open(ctx);
  let closed = false;
  try {
    const h = await settled(ctx, c.callTool(tool(ctx, "slow_job"), { ms: TASK_MS }, AS_TASK), "callTool");
    const id = taskOf(h, "close");
    await sleep(300);
    await shut(c);
    closed = true;
    const at = Date.now();
    const e = await refusal(h, 5_000, "a call open at close");
    assert(e instanceof ctx.McpTaskError, `an McpTaskError, got ${e?.name}: ${e?.message}`);
    eq(e.kind, "closed", "the open call's error kind");
    const after = await rejection(c.callTool(tool(ctx, "slow_job"), { ms: 10 }), "a call after close");
    assert(after instanceof ctx.McpTaskError, `an McpTaskError, got ${after?.name}: ${after?.message}`);
    eq(after.kind, "closed", "a call after close");
    await within(5_000, c.close(), "a second close");
    await sleep(1500);
    const late = (await ctx.count(id, at + 200)).get.length;
    eq(late, 0, "tasks/get after close");
    return {};
  } finally {
    if (!closed) await c.close().catch(() => {});
  }
}

/** Every scenario, in the matrix's column order, with its column title. */
export const SCENARIOS = {
  connect: { run: connect, title: "connect" },
  complete: { run: complete, title: "complete (3 s)" },
  fail: { run: fail, title: "fail" },
  cancel: { run: cancel, title: "cancel" },
  input: { run: input, title: "input (onInput)" },
  watchers: { run: watchers, title: "10 watchers = 1 poller" },
  second: { run: second, title: "watch from a 2nd client" },
  close: { run: close, title: "close" },
};

/** The scenarios run again with `onWarning` (the only option added) to see what the client warns about. */
export const OBSERVED = ["complete", "fail", "cancel", "input", "watchers"];

/**
 * Runs the OBSERVED scenarios with an `onWarning` observer; never throws. Returns each distinct warning
 * once (`kind: message`, task ids elided), with how often it came.
 */
export async function observeWarnings(ctx) {
  const seen = new Map();
  const onWarning = (w) => {
    const e = w?.error ?? {};
    const key = `${e.kind ?? "?"}: ${String(e.message ?? "").replaceAll(w?.taskId ?? "\0", "<task>")}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  };
  for (const name of OBSERVED) await runCell(name, { ...ctx, onWarning });
  return [...seen].map(([text, times]) => ({ text, times }));
}

/**
 * Runs one scenario; never throws. `{ ok, note?, verdict?, about?, error? }`: `verdict` is how the task
 * ended (the same task must end the same way in every runtime), `error` describes what the scenario
 * threw: `{ typed, kind, code, httpStatus, message }` (typed: an McpTaskError).
 */
export async function runCell(name, ctx) {
  const s = SCENARIOS[name];
  if (!s) return { ok: false, error: { typed: false, message: `no scenario ${name}` } };
  try {
    const out = (await s.run(ctx)) ?? {};
    return { ok: true, note: out.note ?? null, verdict: out.verdict ?? null, about: out.about ?? null };
  } catch (e) {
    const typed = e instanceof ctx.McpTaskError;
    return {
      ok: false,
      error: { typed, kind: typed ? e.kind : null, code: typed ? (e.code ?? null) : null, httpStatus: typed ? (e.httpStatus ?? null) : null, message: String(e?.message ?? e) },
    };
  }
}
