// Spawns worker processes (worker.mjs) sharing one Redis and one task server, and records what
// each reports, with when.
import { fork } from "node:child_process";
import { connect, createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const WORKER = join(dirname(fileURLToPath(import.meta.url)), "worker.mjs");
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `f()` is truthy (checked every 50 ms); throws after `ms` naming `what`. */
export async function until(f, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** One worker process. */
class Proc {
  constructor(i, url, redisPort, identity, log) {
    this.i = i;
    this.log = log;
    this.child = fork(WORKER, [url, String(redisPort), identity], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.role = null;
    this.child.on("message", (m) => {
      if (m.type === "role") this.role = m.role;
      log.push({ ...m, proc: i, t: Date.now() });
    });
    this.exited = new Promise((r) => this.child.once("exit", r));
  }
  /** The role this process reported last before time `t`. */
  roleAt(t) {
    return this.of("role").filter((e) => e.at <= t).at(-1)?.role ?? null;
  }
  of(type) {
    return this.log.filter((e) => e.proc === this.i && e.type === type);
  }
  /** Sends `cmd` and waits for the reply of type `reply`. */
  async ask(cmd, reply, ms = 30_000) {
    const before = this.of(reply).length;
    this.child.send(cmd);
    return until(() => this.of(reply)[before], ms, `${reply} from process ${this.i}`);
  }
  signal(sig) {
    this.child.kill(sig);
  }
}

/** `n` processes on one scope (process i on Redis port `ports[i]`, or `ports` for all); `close()`
 *  ends those still running. */
export async function processes(n, url, ports, identity) {
  const log = [];
  const procs = Array.from({ length: n }, (_, i) => new Proc(i, url, [ports].flat()[i] ?? ports, identity, log));
  await until(() => procs.every((p) => p.of("ready").length), 30_000, "every process connected");
  return {
    procs,
    log,
    leaders: () => procs.filter((p) => p.role === "leader" && p.child.exitCode === null && !p.stopped),
    /** Each process calls its share of `total` tasks, then every process watches all of them. */
    async tasks(total, steps, stepMs) {
      const ids = [];
      for (const p of procs) {
        const n = Math.floor(total / procs.length) + (p.i < total % procs.length ? 1 : 0);
        ids.push(...(await p.ask({ cmd: "call", n, steps, stepMs }, "called")).ids);
      }
      for (const p of procs) await p.ask({ cmd: "watch", ids }, "watching");
      return ids;
    },
    /** `onTaskDoneOnce` calls per task id, over every process. */
    onceCounts() {
      const c = new Map();
      for (const e of log) if (e.type === "once") c.set(e.taskId, (c.get(e.taskId) ?? 0) + 1);
      return c;
    },
    async close() {
      for (const p of procs) {
        if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
        p.child.kill("SIGCONT");
        p.child.send({ cmd: "close" });
        const quit = await Promise.race([p.exited.then(() => true), sleep(5_000).then(() => false)]);
        if (!quit) p.child.kill("SIGKILL");
      }
    },
  };
}

/** The server's task-status requests (tasks/get, tasks/result) for `ids`, from time `from` on. */
export async function taskRequests(server, ids, from = 0) {
  const s = await (await fetch(server.statsUrl)).json();
  const set = new Set(ids);
  return s.requests.filter((r) => (r.method === "tasks/get" || r.method === "tasks/result") && set.has(r.taskId) && r.t >= from);
}

/** The shortest gap between two tasks/get of one task. */
export function shortestGap(gets) {
  const last = new Map();
  let min = Infinity;
  for (const r of [...gets].sort((a, b) => a.t - b.t)) {
    if (last.has(r.taskId)) min = Math.min(min, r.t - last.get(r.taskId));
    last.set(r.taskId, r.t);
  }
  return min;
}

/** A TCP relay to Redis on `port` that can be cut (every connection dropped, new ones refused) and healed. */
export async function relay(port) {
  const sockets = new Set();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => (sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const drop = () => {
    cut = true;
    for (const s of sockets) s.destroy();
  };
  return {
    port: server.address().port,
    cut: drop,
    heal() {
      cut = false;
    },
    close() {
      drop();
      return new Promise((r) => server.close(r));
    },
  };
}
