// Fault-injecting HTTP proxy for MCP Streamable HTTP (tests only; Node 20, node:http only).
//
// Sits between the client under test and a real MCP server on 127.0.0.1, forwards everything,
// adds CORS (exposing Mcp-Session-Id), counts what passes, and — per the active rules — breaks
// responses in the ways real networks and servers do. Control endpoints (CORS-enabled):
//   GET  /__proxy/stats   counts per method, per task (tasks/get times), per fault, per HTTP status
//   POST /__proxy/rules   body {rules:[...], seed?} replaces the active rules (see RULES below)
//   POST /__proxy/reset   clears the counters (rules stay)
//
// RULES: each rule is {fault, method?, probability?, count?, after?, name?, ...params}:
//   method       JSON-RPC method of the request ("tasks/get"), "GET"/"DELETE" for those HTTP
//                methods, "response"/"notification" for client→server ones; string, array or "*".
//   probability  chance a matching request is hit (seeded PRNG; default 1).
//   count        at most this many applications (default unlimited); after: skip the first N matches;
//                every: hit only every k-th match (1st, k+1th, …) of each task (of all task-less
//                requests together), deterministic where probability is not.
// At most one rule applies to one HTTP exchange (the first that fires, in order).
// Faults (params in brackets):
//   reset        forward head + [afterEvents=1] SSE events (or half a JSON body), then destroy the socket
//                ([midEvent] also writes half of the next event first).
//   truncate     like reset but ends the response cleanly: the message is cut, the stream says "done".
//   stall        forward head + [afterEvents=0] events, then send nothing more until the client gives up.
//   status       answer [status=500] (or cycle [statuses]) without forwarding ([forward] forwards first,
//                so the server acted but the client never hears) with an HTML error page ([json]: a
//                JSON-RPC error with id null, [code], [message], as SDKs answer bad requests).
//   retry-after  answer [status=429] with `Retry-After: [seconds]` or `retry-after-ms: [ms]`, no forward.
//   delay        forward, then hold the response head [ms] (past the client's timeout).
//   session-gone end the request's session at the server (DELETE upstream) and answer 404; every later
//                request carrying that session id also gets 404 here.
//   malformed    replace the response message with [variant] garbage|truncated|not-rpc|html.
//   wrong-types  replace the types of known fields (status, taskId, ttl, pollInterval, timestamps…).
//   oversized    pad the response with [bytes] of `_meta` text ([variant=pad]) or send one SSE line of
//                [bytes] that never ends ([variant=endless-line]).
//   duplicate    deliver every message of the response twice (a JSON body becomes an SSE stream).
//   reorder      hold the response [ms] so later requests overtake it, reverse the SSE events of the
//                stream, and answer tasks/get with an older snapshot of the same task ([stale]).
//   backwards    after a response that says a task is terminal, push a status notification saying
//                `working` for it, and answer that task's later tasks/get with `working`.
//   unknown-task answer a request naming a taskId with JSON-RPC [code=-32602] "task not found", no forward.
//   sse-retry    answer (a GET) with an SSE stream that says `retry: [ms=0]` and ends at once.
//   html-text    put [payload] HTML into status messages, tool result text, error messages, tool
//                descriptions/titles, server name and instructions.
//   phantom      append responses for request ids the client never sent and a status notification
//                for a task id that never existed.
import http from "node:http";

const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown", "expired"]);
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "Mcp-Session-Id, MCP-Protocol-Version, Retry-After, retry-after-ms, Content-Type, Last-Event-ID",
};
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade",
  "proxy-connection", "te", "trailer"]);
const HTML_ERROR = (code, text) =>
  `<html><head><title>${code} ${text}</title></head><body><h1>${code} ${text}</h1>` +
  `<img src=x onerror="window.__faultXss=(window.__faultXss||0)+1"><script>window.__faultXss=1</script></body></html>`;

/** Seeded PRNG (mulberry32) so a run is reproducible. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Incremental SSE splitter that keeps every event's raw text (LF, CR or CRLF) byte-exact. */
export class SseSplitter {
  constructor() { this.buf = ""; this.pos = 0; this.lineStart = 0; this.evStart = 0; }
  /** Feeds text, returns complete raw events (each ends with its blank line). */
  push(text) {
    this.buf += text;
    const out = [];
    const b = this.buf;
    let i = this.pos;
    while (i < b.length) {
      const c = b.charCodeAt(i);
      if (c !== 10 && c !== 13) { i++; continue; }
      let end = i + 1;
      if (c === 13) {
        if (i + 1 >= b.length) break; // a lone CR at the end: wait to see if LF follows
        if (b.charCodeAt(i + 1) === 10) end = i + 2;
      }
      if (i === this.lineStart) { out.push(b.slice(this.evStart, end)); this.evStart = end; }
      this.lineStart = end;
      i = end;
    }
    // compact
    this.buf = b.slice(this.evStart);
    this.pos = i - this.evStart;
    this.lineStart -= this.evStart;
    this.evStart = 0;
    return out;
  }
  /** What is left at the end of the stream (an incomplete event), raw. */
  rest() { const r = this.buf; this.buf = ""; this.pos = this.lineStart = this.evStart = 0; return r; }
}

/** Parses one raw SSE event into {data, id, event, eol}. */
export function parseEvent(raw) {
  const lines = raw.split(/\r\n|\r|\n/);
  const eol = raw.includes("\r\n") ? "\r\n" : raw.includes("\r") ? "\r" : "\n";
  const data = [];
  let id, event, retry;
  for (const line of lines) {
    if (line === "" || line.startsWith(":")) continue;
    const k = line.indexOf(":");
    const field = k < 0 ? line : line.slice(0, k);
    let value = k < 0 ? "" : line.slice(k + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
    else if (field === "event") event = value;
    else if (field === "retry") retry = value;
  }
  return { data: data.length ? data.join("\n") : null, id, event, retry, eol };
}

const sseEvent = (msg, eol = "\n") =>
  `event: message${eol}data: ${typeof msg === "string" ? msg : JSON.stringify(msg)}${eol}${eol}`;

function tryJson(text) {
  try { return JSON.parse(text); } catch { return undefined; }
}

/** Every task snapshot a JSON-RPC message carries: [{taskId, status, ...}]. */
export function tasksIn(msg) {
  const out = [];
  if (!msg || typeof msg !== "object") return out;
  const r = msg.result;
  if (r && typeof r === "object") {
    if (r.task && typeof r.task === "object" && typeof r.task.taskId === "string") out.push(r.task);
    if (typeof r.taskId === "string" && typeof r.status === "string") out.push(r);
    if (Array.isArray(r.tasks)) for (const t of r.tasks) if (t && typeof t.taskId === "string") out.push(t);
  }
  const p = msg.params;
  if (p && typeof p === "object" && typeof msg.method === "string" && msg.method.startsWith("notifications/tasks")) {
    if (typeof p.taskId === "string") out.push(p);
    if (p.task && typeof p.task.taskId === "string") out.push(p.task);
  }
  return out;
}

/** The method a request body names (first message of a batch) and its ids. */
function describeRequest(httpMethod, body) {
  if (httpMethod === "GET") return { method: "GET", ids: [], msgs: [] };
  if (httpMethod === "DELETE") return { method: "DELETE", ids: [], msgs: [] };
  const parsed = tryJson(body);
  const msgs = Array.isArray(parsed) ? parsed : parsed && typeof parsed === "object" ? [parsed] : [];
  const first = msgs[0];
  let method = "(unparsed)";
  if (first && typeof first.method === "string") method = "id" in first ? first.method : "notification";
  else if (first && ("result" in first || "error" in first)) method = "response";
  return { method, ids: msgs.filter((m) => m && "id" in m && m.method).map((m) => m.id), msgs };
}

function mutateTypes(msg) {
  // Swap the types of every field a client reads; keep the id so the response still matches.
  const bad = (o) => {
    if (!o || typeof o !== "object") return;
    if ("taskId" in o) o.taskId = { not: "a string" };
    if ("status" in o) o.status = 42;
    if ("ttl" in o) o.ttl = "forever";
    if ("ttlMs" in o) o.ttlMs = "forever";
    if ("pollInterval" in o) o.pollInterval = "soon";
    if ("pollIntervalMs" in o) o.pollIntervalMs = -5;
    if ("createdAt" in o) o.createdAt = 12345;
    if ("lastUpdatedAt" in o) o.lastUpdatedAt = [];
    if ("statusMessage" in o) o.statusMessage = { html: "<b>x</b>" };
    if ("content" in o) o.content = "not an array";
    if ("capabilities" in o) o.capabilities = "all of them";
    if ("tools" in o) o.tools = { a: 1 };
  };
  if (msg && typeof msg === "object") {
    if (msg.result && typeof msg.result === "object") { bad(msg.result); bad(msg.result.task); }
    else if ("result" in msg) msg.result = "a string result";
    if (msg.error && typeof msg.error === "object") { msg.error.code = "minus one"; msg.error.message = 7; }
    if (msg.params && typeof msg.params === "object") bad(msg.params);
  }
  return msg;
}

/**
 * Starts the proxy. `target` is the upstream MCP endpoint URL (http://127.0.0.1:PORT/path).
 * Returns {url, origin, statsUrl, setRules, reset, stats, stop, setTarget}.
 */
export async function startProxy({ target, port = 0, rules = [], seed = 1, log = () => {} } = {}) {
  let upstream = new URL(target);
  let active = [];
  let rand = prng(seed);
  let stats;
  const killedSessions = new Set();
  const taskHistory = new Map(); // taskId -> [{status, msg}] as seen upstream (for stale replay)
  const backwardsTasks = new Map(); // taskId -> remaining rewrites
  const sockets = new Set();
  const openResponses = new Set();
  const openGets = new Map(); // task id → its tasks/get records not closed yet
  const t0 = Date.now();
  let statusCycle = 0;

  function resetStats() {
    openGets.clear();
    stats = {
      startedAt: t0, requests: 0, byMethod: {}, byStatus: {}, faults: {}, tasks: {},
      upstreamErrors: 0, clientAborts: 0, retryAfter: [], sessions: {}, refused: {}, initialize: 0, maxOpen: 0,
      auth: { with: 0, without: 0, values: [] }, paths: [], timeline: [],
    };
  }
  function setRules(list, s = seed) {
    active = (list || []).map((r, i) => ({ ...r, name: r.name || `${r.fault}#${i}`, _matched: 0, _applied: 0, _every: new Map() }));
    rand = prng(s);
    statusCycle = 0;
  }
  resetStats();
  setRules(rules);

  const task = (id) => (stats.tasks[id] ??= { get: 0, gets: [], getErrors: [], result: 0, cancel: 0, other: 0, statuses: [], inflight: 0, maxInflight: 0, reqs: [] });
  const bump = (obj, k, n = 1) => { obj[k] = (obj[k] || 0) + n; };

  function noteTasks(msg) {
    for (const t of tasksIn(msg)) {
      if (typeof t.status !== "string") continue;
      const rec = task(t.taskId);
      const iv = t.pollInterval ?? t.pollIntervalMs;
      if (typeof iv === "number") rec.pollInterval = rec.pollInterval === undefined ? iv : Math.min(rec.pollInterval, iv);
      if (rec.statuses[rec.statuses.length - 1] !== t.status) rec.statuses.push(t.status);
      if (TERMINAL.has(t.status)) rec.terminalAt ??= Date.now() - t0; // first sent to the client (push or answer)
      const h = taskHistory.get(t.taskId) || [];
      if (!h.length || h[h.length - 1].status !== t.status) h.push({ status: t.status, snapshot: structuredClone(t) });
      taskHistory.set(t.taskId, h);
    }
  }

  function pickRule(method, info) {
    for (const r of active) {
      const m = r.method ?? "*";
      const ok = m === "*" || (Array.isArray(m) ? m.includes(method) : m === method);
      if (!ok) continue;
      if (r.needsTask && !info.taskId) continue;
      if (r.needsSession && !info.sessionId) continue;
      if (r.count !== undefined && r._applied >= r.count) continue;
      r._matched++;
      if (r.after && r._matched <= r.after) continue;
      if (r.every) {
        // per task when the request names one (so no task is unlucky every time), else global
        const key = info.taskId ?? "";
        const k = (r._every.get(key) ?? 0) + 1;
        r._every.set(key, k);
        if ((k - 1) % r.every !== 0) continue;
      }
      if (r.probability !== undefined && rand() >= r.probability) continue;
      return r;
    }
    return null;
  }
  const applied = (r, g) => { r._applied++; bump(stats.faults, r.name); if (g) g.fault = r.fault; };

  function corsPreflight(req, res) {
    res.writeHead(204, {
      ...CORS_HEADERS,
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": req.headers["access-control-request-headers"] || "*",
      "access-control-max-age": "600",
    });
    res.end();
  }

  function sendJson(res, status, body, extra = {}) {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { ...CORS_HEADERS, "content-type": "application/json", ...extra });
    res.end(text);
  }

  function control(req, res, url, body) {
    if (url.pathname === "/__proxy/stats") {
      const open = openResponses.size;
      return sendJson(res, 200, { ...stats, now: Date.now(), open, rules: active.map(({ name, _matched, _applied }) => ({ name, matched: _matched, applied: _applied })) });
    }
    if (url.pathname === "/__proxy/rules" && req.method === "POST") {
      const b = tryJson(body) || {};
      setRules(b.rules, b.seed ?? seed);
      return sendJson(res, 200, { ok: true, rules: active.length });
    }
    if (url.pathname === "/__proxy/reset" && req.method === "POST") {
      resetStats();
      return sendJson(res, 200, { ok: true });
    }
    return sendJson(res, 404, { error: "unknown control path" });
  }

  function errorResponse(res, status, extra = {}) {
    const text = { 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 429: "Too Many Requests", 404: "Not Found" }[status] || "Error";
    res.writeHead(status, { ...CORS_HEADERS, "content-type": "text/html", ...extra });
    res.end(HTML_ERROR(status, text));
  }

  async function handle(req, res) {
    const url = new URL(req.url, "http://127.0.0.1");
    if (req.method === "OPTIONS") return corsPreflight(req, res);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    if (url.pathname.startsWith("/__proxy/")) return control(req, res, url, body);

    const { method, ids, msgs } = describeRequest(req.method, body);
    const first = msgs[0] || {};
    const taskId = first.params && typeof first.params.taskId === "string" ? first.params.taskId : undefined;
    const sessionId = req.headers["mcp-session-id"];
    const now = Date.now();
    stats.requests++;
    bump(stats.byMethod, method);
    if (method === "initialize") stats.initialize++;
    if (sessionId) bump(stats.sessions, sessionId);
    const auth = req.headers.authorization;
    if (auth) { stats.auth.with++; if (!stats.auth.values.includes(auth) && stats.auth.values.length < 8) stats.auth.values.push(auth); }
    else stats.auth.without++;
    if (!stats.paths.includes(req.url) && stats.paths.length < 50) stats.paths.push(req.url);
    let getRec = null;
    if (taskId) {
      const rec = task(taskId);
      rec.reqs.push([now - t0, method]);
      if (method === "tasks/get") {
        rec.get++;
        getRec = { t: now - t0, id: ids[0] ?? null, fault: null, status: null, session: sessionId ?? null, socket: req.socket.faultId };
        rec.gets.push(getRec);
        rec.inflight++;
        rec.maxInflight = Math.max(rec.maxInflight, rec.inflight);
        // what was still open when a second one came (and, once they close, when), for the report
        const open = (openGets.get(taskId) ?? []).filter((g) => g.closedAt === undefined);
        if (open.length) (rec.overlaps ??= []).push({ t: now - t0, open, next: getRec });
        openGets.set(taskId, [...open, getRec]);
        res.on("close", () => {
          rec.inflight--;
          getRec.closedAt = Date.now() - t0;
          getRec.clientFin = req.socket.finAt; // the client closed its side then (undefined: it did not)
          getRec.ended = res.writableEnded;
        });
      }
      else if (method === "tasks/result") rec.result++;
      else if (method === "tasks/cancel" || method === "tasks/delete") rec.cancel++;
      else rec.other++;
    }
    const info = { method, taskId, sessionId, ids };
    const finish = (status) => { bump(stats.byStatus, String(status)); if (getRec) getRec.status = status; };
    stats.timeline.push([now - t0, method]);
    const noteError = () => { if (taskId && method === "tasks/get") task(taskId).getErrors.push(now - t0); };

    // Sessions this proxy ended stay gone.
    if (sessionId && killedSessions.has(sessionId)) {
      finish(404); noteError();
      bump(stats.refused, method); // never reached the server: re-sending it is safe
      return sendJson(res, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    }

    const rule = pickRule(method, info);
    const f = rule?.fault;
    // ---- faults that answer without (or before) the server ----
    if (f === "status" && !rule.forward) {
      applied(rule, getRec); noteError();
      const st = rule.statuses ? rule.statuses[statusCycle++ % rule.statuses.length] : rule.status || 500;
      finish(st);
      if (rule.json) return sendJson(res, st, { jsonrpc: "2.0", error: { code: rule.code ?? -32600, message: rule.message ?? "Bad Request" }, id: null });
      return errorResponse(res, st);
    }
    if (f === "retry-after") {
      applied(rule, getRec); noteError();
      const st = rule.status || 429;
      finish(st);
      const hdr = rule.ms !== undefined ? { "retry-after-ms": String(rule.ms) } : { "retry-after": String(rule.seconds ?? 1) };
      const waitMs = rule.ms ?? (rule.seconds ?? 1) * 1000;
      stats.retryAfter.push({ method, taskId: taskId ?? null, at: now - t0, waitMs });
      return errorResponse(res, st, hdr);
    }
    if (f === "sse-retry") {
      // a stream that asks for an immediate reconnect (`retry: [ms]`), then ends
      applied(rule, getRec); finish(200);
      res.writeHead(200, { ...CORS_HEADERS, "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(`retry: ${rule.ms ?? 0}\n\n${rule.withEvent ? ": ping\n\nevent: ping\ndata: \n\n" : ""}`);
      return;
    }
    if (f === "unknown-task" && taskId && first.id !== undefined) {
      applied(rule, getRec); finish(200); noteError();
      return sendJson(res, 200, { jsonrpc: "2.0", id: first.id, error: { code: rule.code ?? -32602, message: `Failed to retrieve task: Task not found` } });
    }
    if (f === "session-gone" && sessionId) {
      applied(rule, getRec); noteError();
      killedSessions.add(sessionId);
      await new Promise((resolve) => {
        const del = http.request(upstream, { method: "DELETE", headers: { "mcp-session-id": sessionId, "mcp-protocol-version": req.headers["mcp-protocol-version"] || "2025-11-25" } }, (r) => { r.resume(); r.on("end", resolve); });
        del.on("error", resolve);
        del.setTimeout(2000, () => { del.destroy(); resolve(); });
        del.end();
      });
      finish(404);
      return sendJson(res, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    }

    // ---- forward ----
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
    headers.host = upstream.host;
    if (body.length) headers["content-length"] = Buffer.byteLength(body);
    const path = upstream.pathname === url.pathname || url.pathname === "/" ? upstream.pathname + url.search : url.pathname + url.search;
    let clientGone = false;
    const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers });
    openResponses.add(res);
    stats.maxOpen = Math.max(stats.maxOpen, openResponses.size);
    res.on("close", () => {
      openResponses.delete(res);
      if (!res.writableEnded) { clientGone = true; stats.clientAborts++; up.destroy(); }
    });
    up.on("error", (e) => {
      if (clientGone) return;
      stats.upstreamErrors++;
      log(`upstream error ${method}: ${e.code || e.message}`);
      if (!res.headersSent) { finish(502); noteError(); errorResponse(res, 502); }
      else res.destroy();
    });
    up.end(body);
    up.on("response", async (ur) => {
      if (clientGone) { ur.resume(); return; }
      if (f === "delay") { applied(rule, getRec); await sleep(rule.ms ?? 5000); if (clientGone) { ur.destroy(); return; } }
      if (f === "status" && rule.forward) {
        applied(rule, getRec); ur.resume(); finish(rule.status || 500); noteError();
        return errorResponse(res, rule.status || 500);
      }
      const ct = String(ur.headers["content-type"] || "");
      const isSse = ct.includes("text/event-stream");
      const isJson = ct.includes("application/json");
      if (ur.headers["mcp-session-id"] && method === "initialize") bump(stats.sessions, ur.headers["mcp-session-id"], 0);
      const outHeaders = {};
      for (const [k, v] of Object.entries(ur.headers)) {
        if (HOP.has(k) || k.startsWith("access-control-")) continue;
        outHeaders[k] = v;
      }
      Object.assign(outHeaders, CORS_HEADERS);
      finish(ur.statusCode);
      if (ur.statusCode >= 400) noteError();
      const ctx = { getRec, rule, f, method, ids, taskId, res, ur, isSse, outHeaders, status: ur.statusCode, dead: () => clientGone };
      try {
        if (isSse) await pipeSse(ctx);
        else if (isJson) await pipeJson(ctx);
        else { res.writeHead(ur.statusCode, outHeaders); ur.pipe(res); }
      } catch (e) {
        log(`pipe error ${method}: ${e.stack || e}`);
        if (!res.headersSent) errorResponse(res, 502); else res.destroy();
      }
    });
  }

  // ---- response transformation ----

  /** Applies a message-level fault to one message; returns the list of outgoing messages (objects or raw strings). */
  function transform(ctx, msg, isResponse) {
    const { rule, f } = ctx;
    if (msg && typeof msg === "object") noteTasks(msg);
    // rewrite task snapshots for tasks a `backwards` fault turned back
    if (msg && typeof msg === "object" && ctx.method === "tasks/get" && isResponse && backwardsTasks.size) {
      for (const t of tasksIn(msg)) {
        const left = backwardsTasks.get(t.taskId);
        if (left > 0 && TERMINAL.has(t.status)) {
          backwardsTasks.set(t.taskId, left - 1);
          t.status = "working";
          delete t.result; delete t.error;
          bump(stats.faults, "backwards:rewrite");
        }
      }
    }
    if (f === "html-text" && msg && typeof msg === "object") {
      // server text carrying HTML: status messages, tool result text, error messages
      const p = rule.payload || "<img src=x onerror=\"window.__faultXss=1\">";
      let hit = false;
      for (const t of tasksIn(msg)) { t.statusMessage = p; hit = true; }
      const r = msg.result;
      if (r && Array.isArray(r.content)) { for (const c of r.content) if (c && c.type === "text") { c.text = p + c.text; hit = true; } }
      if (r && r.result && Array.isArray(r.result.content)) for (const c of r.result.content) if (c && c.type === "text") { c.text = p + c.text; hit = true; }
      if (msg.error && typeof msg.error === "object") { msg.error.message = p; hit = true; }
      if (r && Array.isArray(r.tools)) for (const t of r.tools) if (t && typeof t === "object") { t.description = p + (t.description ?? ""); t.title = p; hit = true; }
      if (r && r.serverInfo && typeof r.serverInfo === "object") { r.serverInfo.name = p; r.serverInfo.title = p; hit = true; }
      if (r && typeof r.instructions === "string") { r.instructions = p; hit = true; }
      if (hit) applied(rule, ctx.getRec);
      return [msg];
    }
    if (!rule || (!isResponse && f !== "backwards")) return [msg];
    switch (f) {
      case "malformed": {
        applied(rule, ctx.getRec);
        const id = JSON.stringify(msg?.id ?? null);
        const v = rule.variants ? rule.variants[(rule._applied - 1) % rule.variants.length] : rule.variant || "garbage";
        if (v === "truncated") return [`{"jsonrpc":"2.0","id":${id},"result":{"task":{"taskId":"`];
        if (v === "not-rpc") return [`[1,2,{"jsonrpc":"3.0","identifier":${id}}]`];
        if (v === "html") return [`<html><body><h1>Oops</h1><img src=x onerror="window.__faultXss=1"></body></html>`];
        return [`this is not json } ${id} {`];
      }
      case "wrong-types": applied(rule, ctx.getRec); return [mutateTypes(msg)];
      case "oversized": {
        if ((rule.variant || "pad") !== "pad") return [msg];
        applied(rule, ctx.getRec);
        const pad = "x".repeat(rule.bytes ?? 17 * 1024 * 1024);
        if (msg && msg.result && typeof msg.result === "object") msg.result._meta = { ...(msg.result._meta || {}), padding: pad };
        else if (msg && typeof msg === "object") msg.padding = pad;
        return [msg];
      }
      case "duplicate": applied(rule, ctx.getRec); return [msg, structuredClone(msg)];
      case "reorder": {
        if (rule.stale !== false && ctx.method === "tasks/get" && ctx.taskId) {
          const h = taskHistory.get(ctx.taskId) || [];
          if (h.length >= 2 && msg.result) {
            applied(rule, ctx.getRec);
            const older = structuredClone(h[h.length - 2].snapshot);
            return [{ jsonrpc: "2.0", id: msg.id, result: older }];
          }
        }
        return [msg];
      }
      case "backwards": {
        const term = tasksIn(msg).filter((t) => TERMINAL.has(t.status) && !backwardsTasks.has(t.taskId));
        if (!term.length) return [msg];
        applied(rule, ctx.getRec);
        const out = [msg];
        for (const t of term) {
          backwardsTasks.set(t.taskId, rule.rewrites ?? 3);
          const back = { ...structuredClone(t), status: "working", statusMessage: "went backwards" };
          delete back.result; delete back.error;
          out.push({ jsonrpc: "2.0", method: "notifications/tasks/status", params: back });
          out.push({ jsonrpc: "2.0", method: "notifications/tasks", params: back });
        }
        return out;
      }
      case "phantom": {
        applied(rule, ctx.getRec);
        const t = new Date().toISOString();
        const ghost = { taskId: "phantom-task-0000", status: "completed", createdAt: t, lastUpdatedAt: t, ttl: 60000 };
        return [
          { jsonrpc: "2.0", id: 987654321, result: { task: { ...ghost, status: "working" } } },
          { jsonrpc: "2.0", id: "never-sent-id", result: { content: [{ type: "text", text: "<img src=x onerror=\"window.__faultXss=1\">" }] } },
          { jsonrpc: "2.0", id: 987654322, error: { code: -32603, message: "response to nothing" } },
          { jsonrpc: "2.0", method: "notifications/tasks/status", params: ghost },
          msg,
          { jsonrpc: "2.0", id: msg?.id ?? 1, result: { content: [{ type: "text", text: "second answer to the same id" }] } },
        ];
      }
      default: return [msg];
    }
  }

  /** Notes when a tasks/get's response head left for the client. */
  const headSent = (ctx) => { if (ctx.getRec) ctx.getRec.headAt = Date.now() - t0; };

  const isResponseTo = (ctx, msg) => msg && typeof msg === "object" && !("method" in msg) && ("result" in msg || "error" in msg) &&
    (ctx.ids.length === 0 || ctx.ids.some((i) => i === msg.id));

  async function cutStream(ctx, pending) {
    const { res, ur, rule } = ctx;
    applied(rule, ctx.getRec);
    if (pending) res.write(pending.slice(0, Math.max(1, Math.floor(pending.length / 2))));
    if (ctx.f === "reset") { await sleep(20); res.socket?.destroy(); ur.destroy(); return; }
    if (ctx.f === "truncate") { res.end(); ur.destroy(); return; }
    // stall: hold until the client goes away (or the proxy stops)
    ur.destroy();
    await new Promise((r) => res.on("close", r));
  }

  /**
   * SSE responses: split into events (raw text kept byte-exact), transform the JSON-RPC messages,
   * and apply stream faults. reset/truncate/stall cut the stream right before the event carrying the
   * response to the request (or after `afterEvents` events when given; at the end when neither comes).
   */
  async function pipeSse(ctx) {
    const { res, ur, f, rule } = ctx;
    const cutting = f === "reset" || f === "truncate" || f === "stall";
    const cutAfter = cutting && rule.afterEvents !== undefined ? rule.afterEvents : null;
    const reorder = f === "reorder" && ctx.method !== "GET";
    let events = 0;
    let eol = "\n";
    res.writeHead(ctx.status, ctx.outHeaders);
    res.flushHeaders();
    headSent(ctx);
    if (f === "oversized" && rule.variant === "endless-line") {
      applied(rule, ctx.getRec);
      await writeEndless(ctx, "event: message\ndata: ");
      return;
    }
    if (cutAfter === 0) return cutStream(ctx, null);
    const held = [];
    const splitter = new SseSplitter();
    const decoder = new TextDecoder();
    // returns false once the stream was cut
    const emit = async (raw) => {
      const ev = parseEvent(raw);
      if (ev.data != null) eol = ev.eol;
      const msg = ev.data != null ? tryJson(ev.data) : undefined;
      const isResp = isResponseTo(ctx, msg);
      if (cutting && cutAfter === null && isResp) { await cutStream(ctx, rule.midEvent ? raw : null); return false; }
      let outs = [raw];
      if (msg !== undefined) {
        const before = JSON.stringify(msg);
        const list = transform(ctx, msg, isResp);
        if (!(list.length === 1 && list[0] === msg && JSON.stringify(msg) === before)) {
          outs = list.map((m, k) => (k === 0 && typeof m === "object" && ev.id !== undefined ? `id: ${ev.id}${eol}` : "") + sseEvent(m, eol));
        }
      }
      for (const o of outs) {
        if (ctx.dead()) return false;
        if (reorder) held.push(o); else res.write(o);
        events++;
        if (cutAfter !== null && events >= cutAfter) { await cutStream(ctx, null); return false; }
      }
      if (reorder && isResp) {
        applied(rule, ctx.getRec);
        await sleep(rule.ms ?? 1500);
        for (const o of held.splice(0).reverse()) if (!ctx.dead()) res.write(o);
      }
      return true;
    };
    for await (const chunk of ur) {
      if (ctx.dead()) return;
      for (const raw of splitter.push(decoder.decode(chunk, { stream: true }))) if (!(await emit(raw))) return;
    }
    for (const raw of splitter.push(decoder.decode())) if (!(await emit(raw))) return;
    if (ctx.dead()) return;
    for (const o of held.splice(0)) res.write(o);
    const tail = splitter.rest();
    if (tail) res.write(tail);
    if (cutting) return cutStream(ctx, null); // the stream ended before the cut point: cut here
    res.end();
  }

  async function writeEndless(ctx, prefix) {
    const { res, ur, rule } = ctx;
    const total = rule.bytes ?? 17 * 1024 * 1024;
    const block = "y".repeat(64 * 1024);
    res.write(prefix);
    for (let sent = 0; sent < total && !ctx.dead(); sent += block.length) {
      if (!res.write(block)) await drained(res);
    }
    ur.destroy();
    if (!ctx.dead()) res.end();
  }

  async function pipeJson(ctx) {
    const { res, ur, f, rule } = ctx;
    const chunks = [];
    for await (const c of ur) chunks.push(c);
    if (ctx.dead()) return;
    const text = Buffer.concat(chunks).toString("utf8");
    const parsed = tryJson(text);
    if (f === "reset" || f === "truncate" || f === "stall") {
      applied(rule, ctx.getRec);
      res.writeHead(ctx.status, ctx.outHeaders);
      if (f === "stall") { res.flushHeaders(); headSent(ctx); await new Promise((r) => res.on("close", r)); return; }
      res.write(text.slice(0, Math.floor(text.length / 2)));
      if (f === "reset") { await sleep(20); res.socket?.destroy(); } else res.end();
      return;
    }
    if (parsed === undefined) { res.writeHead(ctx.status, ctx.outHeaders); res.end(text); return; }
    const msgs = Array.isArray(parsed) ? parsed : [parsed];
    let out = [];
    let changed = false;
    for (const m of msgs) {
      const before = JSON.stringify(m);
      const list = transform(ctx, m, isResponseTo(ctx, m));
      if (list.length !== 1 || list[0] !== m || JSON.stringify(m) !== before) changed = true;
      out = out.concat(list);
    }
    if (f === "oversized" && rule.variant === "endless-line") {
      // JSON body: one huge unterminated JSON string
      applied(rule, ctx.getRec);
      res.writeHead(ctx.status, ctx.outHeaders);
      await writeEndless(ctx, '{"jsonrpc":"2.0","id":1,"result":{"x":"');
      return;
    }
    if (f === "reorder") { applied(rule, ctx.getRec); await sleep(rule.ms ?? 1500); if (ctx.dead()) return; }
    if (!changed) { res.writeHead(ctx.status, ctx.outHeaders); res.end(text); return; }
    if (out.length === 1) {
      res.writeHead(ctx.status, ctx.outHeaders);
      res.end(typeof out[0] === "string" ? out[0] : JSON.stringify(out[0]));
      return;
    }
    // several messages: answer as an SSE stream (the client accepts both)
    res.writeHead(ctx.status, { ...ctx.outHeaders, "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const m of out) res.write(sseEvent(m));
    res.end();
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      log(`proxy error: ${e.stack || e}`);
      try { if (!res.headersSent) errorResponse(res, 502); else res.destroy(); } catch { /* gone */ }
    });
  });
  let socketSeq = 0;
  server.on("connection", (s) => {
    sockets.add(s);
    s.faultId = ++socketSeq;
    // when the client closed its side (FIN): a get record notes it if it comes while the get is open
    s.on("end", () => { s.finAt = Date.now() - t0; });
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => { server.once("error", reject); server.listen(port, "127.0.0.1", resolve); });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    url: origin + upstream.pathname,
    statsUrl: `${origin}/__proxy/stats`,
    setRules,
    setTarget(t) { upstream = new URL(t); },
    reset: resetStats,
    stats: () => structuredClone({ ...stats, now: Date.now(), open: openResponses.size }),
    killedSessions,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves on `drain` or `close`, whichever first, leaving no listener behind. */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}

// Stand-alone use: node proxy.mjs <target-url> [port] [rules.json]
if (import.meta.url === `file://${process.argv[1]}`) {
  const [target, port, rulesFile] = process.argv.slice(2);
  if (!target) { console.error("usage: node proxy.mjs <target-url> [port] [rules.json]"); process.exit(2); }
  const { readFileSync } = await import("node:fs");
  const rules = rulesFile ? JSON.parse(readFileSync(rulesFile, "utf8")) : [];
  const p = await startProxy({ target, port: Number(port || 0), rules, log: (m) => console.error(m) });
  console.log(`proxy ${p.url} -> ${target} (stats ${p.statsUrl})`);
}
