// Checks of the interop matrix's own machinery: the limitation matcher, the README table it generates,
// and that the "ten watchers = one poller" count catches ten pollers (ten watchers on ten clients).
//   node --experimental-websocket --test tests/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer } from "../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../pkg/node.js";
import { LIMITS, limitFor, readmeTable, withReadmeTable, README_BEGIN, README_END } from "./limits.mjs";
import { runCell } from "./scenarios.mjs";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

test("a limitation matches only a typed error of its kinds, scenarios, error kind and message", () => {
  const l = LIMITS.find((x) => x.id === "no tasks");
  const error = { typed: true, kind: l.errorKind, message: "this call needs a task and the server offers no tasks" };
  const [kind, scenario] = [l.kinds[0], l.scenarios[0]];
  assert.equal(limitFor(kind, "node", scenario, error), l);
  assert.equal(limitFor(kind, "chromium", scenario, error), l, "every runtime when the entry names none");
  assert.equal(limitFor(kind, "node", scenario, { ...error, typed: false }), null, "an untyped error");
  assert.equal(limitFor("a-kind-nobody-registered", "node", scenario, error), null, "another kind");
  assert.equal(limitFor(kind, "node", "connect", error), null, "another scenario");
  assert.equal(limitFor(kind, "node", scenario, { ...error, kind: "rpc" }), null, "another error kind");
  assert.equal(limitFor(kind, "node", scenario, { ...error, message: "timed out" }), null, "another message");
  const saved = [...LIMITS];
  LIMITS.push({ ...l, id: "test only", runtimes: ["chromium"] });
  try {
    assert.equal(limitFor(kind, "chromium", scenario, error), l, "the first entry that applies");
    LIMITS.splice(LIMITS.indexOf(l), 1);
    assert.equal(limitFor(kind, "chromium", scenario, error)?.id, "test only", "an entry of one runtime applies there");
    assert.equal(limitFor(kind, "node", scenario, error), null, "and nowhere else");
  } finally {
    LIMITS.splice(0, LIMITS.length, ...saved);
  }
});

test("a limitation that names an HTTP status matches only an error with that status", () => {
  const l = LIMITS.find((x) => x.httpStatus !== undefined);
  assert.ok(l, "an entry with an httpStatus");
  const [kind, runtime, scenario] = [l.kinds[0], l.runtimes?.[0] ?? "node", l.scenarios[0]];
  const error = { typed: true, kind: l.errorKind, httpStatus: l.httpStatus, message: "HTTP 403 without an authorization challenge: the server refuses this request" };
  assert.equal(limitFor(kind, runtime, scenario, error), l);
  assert.equal(limitFor(kind, runtime, scenario, { ...error, httpStatus: null }), null, "no status");
  assert.equal(limitFor(kind, runtime, scenario, { ...error, httpStatus: l.httpStatus + 1 }), null, "another status");
});

test("the README's table of limitations is the one limits.mjs generates", () => {
  const readme = readFileSync(README, "utf8");
  assert.equal(withReadmeTable(readme), readme);
  for (const l of LIMITS) assert.ok(readmeTable().includes(l.server.replace(/\|/g, "\\|")), `${l.id} in the table`);
  assert.equal(withReadmeTable("no markers here"), null);
  const stale = `before\n${README_BEGIN}\n| old |\n${README_END}\nafter`;
  assert.equal(withReadmeTable(stale), `before\n${readmeTable()}\nafter`);
});

test("the watchers scenario fails when ten watchers poll on ten clients", { timeout: 60_000 }, async () => {
  // rmcp3 keeps one task store per process: other sessions can watch the task.
  const server = await startServer("rmcp3", { port: 0, timeoutMs: 30_000 });
  try {
    const count = async (taskId, since) => {
      const s = await (await fetch(server.statsUrl)).json();
      const reqs = s.requests.filter((r) => r.taskId === taskId && r.t >= since);
      return { get: reqs.filter((r) => r.method === "tasks/get").map((r) => r.t), result: reqs.filter((r) => r.method === "tasks/result").length, cancel: 0 };
    };
    // A client whose watch() hands each watcher to one of ten other clients: ten pollers.
    const TenPollers = {
      async connect(url, options) {
        const main = await McpTaskClient.connect(url, options);
        const others = await Promise.all(Array.from({ length: 10 }, () => McpTaskClient.connect(url)));
        let next = 0;
        return new Proxy(main, {
          get(target, key) {
            if (key === "watch") return (id) => others[next++ % others.length].watch(id);
            if (key === "close") return async () => { await Promise.all(others.map((c) => c.close())); await target.close(); };
            const v = target[key];
            return typeof v === "function" ? v.bind(target) : v;
          },
        });
      },
    };
    const one = await runCell("watchers", { McpTaskClient, McpTaskError, url: server.url, count });
    assert.ok(one.ok, `one client: ${one.error?.message}`);
    const ten = await runCell("watchers", { McpTaskClient: TenPollers, McpTaskError, url: server.url, count });
    assert.equal(ten.ok, false, "ten clients must fail the one-poller check");
    assert.match(ten.error.message, /tasks\/get in \d+ ms for 11 subscribers/);
  } finally {
    await server.stop();
  }
});
