// The SEP-1686 draft dialect through the public API, against the draft FIXTURE server
// (tests/fixtures/draft-server) in both its modes: SSE (it streams `notifications/tasks/created`)
// and JSON-only (one plain JSON answer per request, so no `created`). Run in Node
// (tests/js/node/draft.test.mjs) and in a Chromium page (tests/js/browser/draft.test.mjs). Plain ESM;
// `ctx` is { McpTaskClient, McpTaskError, url, statsUrl, undeclaredUrl, mode, connectOptions }.
import { kit } from "./scenarios.mjs";

const { assert, eq, sleep, within, rejection, stats, count, withClient } = kit;
const HEX32 = /^[0-9a-f]{32}$/;
const draft = { dialect: "draft" };

/** The fixture's requests for one task id. */
const requestsFor = (s, id) => s.requests.filter((r) => r.taskId === id);

/** Whether the fixture saw a `tasks/delete` for `id` (within 2 s). */
async function deleteSent(ctx, id) {
  for (let i = 0; i < 40; i++) {
    if (requestsFor(await stats(ctx), id).some((r) => r.method === "tasks/delete")) return true;
    await sleep(50);
  }
  return false;
}

/** handle.id is the generated id at once; the task is polled and followed while it runs. */
export async function idAtOnce(ctx) {
  await withClient(ctx, draft, async (c) => {
    eq(c.dialect, "draft", "dialect");
    // Long enough for the first poll (1-2 s after creation) to see it run.
    const h = await c.callTool("long_job", { steps: 10, stepMs: 300 });
    assert(HEX32.test(h.id ?? ""), `handle.id is the generated id at once: ${h.id}`);
    eq(h.status, "submitted", "first status");
    const seen = [];
    h.onStatus((t) => seen.push(t.status));
    const result = await within(20_000, h.result(), "result");
    const resultAt = Date.now();
    assert(JSON.stringify(result).includes("long_job done"), `result ${JSON.stringify(result)}`);
    assert(seen.includes("working"), `onStatus saw working: ${seen}`);
    const s = await stats(ctx);
    const gets = s.tasksGetByTask[h.id] ?? 0;
    assert(gets >= 1, `tasks/get polls for ${h.id}: ${gets}`);
    const firstGet = requestsFor(s, h.id).find((r) => r.method === "tasks/get");
    assert(firstGet && firstGet.t < resultAt - 300, "polled while the task ran");
    return `${ctx.mode}: id ${h.id.slice(0, 8)}…, ${gets} polls, statuses ${seen.join(",")}`;
  });
}

/** The task can be watched by id, and resumed by another client (a reload) while it runs. */
export async function watchAndResume(ctx) {
  const first = await within(15_000, ctx.McpTaskClient.connect(ctx.url, { ...ctx.connectOptions, ...draft }), "connect");
  const h = await first.callTool("long_job", { steps: 10, stepMs: 300 });
  const id = h.id;
  assert(HEX32.test(id ?? ""), `id ${id}`);
  const watcher = first.watch(id);
  await within(5000, new Promise((r) => watcher.onStatus((t) => t.status === "working" && r())), "watcher sees working");
  await first.close(); // the page goes away mid-task
  await withClient(ctx, draft, async (c) => {
    const again = c.watch(id);
    const result = await within(20_000, again.result(), "resumed result");
    assert(JSON.stringify(result).includes("long_job done"), "the resumed client got the result");
    eq(again.status, "completed", "resumed status");
  });
}

/** handle.delete(), client.deleteTask(id), delete after cancel, and deleteOnDone. */
export async function deletes(ctx) {
  const before = await stats(ctx);
  await withClient(ctx, draft, async (c) => {
    const listed = async () => {
      const ids = [];
      let cursor;
      do {
        const page = await c.listTasks(cursor);
        ids.push(...page.tasks.map((t) => t.taskId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return ids;
    };
    // A running task cannot be deleted: the server's error.
    const a = await c.callTool("long_job", { steps: 3, stepMs: 200 });
    const early = await rejection(a.delete(), "delete while running");
    eq(early.kind, "rpc", "running: the server refuses");
    await within(15_000, a.result(), "a completes");
    await a.delete();
    assert(!(await listed()).includes(a.id), "handle.delete(): gone from tasks/list");

    const b = await c.callTool("long_job", { steps: 2, stepMs: 100 });
    await within(15_000, b.result(), "b completes");
    await c.deleteTask(b.id);
    assert(!(await listed()).includes(b.id), "client.deleteTask(): gone from tasks/list");

    // Cancelled, then deleted: no longer listed.
    const x = await c.callTool("long_job", { steps: 50, stepMs: 200 });
    await x.cancel();
    const ended = await within(15_000, rejection(x.result(), "cancelled"), "cancel ends it");
    eq(ended.kind, "cancelled", "cancelled");
    await x.delete();
    assert(!(await listed()).includes(x.id), "a cancelled task, deleted, is not listed");

    // deleteOnDone: deleted once its result was delivered.
    const d = await c.callTool("long_job", { steps: 2, stepMs: 100 }, { deleteOnDone: true });
    await within(15_000, d.result(), "d completes");
    assert(await deleteSent(ctx, d.id), "deleteOnDone sent tasks/delete");
    assert(!(await listed()).includes(d.id), "deleteOnDone: gone from tasks/list");
  });
  // The connect option: every task, once delivered.
  await withClient(ctx, { ...draft, deleteOnDone: true }, async (c) => {
    const e = await c.callTool("long_job", { steps: 1, stepMs: 50 });
    await within(15_000, e.result(), "e completes");
    assert(await deleteSent(ctx, e.id), "connect deleteOnDone sent tasks/delete");
  });
  const sent = count(await stats(ctx), "tasks/delete") - count(before, "tasks/delete");
  eq(sent, 6, "tasks/delete sent: refused, a, b, x, d, e");
}

/** A dialect without tasks/delete refuses delete and deleteOnDone before sending anything. */
export async function noDeleteElsewhere(ctx) {
  const before = await stats(ctx);
  await withClient(ctx, { dialect: "legacy" }, async (c) => {
    const e1 = await rejection(c.deleteTask("0123"), "deleteTask on legacy");
    eq(e1.kind, "invalidInput", "deleteTask kind");
    assert(e1.message.includes("tasks/delete"), e1.message);
    const e2 = await rejection(c.callTool("long_job", { steps: 1 }, { deleteOnDone: true }), "deleteOnDone on legacy");
    eq(e2.kind, "invalidInput", "deleteOnDone kind");
  });
  // The connect option does nothing where there is no delete: calls go on.
  await withClient(ctx, { dialect: "legacy", deleteOnDone: true }, async (c) => {
    const h = await c.callTool("quick", { text: "hi" });
    await within(15_000, h.result(), "a call under connect deleteOnDone");
  });
  const after = await stats(ctx);
  eq(count(after, "tasks/delete"), count(before, "tasks/delete"), "no tasks/delete sent");
  eq(count(after, "tools/call"), count(before, "tools/call") + 1, "only the quick call was sent");
}

/** auto detects the fixture (it declares tasks the draft way); one that declares nothing is said once. */
export async function detects(ctx) {
  const warnings = [];
  await withClient(ctx, { dialect: "auto", onWarning: (w) => warnings.push(w) }, async (c) => {
    eq(c.dialect, "draft", "auto → draft");
    const h = await c.callTool("long_job", { steps: 1, stepMs: 50 });
    assert(HEX32.test(h.id ?? ""), "a task under the generated id");
    await within(15_000, h.result(), "result");
  });
  eq(warnings.filter((w) => w.error.message.includes("draft")).length, 0, `nothing to say: ${JSON.stringify(warnings)}`);
  const quiet = [];
  const opts = { ...ctx.connectOptions, dialect: "auto", onWarning: (w) => quiet.push(w) };
  const c = await within(15_000, ctx.McpTaskClient.connect(ctx.undeclaredUrl, opts), "connect undeclared");
  try {
    eq(c.dialect, "legacy", "no sign: legacy");
    await sleep(100);
    const hints = quiet.filter((w) => w.error.message.includes('dialect: "draft"'));
    eq(hints.length, 1, `one warning naming dialect: "draft" (${JSON.stringify(quiet)})`);
  } finally {
    await c.close();
  }
  const d = await within(15_000, ctx.McpTaskClient.connect(ctx.undeclaredUrl, { ...ctx.connectOptions, ...draft }), "connect as draft");
  try {
    const h = await d.callTool("long_job", { steps: 1, stepMs: 50 });
    assert(HEX32.test(h.id ?? ""), "dialect: draft tracks it");
    await within(15_000, h.result(), "result");
  } finally {
    await d.close();
  }
}

/** keepAlive is reported as keepAliveMs; ttlMs (lifetime from creation) stays unset. */
export async function keepAlive(ctx) {
  await withClient(ctx, draft, async (c) => {
    const h = await c.callTool("long_job", { steps: 10, stepMs: 300 }, { keepAliveMs: 60_000, ttlMs: 5 });
    const polled = new Promise((r) => h.onStatus((t) => t.keepAliveMs != null && r(t)));
    const t = await within(15_000, polled, "a status with keepAliveMs");
    eq(t.keepAliveMs, 60_000, "keepAliveMs as asked (the server echoes it)");
    eq(t.ttlMs ?? null, null, "no ttlMs");
    await within(15_000, h.result(), "result");
    const page = await c.listTasks();
    const listed = page.tasks.find((t) => t.taskId === h.id) ?? (await c.listTasks(page.nextCursor ?? undefined)).tasks.find((t) => t.taskId === h.id);
    eq(listed?.keepAliveMs, 60_000, "listTasks reports keepAliveMs");
  });
}

/** task: "always" on a request that cannot be a task is refused before anything is sent. */
export async function alwaysRefused(ctx) {
  await withClient(ctx, draft, async (c) => {
    const before = await stats(ctx);
    for (const method of ["tools/list", "ping"]) {
      const e = await rejection(c.request(method, {}, { task: "always" }), method);
      eq(e.kind, "invalidInput", `${method}: kind`);
    }
    const after = await stats(ctx);
    eq(count(after, "ping"), count(before, "ping"), "no ping sent");
    eq(count(after, "tools/list"), count(before, "tools/list"), "no tools/list sent");
    const ok = await c.request("ping", {});
    eq(ok.id, null, "a plain ping is no task");
  });
}

export const DRAFT = { idAtOnce, watchAndResume, deletes, noDeleteElsewhere, detects, keepAlive, alwaysRefused };
