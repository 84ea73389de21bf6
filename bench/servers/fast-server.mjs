// Fast bench tool server: one `work` tool whose tasks stay `working` for `arguments.ms`, then complete.
// Speaks the legacy dialect (2025-11-25 core tasks, sessions, GET listening stream) or the modern one
// (2026-07-28 + io.modelcontextprotocol/tasks, stateless POST, subscriptions/listen), on raw node:http so
// that the server costs little next to the clients being measured. Counts every request (GET /stats).
//
// Every `progressMs` each working task's statusMessage advances ("step N"); with `push` on, every change
// (progress and completion) is also pushed (`notifications/tasks/status` on the legacy GET stream,
// `notifications/tasks` on a modern `subscriptions/listen` stream). With push off the task changes the
// same way and nothing is pushed. Legacy also speaks WebSocket (subprotocol "mcp") at /ws: each message
// is handled as a POST of the socket's session, and the socket is that session's listening stream.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { acceptWebSocket } from "./ws-socket.mjs";

const LEGACY_VERSION = "2025-11-25";
const MODERN_VERSION = "2026-07-28";
const TASKS_EXT = "io.modelcontextprotocol/tasks";
const RELATED = "io.modelcontextprotocol/related-task";
const CLIENT_CAPS = "io.modelcontextprotocol/clientCapabilities";
const SUB_ID = "io.modelcontextprotocol/subscriptionId";

const now = () => performance.timeOrigin + performance.now();
const iso = (ms) => new Date(ms).toISOString();

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
  "access-control-max-age": "600",
};

const TOOL = {
  name: "work",
  description: "Stays working for arguments.ms milliseconds, then completes",
  inputSchema: { type: "object", properties: { ms: { type: "number" } } },
};

/**
 * @param {object} o
 * @param {"legacy"|"modern"} o.dialect
 * @param {number} [o.port]
 * @param {number} [o.pollIntervalMs] server poll interval hint
 * @param {number} [o.progressMs] statusMessage change period (0 = never)
 * @param {boolean} [o.push] push status changes
 * @param {number} [o.ttlMs]
 * @param {number} [o.pageSize] legacy tasks/list page size
 * @param {"http"|"websocket"} [o.transport] which URL `url` names (legacy serves both)
 * @param {boolean} [o.crossSession] legacy: any session may read any task (tasks scoped to the server, as
 *   for a server that binds tasks to the user rather than the session); default: the creating session only
 */
export function startFastServer(o) {
  const dialect = o.dialect;
  const pollIntervalMs = o.pollIntervalMs ?? 1000;
  const progressMs = o.progressMs ?? pollIntervalMs;
  const push = !!o.push;
  const ttlMs = o.ttlMs ?? 600_000;
  const pageSize = o.pageSize ?? 100;
  const crossSession = !!o.crossSession;
  /** Legacy: whether session `sid` may see task `t`. */
  const mine = (t, sid) => crossSession || t.session === sid;

  /** @type {Map<string, any>} */
  const tasks = new Map();
  const sessions = new Map(); // legacy: id -> {streams:Set<res>, tasks:Set<id>}
  const listeners = new Set(); // modern: {res, ids:Set}
  const stats = { byMethod: {}, tasksGetByTask: {}, requests: [], completions: {} };
  let prepared = [];

  /** The SSE bytes of M status pushes over `ids` (what this server would send, back to back). */
  function recordedStream(ids, M, subId) {
    const method = dialect === "legacy" ? "notifications/tasks/status" : "notifications/tasks";
    const t0 = now();
    const parts = [];
    for (let i = 0; i < M; i++) {
      const id = ids[i % ids.length];
      const final = i >= M - ids.length;
      const t = { id, status: "working", statusMessage: final ? "final" : `step ${i}`, createdAt: t0, updatedAt: t0 + i };
      const params = wireTask(t);
      if (subId !== undefined) params._meta = { [SUB_ID]: subId };
      parts.push(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method, params })}\n\n`);
    }
    return parts.join("");
  }

  function count(method, taskId) {
    stats.byMethod[method] = (stats.byMethod[method] ?? 0) + 1;
    if (method === "tasks/get" && taskId) stats.tasksGetByTask[taskId] = (stats.tasksGetByTask[taskId] ?? 0) + 1;
    stats.requests.push({ t: now(), method, taskId: taskId ?? null });
  }

  function wireTask(t) {
    const base = {
      taskId: t.id,
      status: t.status,
      statusMessage: t.statusMessage,
      createdAt: iso(t.createdAt),
      lastUpdatedAt: iso(t.updatedAt),
    };
    if (dialect === "legacy") return { ...base, ttl: ttlMs, pollInterval: pollIntervalMs };
    const m = { ...base, ttlMs, pollIntervalMs };
    if (t.status === "completed") m.result = { resultType: "complete", ...t.result };
    return m;
  }

  function sse(res, msg) {
    if (res.message) return res.message(msg);
    res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
  }

  function pushTask(t) {
    if (!push) return;
    if (dialect === "legacy") {
      const s = sessions.get(t.session);
      if (!s) return;
      const msg = { jsonrpc: "2.0", method: "notifications/tasks/status", params: wireTask(t) };
      for (const res of s.streams) sse(res, msg);
    } else {
      const params = wireTask(t);
      for (const l of listeners) {
        if (l.ids.has(t.id)) sse(l.res, { jsonrpc: "2.0", method: "notifications/tasks", params: { ...params, _meta: { [SUB_ID]: l.subId } } });
      }
    }
  }

  function createTask(session, ms) {
    const id = randomUUID();
    const t0 = now();
    const t = {
      id, session, status: "working", statusMessage: "step 0", step: 0, createdAt: t0, updatedAt: t0,
      waiters: [], result: null, timer: null,
    };
    tasks.set(id, t);
    t.timer = setTimeout(() => complete(t), Math.max(0, Number(ms) || 0));
    return t;
  }

  function complete(t) {
    if (t.status !== "working") return;
    t.status = "completed";
    t.updatedAt = now();
    t.statusMessage = "done";
    t.result = { content: [{ type: "text", text: `done ${t.id}` }], isError: false };
    stats.completions[t.id] = t.updatedAt;
    for (const w of t.waiters) w();
    t.waiters = [];
    pushTask(t);
  }

  const progressTimer = progressMs > 0 ? setInterval(() => {
    const t1 = now();
    for (const t of tasks.values()) {
      if (t.status !== "working") continue;
      t.step += 1;
      t.statusMessage = `step ${t.step}`;
      t.updatedAt = t1;
      pushTask(t);
    }
  }, progressMs) : null;

  const ok = (id, result) => ({ jsonrpc: "2.0", id, result });
  const err = (id, code, message, data) => ({ jsonrpc: "2.0", id, error: { code, message, ...(data ? { data } : {}) } });

  function send(res, status, body, headers = {}) {
    const text = body === undefined ? "" : JSON.stringify(body);
    res.writeHead(status, { ...CORS, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers });
    res.end(text);
  }

  // ---- legacy ----
  async function legacy(req, res, msg) {
    const sid = req.headers["mcp-session-id"];
    if (req.method === "GET") {
      const s = sessions.get(sid);
      if (!s) return send(res, 404, err(null, -32001, "Session not found"));
      count("GET /mcp");
      res.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": open\n\n");
      s.streams.add(res);
      res.on("close", () => s.streams.delete(res));
      return;
    }
    if (req.method === "DELETE") {
      count("DELETE /mcp");
      const s = sessions.get(sid);
      if (s) { for (const r of s.streams) r.end(); sessions.delete(sid); }
      return send(res, 200, undefined);
    }
    if (!msg || typeof msg !== "object") return send(res, 400, err(null, -32700, "Parse error"));
    if (msg.method === "initialize") {
      count("initialize");
      const id = randomUUID();
      sessions.set(id, { streams: new Set() });
      return send(res, 200, ok(msg.id, {
        protocolVersion: LEGACY_VERSION,
        capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
        serverInfo: { name: "bench-fast-legacy", version: "0.0.0" },
      }), { "mcp-session-id": id });
    }
    const s = sessions.get(sid);
    if (!sid) {
      count(msg.method ?? "(response)");
      return send(res, 400, err(null, -32000, "Bad Request: Server not initialized"));
    }
    if (!s) return send(res, 404, err(null, -32001, "Session not found"));
    const p = msg.params ?? {};
    if (msg.method === undefined || msg.id === undefined) { // notification or response
      count(msg.method ?? "(response)");
      return send(res, 202, undefined);
    }
    const taskId = typeof p.taskId === "string" ? p.taskId : undefined;
    count(msg.method, taskId);
    switch (msg.method) {
      case "ping": return send(res, 200, ok(msg.id, {}));
      case "tools/list":
        return send(res, 200, ok(msg.id, { tools: [{ ...TOOL, execution: { taskSupport: "optional" } }] }));
      case "tools/call": {
        if (p.name !== "work") return send(res, 200, ok(msg.id, { content: [{ type: "text", text: "unknown tool" }], isError: true }));
        const t = createTask(sid, p.arguments?.ms);
        if (p.task && typeof p.task === "object") return send(res, 200, ok(msg.id, { task: wireTask(t) }));
        await new Promise((r) => t.waiters.push(r));
        return send(res, 200, ok(msg.id, t.result));
      }
      case "tasks/get": {
        const t = tasks.get(taskId);
        if (!t || !mine(t, sid)) return send(res, 200, err(msg.id, -32602, "Unknown taskId"));
        return send(res, 200, ok(msg.id, wireTask(t)));
      }
      case "tasks/result": {
        const t = tasks.get(taskId);
        if (!t || !mine(t, sid)) return send(res, 200, err(msg.id, -32602, "Unknown taskId"));
        if (t.status === "working") await new Promise((r) => t.waiters.push(r));
        if (t.status === "cancelled") return send(res, 200, err(msg.id, -32603, "Task cancelled"));
        return send(res, 200, ok(msg.id, { ...t.result, _meta: { [RELATED]: { taskId: t.id } } }));
      }
      case "tasks/list": {
        const all = [...tasks.values()].filter((t) => mine(t, sid));
        const start = Number.parseInt(p.cursor ?? "0", 10) || 0;
        const page = all.slice(start, start + pageSize).map(wireTask);
        const next = start + pageSize < all.length ? String(start + pageSize) : undefined;
        return send(res, 200, ok(msg.id, { tasks: page, ...(next ? { nextCursor: next } : {}) }));
      }
      case "tasks/cancel": {
        const t = tasks.get(taskId);
        if (!t || !mine(t, sid) || t.status !== "working") return send(res, 200, err(msg.id, -32602, "Task not cancellable"));
        clearTimeout(t.timer);
        t.status = "cancelled"; t.updatedAt = now(); t.statusMessage = "cancelled";
        for (const w of t.waiters) w();
        pushTask(t);
        return send(res, 200, ok(msg.id, wireTask(t)));
      }
      default: return send(res, 200, err(msg.id, -32601, `Method not found: ${msg.method}`));
    }
  }

  // ---- modern ----
  async function modern(req, res, msg) {
    if (req.method !== "POST") { count(`${req.method} /mcp`); return send(res, 405, undefined, { allow: "POST" }); }
    if (!msg || typeof msg !== "object") return send(res, 400, err(null, -32700, "Parse error"));
    if (msg.method === undefined || msg.id === undefined) { count(msg.method ?? "(response)"); return send(res, 202, undefined); }
    const p = msg.params ?? {};
    const taskId = typeof p.taskId === "string" ? p.taskId : undefined;
    count(msg.method, taskId);
    if (msg.method === "initialize") {
      return send(res, 200, err(msg.id, -32022, "Unsupported protocol version", { supported: [MODERN_VERSION], requested: p.protocolVersion ?? null }));
    }
    const meta = p._meta ?? {};
    const wantsTasks = !!meta[CLIENT_CAPS]?.extensions?.[TASKS_EXT];
    switch (msg.method) {
      case "server/discover":
        return send(res, 200, ok(msg.id, {
          resultType: "complete",
          supportedVersions: [MODERN_VERSION],
          capabilities: { tools: {}, extensions: { [TASKS_EXT]: {} } },
          serverInfo: { name: "bench-fast-modern", version: "0.0.0" },
          ttlMs: 0,
          cacheScope: "private",
        }));
      case "ping": return send(res, 200, ok(msg.id, { resultType: "complete" }));
      case "tools/list":
        return send(res, 200, ok(msg.id, { resultType: "complete", tools: [TOOL], ttlMs: 0, cacheScope: "private" }));
      case "tools/call": {
        if (p.name !== "work") return send(res, 200, ok(msg.id, { resultType: "complete", content: [{ type: "text", text: "unknown tool" }], isError: true }));
        const t = createTask(null, p.arguments?.ms);
        if (wantsTasks) return send(res, 200, ok(msg.id, { resultType: "task", ...wireTask(t) }));
        await new Promise((r) => t.waiters.push(r));
        return send(res, 200, ok(msg.id, { resultType: "complete", ...t.result }));
      }
      case "tasks/get": {
        const t = tasks.get(taskId);
        if (!t) return send(res, 200, err(msg.id, -32602, "Unknown taskId"));
        return send(res, 200, ok(msg.id, { resultType: "complete", ...wireTask(t) }));
      }
      case "tasks/cancel": {
        const t = tasks.get(taskId);
        if (!t) return send(res, 200, err(msg.id, -32602, "Unknown taskId"));
        if (t.status === "working") {
          clearTimeout(t.timer);
          t.status = "cancelled"; t.updatedAt = now(); t.statusMessage = "cancelled";
          for (const w of t.waiters) w();
          pushTask(t);
        }
        return send(res, 200, ok(msg.id, { resultType: "complete" }));
      }
      case "tasks/update": return send(res, 200, ok(msg.id, { resultType: "complete" }));
      case "subscriptions/listen": {
        const ids = Array.isArray(p.notifications?.taskIds) ? p.notifications.taskIds.filter((x) => typeof x === "string") : [];
        const accepted = push ? ids : [];
        res.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
        sse(res, { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: accepted }, _meta: { [SUB_ID]: msg.id } } });
        const l = { res, ids: new Set(accepted), subId: msg.id };
        listeners.add(l);
        res.on("close", () => { listeners.delete(l); if (process.env.BENCH_DEBUG) console.log("listener closed", msg.id); });
        return;
      }
      default: return send(res, 404, err(msg.id, -32601, `Method not found: ${msg.method}`));
    }
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "OPTIONS") { stats.preflights = (stats.preflights ?? 0) + 1; res.writeHead(204, CORS); return res.end(); }
      if (url.pathname === "/stats" && req.method === "GET") return send(res, 200, stats);
      if (url.pathname === "/stats/reset" && req.method === "POST") {
        stats.byMethod = {}; stats.tasksGetByTask = {}; stats.requests = []; stats.completions = {};
        return send(res, 200, {});
      }
      if (url.pathname === "/bench/complete-all" && req.method === "POST") {
        for (const t of tasks.values()) { clearTimeout(t.timer); complete(t); }
        return send(res, 200, {});
      }
      if (url.pathname === "/bench/replay/prepare" && req.method === "POST") {
        // Builds the recorded status stream for the given task ids: M messages round-robin over the
        // ids, each a full task status push ("step i"), the last one per task saying "final".
        const { ids, M } = JSON.parse((await readBody(req)).toString("utf8"));
        prepared = [];
        const targets = dialect === "legacy"
          ? [...sessions.values()].flatMap((x) => [...x.streams].map((res) => ({ res, subId: undefined })))
          : [...listeners].map((l) => ({ res: l.res, subId: l.subId }));
        for (const target of targets) prepared.push({ res: target.res, blob: Buffer.from(recordedStream(ids, M, target.subId)) });
        return send(res, 200, { streams: prepared.length, bytes: prepared[0]?.blob.length ?? 0 });
      }
      if (url.pathname === "/bench/replay/fire" && req.method === "POST") {
        for (const p of prepared) p.res.write(p.blob);
        const n = prepared.length;
        prepared = [];
        return send(res, 200, { streams: n });
      }
      if (url.pathname !== "/mcp") return send(res, 404, undefined);
      let msg;
      if (req.method === "POST") {
        const body = await readBody(req);
        try { msg = JSON.parse(body.toString("utf8")); } catch { msg = null; }
      }
      if (dialect === "legacy") await legacy(req, res, msg);
      else await modern(req, res, msg);
    } catch (e) {
      if (!res.headersSent) send(res, 500, err(null, -32603, String(e)));
    }
  });
  // ---- legacy over one WebSocket ----
  const sockets = new Set();
  server.on("upgrade", (req, socket) => {
    if (dialect !== "legacy" || new URL(req.url ?? "/", "http://x").pathname !== "/ws") return socket.destroy();
    const headers = {};
    const stream = { message: (msg) => ws.send(JSON.stringify(msg)), destroy: () => ws.close() };
    const reply = {
      writeHead: (_status, h = {}) => {
        const sid = h["mcp-session-id"];
        if (sid && !headers["mcp-session-id"]) { headers["mcp-session-id"] = sid; sessions.get(sid)?.streams.add(stream); }
      },
      end: (text) => { if (text) ws.send(text); },
    };
    const ws = acceptWebSocket(req, socket, {
      onText: (text) => {
        let msg;
        try { msg = JSON.parse(text); } catch { msg = null; }
        legacy({ method: "POST", headers }, reply, msg).catch(() => {});
      },
      onClose: () => { sockets.delete(ws); sessions.get(headers["mcp-session-id"])?.streams.delete(stream); },
    });
    sockets.add(ws);
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  server.requestTimeout = 0;
  server.maxConnections = 100_000;

  return new Promise((resolve) => {
    server.listen(o.port ?? 0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      const base = `http://127.0.0.1:${port}`;
      resolve({
        url: o.transport === "websocket" ? `ws://127.0.0.1:${port}/ws` : `${base}/mcp`,
        statsUrl: `${base}/stats`,
        base,
        stop: () => new Promise((r) => {
          if (progressTimer) clearInterval(progressTimer);
          for (const t of tasks.values()) clearTimeout(t.timer);
          for (const s of sessions.values()) for (const x of s.streams) x.destroy();
          for (const l of listeners) l.res.destroy();
          for (const ws of sockets) ws.close();
          server.closeAllConnections?.();
          server.close(() => r());
        }),
      });
    });
  });
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
