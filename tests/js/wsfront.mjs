// WebSocket fronts for real MCP WebSocket servers on 127.0.0.1 (tests only): a `ws` server that
// completes the handshake without selecting a subprotocol (`handleProtocols` choosing none) and pipes
// text and binary frames both ways to its upstream, one upstream socket per client connection.
//
// - startNoSubprotocolFront: the upstream is asked for `mcp`; records the subprotocols each client
//   connection asked for.
// - startCountingWsFront: the upstream is asked for none (like the front, e.g. pmcp's server); counts
//   the JSON-RPC requests clients send and the task statuses the server sends, in the fault proxy's
//   stats shape (tests/faults/proxy.mjs: `startedAt`, `timeline`, `tasks[id].{reqs, gets, statuses}`),
//   for servers that count nothing themselves.
//
// WS_TRACE=1 in the environment prints every connection's opening, frames and close on stderr, with the
// time (ms, modulo 100 s) and the connection's number: the wire of a matrix cell, to tell who sent what when.
import { WebSocket, WebSocketServer } from "ws";
import { tasksIn } from "../faults/proxy.mjs";

/**
 * Starts a front for `upstream` (a ws:// URL), asking it for `protocol` (none when undefined);
 * `onClient(text)` / `onServer(text)` see each text frame on its way: `{ url, asked, stop() }`.
 */
async function startFront(upstream, { protocol, onClient = () => {}, onServer = () => {} } = {}) {
  const asked = [];
  const front = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => false });
  let conns = 0;
  const trace = process.env.WS_TRACE ? (c, dir, text) => console.error(`[ws ${Date.now() % 100_000} c${c} ${dir}] ${text.slice(0, 400)}`) : () => {};
  front.on("connection", (sock, req) => {
    const c = ++conns;
    trace(c, "open", "");
    sock.on("close", (code) => trace(c, "close", String(code)));
    asked.push(req.headers["sec-websocket-protocol"] ?? null);
    const up = protocol === undefined ? new WebSocket(upstream) : new WebSocket(upstream, protocol);
    const early = [];
    up.on("open", () => early.splice(0).forEach((m) => up.send(m.data, { binary: m.binary })));
    sock.on("message", (data, binary) => {
      if (!binary) onClient(data.toString("utf8"));
      if (!binary) trace(c, "->", data.toString("utf8"));
      if (up.readyState === WebSocket.OPEN) up.send(data, { binary });
      else early.push({ data, binary });
    });
    up.on("message", (data, binary) => {
      if (!binary) onServer(data.toString("utf8"));
      if (!binary) trace(c, "<-", data.toString("utf8"));
      sock.send(data, { binary });
    });
    sock.on("close", () => up.close());
    up.on("close", () => sock.close());
    up.on("error", () => sock.terminate());
  });
  await new Promise((r) => front.on("listening", r));
  return {
    url: `ws://127.0.0.1:${front.address().port}`,
    asked,
    stop: () =>
      new Promise((r) => {
        for (const c of front.clients) c.terminate();
        front.close(r);
      }),
  };
}

/** The front for `upstream` that selects no subprotocol: `{ url, asked, stop() }`. */
export function startNoSubprotocolFront(upstream) {
  return startFront(upstream, { protocol: "mcp" });
}

/** The JSON-RPC messages of a frame's text (a batch is several); none when it is not JSON. */
function messages(text) {
  try {
    const v = JSON.parse(text);
    return (Array.isArray(v) ? v : [v]).filter((m) => m && typeof m === "object");
  } catch {
    return [];
  }
}

/**
 * The counting front for `upstream`: `{ url, stats(), stop() }`. `stats()`: `startedAt` (ms since the
 * epoch), `timeline` ([ms since startedAt, method] per request), `tasks[taskId]` with `reqs` ([ms,
 * method] per request naming the task), `gets` ([{ t: ms }] per `tasks/get`) and `statuses` (the
 * task's statuses as the server sent them, repeats folded).
 */
export async function startCountingWsFront(upstream) {
  const startedAt = Date.now();
  const stats = { startedAt, timeline: [], tasks: {} };
  const task = (id) => (stats.tasks[id] ??= { reqs: [], gets: [], statuses: [] });
  const onClient = (text) => {
    const t = Date.now() - startedAt;
    for (const m of messages(text)) {
      if (typeof m.method !== "string" || !("id" in m)) continue;
      stats.timeline.push([t, m.method]);
      const taskId = m.params?.taskId;
      if (typeof taskId !== "string") continue;
      task(taskId).reqs.push([t, m.method]);
      if (m.method === "tasks/get") task(taskId).gets.push({ t });
    }
  };
  const onServer = (text) => {
    for (const s of messages(text).flatMap(tasksIn)) {
      if (typeof s.status !== "string") continue;
      const seen = task(s.taskId).statuses;
      if (seen[seen.length - 1] !== s.status) seen.push(s.status);
    }
  };
  const front = await startFront(upstream, { onClient, onServer });
  return { url: front.url, stats: () => structuredClone(stats), stop: front.stop };
}
