// Coordination of several Node processes over Redis (`persist: { redis }`): the host the
// WebAssembly side uses in place of Web Locks, `BroadcastChannel` and IndexedDB. It takes an
// ioredis client as given and imports nothing, so no browser bundle carries a Redis client.
//
// Locks are leases: `SET key token NX PX ttl`, renewed while held, each grant numbered by a fencing
// counter (`INCR`). A process that dies, pauses or is cut off stops renewing and its lease
// expires; a waiting process then takes it. A holder whose lease was taken meanwhile learns it at
// its next renewal and loses the lock (the coordination machine steps down). The channel is
// pub/sub; records live in one hash, each read-modify-write a compare-and-set script.
//
// Redis unreachable: a leader that could not renew its lease steps down before it may have
// expired (a process cut off alone from Redis must not keep polling beside the one that takes
// over: two leaders on one legacy session reuse each other's JSON-RPC ids, and a new session
// cannot see a session's tasks on servers that scope tasks to sessions), so no process polls
// until Redis answers again; the others keep waiting; reads answer empty, writes wait (the
// completion ledger stays exactly-once); one warning per outage. Messages published meanwhile are
// lost, so after an outage a leader steps down and the processes elect one anew: every process
// gives the new leader its live subscriptions again.

import { McpTaskError } from "./extras.js";

const NS = "mcp-task-client:";
/** How long a lease lives without renewal: a dead or paused leader is replaced after this. */
export const LEASE_MS = 5_000;
const RENEW_MS = 1_000;
const RETRY_MS = 500;
const COMMAND_MS = 1_000;

const ACQUIRE = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + ARGV[2], ARGV[3])
  return redis.call('INCR', KEYS[2])
end
return 0`;
// Renews our lease while it is ours (gone: expired, taken, or a restarted Redis forgot it).
const RENEW = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local t = redis.call('TIME')
redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + ARGV[2], ARGV[3])
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1]); redis.call('ZREM', KEYS[2], ARGV[2])
end
return 0`;
const HELD = `local t = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t[1] * 1000 + math.floor(t[2] / 1000))
return redis.call('ZRANGE', KEYS[1], 0, -1)`;
// Writes ARGV[4] (delete when ARGV[3] is '0') if the field still holds what was read (ARGV[2],
// absent when ARGV[1] is '0').
const SWAP = `local v = redis.call('HGET', KEYS[1], ARGV[5])
if ARGV[1] == '1' then if v ~= ARGV[2] then return 0 end elseif v then return 0 end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], ARGV[5], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[5]) end
return 1`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms).unref?.());
const randomToken = () => Math.random().toString(36).slice(2) + Date.now().toString(36);
/** A Redis glob matching exactly `text` at the start. */
const globPrefix = (text) => text.replace(/[\\*?[\]]/g, "\\$&") + "*";

/** The coordination host of `persist: { redis }` (an ioredis client); `warn` hears outages as
 *  `onWarning` values. */
export function redisHost({ redis }, warn) {
  if (typeof redis?.eval !== "function" || typeof redis?.duplicate !== "function") {
    throw new McpTaskError("persist must be a boolean or { redis: an ioredis client }", { kind: "invalidInput" });
  }
  let downSince = 0;
  let warned = false;
  const up = () => {
    downSince = 0;
    warned = false;
  };
  const down = () => {
    downSince ||= Date.now();
  };
  /** Redis has not answered for longer than a lease lives: say so, once per outage. */
  const unreachable = () => {
    if (!downSince || Date.now() - downSince < LEASE_MS || warned) return;
    warned = true;
    const message = "Redis does not answer: no process polls until it does again (tasks are kept; their updates and onTaskDoneOnce come then)";
    warn({ taskId: null, error: { kind: "transport", message, data: "coordinationDegraded" } });
  };
  /** One command, failing fast when the connection is not ready or the answer is late. */
  function command(f) {
    if (redis.status !== "ready") {
      down();
      return Promise.reject(new Error("Redis is not connected"));
    }
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("Redis answered too late")), COMMAND_MS);
    });
    return Promise.race([f(), late]).then(
      (v) => (up(), v),
      (e) => {
        down();
        throw e;
      },
    ).finally(() => clearTimeout(timer));
  }
  const key = (name) => NS + "lock:" + name;
  const FENCE = NS + "fence";
  const HELD_SET = NS + "held";
  const RECORDS = NS + "records";
  /** The pending request per lock name: a new one replaces it (what the caller asked last). */
  const pending = new Map();

  const locks = {
    request(name, options, callback) {
      pending.get(name)?.abort();
      const token = randomToken();
      const signal = options?.signal;
      return new Promise((resolve, reject) => {
        let done = false;
        const finish = (f, v) => {
          if (done) return;
          done = true;
          if (pending.get(name) === entry) pending.delete(name);
          f(v);
        };
        const aborted = () => finish(reject, new DOMException("the lock request was aborted", "AbortError"));
        const entry = { abort: aborted };
        pending.set(name, entry);
        signal?.addEventListener("abort", aborted, { once: true });
        const args = [key(name), FENCE, HELD_SET, token, LEASE_MS, name];
        const hold = (fence) => {
          if (done) {
            command(() => redis.eval(RELEASE, 2, key(name), HELD_SET, token, name)).catch(() => {});
            return;
          }
          if (pending.get(name) === entry) pending.delete(name);
          signal?.removeEventListener("abort", aborted);
          let tickedAt = Date.now();
          let renewedAt = tickedAt;
          let lost = false;
          /** A renewal went unanswered: messages may have been lost meanwhile. */
          let missed = false;
          const lose = () => {
            if (lost) return;
            lost = true;
            clearInterval(renewer);
            done = true;
            // Free it for the election at once when it is still ours.
            command(() => redis.eval(RELEASE, 2, key(name), HELD_SET, token, name)).catch(() => {});
            reject(new Error("the lease was taken by another process"));
          };
          const renewer = setInterval(() => {
            // Paused past the lease (SIGSTOP, a hung loop), or unrenewed until it may expire before
            // the next renewal: another process may lead already, or soon.
            const now = Date.now();
            const late = now - tickedAt > LEASE_MS;
            tickedAt = now;
            if (late || now - renewedAt > LEASE_MS - RENEW_MS) return lose();
            // Back after a renewal went unanswered: elect anew.
            command(() => redis.eval(RENEW, 3, ...args)).then(
              (ok) => (ok && !missed ? (renewedAt = now) : lose()),
              () => {
                missed = true;
                unreachable();
              },
            );
          }, RENEW_MS);
          renewer.unref?.();
          const released = () => {
            clearInterval(renewer);
            if (!lost) command(() => redis.eval(RELEASE, 2, key(name), HELD_SET, token, name)).catch(() => {});
            lost = true;
            done = true;
            resolve();
          };
          Promise.resolve(callback({ name, mode: "exclusive", fence })).then(released, released);
        };
        const attempt = () => {
          if (done) return;
          command(() => redis.eval(ACQUIRE, 3, ...args)).then(
            (fence) => (fence ? hold(fence) : sleep(RETRY_MS).then(attempt)),
            () => (unreachable(), sleep(RETRY_MS).then(attempt)),
          );
        };
        if (signal?.aborted) aborted();
        else attempt();
      });
    },
    // Unanswered: rejects (an empty answer would make the leader forget every other process).
    async query() {
      const names = await command(() => redis.eval(HELD, 1, HELD_SET));
      return { held: names.map((name) => ({ name, mode: "exclusive" })), pending: [] };
    },
  };

  // Pub/sub needs its own connection: one per host, opened with the first channel.
  let sub = null;
  const listeners = new Map();
  function subscriber() {
    if (sub) return sub;
    sub = redis.duplicate();
    sub.on("error", () => {});
    sub.on("message", (channel, message) => {
      for (const l of listeners.get(channel) ?? []) l(message);
    });
    return sub;
  }

  function channel(name) {
    const topic = NS + "channel:" + name;
    const me = randomToken();
    let onmessage = null;
    const listener = (message) => {
      const at = message.indexOf("\n");
      if (at < 0 || message.slice(0, at) === me) return;
      onmessage?.({ data: message.slice(at + 1) });
    };
    const s = subscriber();
    if (!listeners.has(topic)) {
      listeners.set(topic, new Set());
      s.subscribe(topic).catch(() => {});
    }
    listeners.get(topic).add(listener);
    return {
      set onmessage(f) {
        onmessage = f;
      },
      postMessage(text) {
        command(() => redis.publish(topic, me + "\n" + text)).catch(() => {});
      },
      close() {
        const set = listeners.get(topic);
        set?.delete(listener);
        if (set?.size === 0) {
          listeners.delete(topic);
          s.unsubscribe(topic).catch(() => {});
        }
        if (listeners.size === 0 && sub) {
          sub.disconnect();
          sub = null;
        }
      },
    };
  }

  const store = {
    get: (k) => command(() => redis.hget(RECORDS, k)),
    async scan(prefix) {
      const out = [];
      let cursor = "0";
      do {
        const [next, flat] = await command(() => redis.hscan(RECORDS, cursor, "MATCH", globPrefix(prefix), "COUNT", 500));
        for (let i = 1; i < flat.length; i += 2) out.push(flat[i]);
        cursor = next;
      } while (cursor !== "0");
      return out;
    },
    /** Compare-and-set until it holds; while Redis is unreachable, waits for it. */
    async update(k, edit) {
      for (;;) {
        try {
          const old = await command(() => redis.hget(RECORDS, k));
          const now = edit(old);
          const args = [old === null ? "0" : "1", old ?? "", now === null ? "0" : "1", now ?? "", k];
          if (await command(() => redis.eval(SWAP, 1, RECORDS, ...args))) return now;
        } catch {
          unreachable();
          await sleep(RETRY_MS);
        }
      }
    },
  };

  return { locks, channel, store };
}
