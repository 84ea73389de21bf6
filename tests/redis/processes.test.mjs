// Several Node processes on one Redis (`persist: { redis }`): one poller per task across processes,
// takeover after SIGKILL / SIGSTOP of the leader, `onTaskDoneOnce` exactly once, and Redis going
// away mid-run. A real redis-server (its own port, no persistence) and the real ts-sdk task server.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { startServer } from "../servers/launch.mjs";
import { startRedis } from "./redis-server.mjs";
import { processes, relay, shortestGap, sleep, taskRequests, until } from "./harness.mjs";

/** The server's poll interval, and the client's lease (src/js/npm/redis.js `LEASE_MS`). */
const POLL_MS = 1_000;
const LEASE_MS = 5_000;
/** A dead leader is replaced within its lease, one acquire retry and one renewal period. */
const TAKEOVER_MS = LEASE_MS + 1_500;

let server;
let redis;
before(async () => {
  server = await startServer("ts-sdk", { args: ["--no-get", "--poll-ms", String(POLL_MS)] });
  redis = await startRedis();
});
after(async () => {
  await server?.stop();
  await redis?.stop();
});

/** Every task id once in `counts`, each exactly once. */
function exactlyOnce(counts, ids, what) {
  const lost = ids.filter((id) => !counts.has(id));
  const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
  assert.deepEqual({ lost, twice }, { lost: [], twice: [] }, what);
}

/** Runs `n` processes on scope `identity` whose 50 tasks of `steps` s every process watches, until
 *  every process heard every end; returns the server's task-status requests for them. */
async function fifty(n, identity, steps) {
  const ps = await processes(n, server.url, redis.port, identity);
  try {
    await until(() => ps.leaders().length === 1, 15_000, "one leader");
    const t0 = Date.now();
    const ids = await ps.tasks(50, steps, 1_000);
    await until(() => ps.procs.every((p) => new Set(p.of("done").map((e) => e.taskId)).size === 50), 60_000, "every process heard every task end");
    await sleep(500);
    const status = await taskRequests(server, ids, t0);
    return { ps, ids, status, gets: status.filter((r) => r.method === "tasks/get") };
  } finally {
    await ps.close();
  }
}

test("3 processes × 50 tasks cost the server what 1 process costs; each task ends once across processes", { timeout: 120_000 }, async (t) => {
  const STEPS = 12;
  const one = await fifty(1, "load-1", STEPS);
  const three = await fifty(3, "load-3", STEPS);
  const sessions = new Set(three.status.map((r) => r.session));
  // The two runs differ by jitter only; three independent pollers would triple it.
  const bound = Math.ceil(one.status.length * 1.2) + 10;
  const line = `50 tasks of ${STEPS} s watched by every process: task-status requests (tasks/get + tasks/result) 1 process ${one.status.length}, 3 processes ${three.status.length} (bound ${bound}), sessions ${sessions.size}, shortest tasks/get gap ${shortestGap(three.gets)} ms`;
  t.diagnostic(line);
  console.log(line);
  assert.ok(three.status.length <= bound, line);
  assert.equal(sessions.size, 1, "one leader, one session, polls");
  assert.ok(shortestGap(three.gets) >= POLL_MS * 0.9, line);
  exactlyOnce(three.ps.onceCounts(), three.ids, "onTaskDoneOnce once per task across the processes");
  assert.deepEqual(three.ps.log.filter((e) => e.type === "warning"), []);
  const r = new Redis({ host: "127.0.0.1", port: redis.port });
  const records = Object.values(await r.hgetall("mcp-task-client:records")).filter((v) => v.includes('"identity":"load-3"'));
  r.disconnect();
  assert.equal(records.length, 50, "a record per task");
  assert.deepEqual(records.filter((v) => v.includes("long_job done")), [], "no result stored without persistResults");
});

test("SIGKILL of the leader: another takes over within the lease, nothing lost or doubled; a restarted process resumes", { timeout: 90_000 }, async (t) => {
  const ps = await processes(3, server.url, redis.port, "kill");
  let restarted = null;
  try {
    await until(() => ps.leaders().length === 1, 15_000, "one leader");
    const t0 = Date.now();
    const ids = await ps.tasks(30, 15, 1_000);
    await sleep(2_000);
    const [dead] = ps.leaders();
    const killedAt = Date.now();
    dead.signal("SIGKILL");
    dead.stopped = true;
    const [next] = await until(() => ps.leaders().length === 1 && ps.leaders(), TAKEOVER_MS + 5_000, "a new leader");
    const leadAt = next.of("role").at(-1).at;
    // A restarted process (the killed one's replacement) gets every unfinished task back.
    restarted = await processes(1, server.url, redis.port, "kill");
    const [again] = restarted.procs;
    const resumed = (await again.ask({ cmd: "resume" }, "resumed")).ids;
    const resumedAt = Date.now();
    const survivors = ps.procs.filter((p) => p !== dead);
    await until(() => survivors.every((p) => new Set(p.of("done").map((e) => e.taskId)).size === 30), 60_000, "the survivors heard every task end");
    const gets = (await taskRequests(server, ids, t0)).filter((r) => r.method === "tasks/get");
    const first = gets.find((r) => r.t > killedAt)?.t ?? Infinity;
    // Unfinished when resume() answered: no process had heard the task end by then.
    const endedBefore = new Set(survivors.flatMap((p) => p.of("done").filter((e) => e.t < resumedAt).map((e) => e.taskId)));
    const running = ids.filter((id) => !endedBefore.has(id));
    const line = `SIGKILL: new leader after ${leadAt - killedAt} ms, its first tasks/get after ${first - killedAt} ms; shortest gap ${shortestGap(gets)} ms; tasks/get ${gets.length}; resume() after a restart, ${resumedAt - t0} ms after the first call (tasks of 15 s): ${resumed.length} tasks, ${running.length} of 30 still running`;
    t.diagnostic(line);
    console.log(line);
    assert.ok(leadAt - killedAt <= TAKEOVER_MS, line);
    assert.ok(first - killedAt <= TAKEOVER_MS + 2 * POLL_MS, line);
    assert.ok(shortestGap(gets) >= POLL_MS * 0.9, line);
    // resume() returns the identity's tasks, every one still running among them.
    assert.ok(running.length > 0, `no task left running to resume: ${line}`);
    assert.deepEqual(resumed.filter((id) => !ids.includes(id)), [], `resume() returns only the identity's tasks: ${line}`);
    assert.deepEqual(running.filter((id) => !resumed.includes(id)), [], `resume() returns every running task: ${line}`);
    const counts = ps.onceCounts();
    for (const e of again.log.filter((e) => e.proc === again.i && e.type === "once")) counts.set(e.taskId, (counts.get(e.taskId) ?? 0) + 1);
    exactlyOnce(counts, ids, `onTaskDoneOnce once per task across the processes and the kill: ${line}`);
  } finally {
    await ps.close();
    await restarted?.close();
  }
});

test("SIGSTOP of the leader past its lease, then SIGCONT: it steps down and completes nothing twice", { timeout: 90_000 }, async (t) => {
  const PAUSE_MS = 12_000;
  const ps = await processes(3, server.url, redis.port, "stop");
  try {
    await until(() => ps.leaders().length === 1, 15_000, "one leader");
    const ids = await ps.tasks(30, 6, 1_000);
    const [paused] = ps.leaders();
    paused.signal("SIGSTOP");
    paused.stopped = true;
    const stoppedAt = Date.now();
    await until(() => ps.leaders().length === 1, TAKEOVER_MS + 5_000, "a new leader");
    const leadAt = Math.max(...ps.leaders().map((p) => p.of("role").at(-1).at));
    // Every task ends while the old leader sleeps.
    await sleep(Math.max(0, stoppedAt + PAUSE_MS - Date.now()));
    const contAt = Date.now();
    paused.signal("SIGCONT");
    paused.stopped = false;
    await until(() => paused.of("role").some((e) => e.at >= contAt && e.role !== "leader"), 5_000, "the paused leader stepped down");
    await until(() => ps.procs.every((p) => new Set(p.of("done").map((e) => e.taskId)).size === 30), 30_000, "every process heard every task end");
    await sleep(1_000);
    const stepDown = paused.of("role").find((e) => e.at >= contAt && e.role !== "leader");
    const line = `SIGSTOP ${PAUSE_MS} ms: new leader after ${leadAt - stoppedAt} ms; after SIGCONT the old one stepped down in ${stepDown.t - contAt} ms; leaders now ${ps.leaders().length}`;
    t.diagnostic(line);
    console.log(line);
    assert.ok(leadAt - stoppedAt <= TAKEOVER_MS, line);
    assert.equal(ps.leaders().length, 1, line);
    exactlyOnce(ps.onceCounts(), ids, "the paused leader fired nothing twice");
  } finally {
    await ps.close();
  }
});

test("Redis restarted (empty) mid-run: one warning per process, no process polls meanwhile, nothing lost or doubled, one leader again", { timeout: 90_000 }, async (t) => {
  const DOWN_MS = 8_000;
  const ps = await processes(3, server.url, redis.port, "restart");
  try {
    await until(() => ps.leaders().length === 1, 15_000, "one leader");
    // Ending well after Redis is back: past the leader's check of who is alive (twice 5 s).
    const ids = await ps.tasks(30, 24, 1_000);
    await sleep(1_000);
    await redis.restart(DOWN_MS);
    const upAt = Date.now();
    const leadersWhileDown = ps.procs.filter((p) => p.roleAt(upAt - 500) === "leader").length;
    const pollsWhileDown = (await taskRequests(server, ids, upAt - DOWN_MS + LEASE_MS)).filter((r) => r.t < upAt).length;
    await until(() => ps.procs.every((p) => new Set(p.of("done").map((e) => e.taskId)).size === 30), 60_000, "every process heard every task end");
    const allDone = Date.now();
    await until(() => ps.leaders().length === 1 && ps.procs.every((p) => p.role !== "electing"), TAKEOVER_MS + 5_000, "one leader again");
    const warnings = ps.procs.map((p) => p.of("warning").length);
    const line = `Redis down ${DOWN_MS} ms and back empty: warnings per process ${warnings}, leaders while it was down ${leadersWhileDown} (task-status requests from ${LEASE_MS} ms into the outage: ${pollsWhileDown}), every process heard every end ${allDone - upAt} ms after it was back, onTaskDoneOnce calls ${[...ps.onceCounts().values()].reduce((a, b) => a + b, 0)} for ${ids.length} tasks`;
    t.diagnostic(line);
    console.log(line);
    assert.deepEqual(warnings, [1, 1, 1], line);
    // Two leaders on one session would reuse each other's JSON-RPC ids: none leads without Redis.
    assert.equal(leadersWhileDown, 0, line);
    assert.equal(pollsWhileDown, 0, line);
    exactlyOnce(ps.onceCounts(), ids, "no task lost, none fired twice");
  } finally {
    await ps.close();
  }
});

test("the leader cut off alone from Redis steps down before another takes over; nothing lost or doubled", { timeout: 90_000 }, async (t) => {
  const CUT_MS = 10_000;
  const link = await relay(redis.port);
  // The first process reaches Redis through the relay, and leads; the two others reach it directly.
  const alone = await processes(1, server.url, link.port, "cut");
  const others = await processes(2, server.url, redis.port, "cut");
  try {
    const [cutOff] = alone.procs;
    await until(() => cutOff.role === "leader" && others.procs.every((p) => p.role === "follower"), 15_000, "the first process leads");
    const ids = await others.tasks(30, 20, 1_000);
    await cutOff.ask({ cmd: "watch", ids }, "watching");
    await sleep(2_000);
    const cutAt = Date.now();
    link.cut();
    const [next] = await until(() => others.leaders().length === 1 && others.leaders(), TAKEOVER_MS + 5_000, "another leader");
    const leadAt = next.of("role").at(-1).at;
    const stepDown = await until(() => cutOff.of("role").find((e) => e.at >= cutAt && e.role !== "leader"), 10_000, "the cut-off leader stepped down");
    await sleep(Math.max(0, cutAt + CUT_MS - Date.now()));
    link.heal();
    const all = [...alone.procs, ...others.procs];
    await until(() => all.every((p) => new Set(p.of("done").map((e) => e.taskId)).size === 30), 60_000, "every process heard every task end");
    const counts = others.onceCounts();
    for (const [id, n] of alone.onceCounts()) counts.set(id, (counts.get(id) ?? 0) + n);
    const warnings = all.map((p) => p.of("warning").length);
    const line = `leader cut off from Redis ${CUT_MS} ms: it stepped down after ${stepDown.at - cutAt} ms, another led after ${leadAt - cutAt} ms; warnings per process ${warnings}`;
    t.diagnostic(line);
    console.log(line);
    assert.ok(stepDown.at < leadAt, `never two leaders: ${line}`);
    assert.ok(leadAt - cutAt <= TAKEOVER_MS, line);
    assert.deepEqual(warnings, [1, 0, 0], line);
    exactlyOnce(counts, ids, "onTaskDoneOnce once per task across the partition");
  } finally {
    await alone.close();
    await others.close();
    await link.close();
  }
});
