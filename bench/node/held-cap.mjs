// How the `node` link's budget of held `tasks/result` behaves with undici's defaults (no per-origin
// connection limit, one request per connection while a response is pending).
// argv[2] = JSON {n?, ms?, link?}: n tasks of `ms` ms on an in-process bench server (legacy, no pushes).
// Prints {n, heldPeak, socketsPeak, results, gets, latency: {median, p95, max}, completed, elapsedMs}:
// Sampled every 250 ms: heldPeak = most `tasks/result` received but not yet answerable (received − completed; before
// the first end, the ones held), socketsPeak = most client sockets to the server at once (`ss`).
import { execSync } from "node:child_process";
import { startFastServer } from "../servers/fast-server.mjs";
import { median, p95 } from "../lib/stats.mjs";

const a = { n: 300, ms: 4000, ...JSON.parse(process.argv[2] ?? "{}") };
const srv = await startFastServer({ dialect: "legacy", pollIntervalMs: 1000, progressMs: 0, push: false });
const port = new URL(srv.url).port;
const { McpTaskClient } = await import(new URL("../../pkg/node.js", import.meta.url).href);
const client = await McpTaskClient.connect(srv.url, { requestTimeoutMs: 600_000, ...(a.link ? { link: a.link } : {}) });
const doneAt = new Map();
const ids = [];
const t0 = Date.now();
await Promise.all(Array.from({ length: a.n }, async () => {
  const h = await client.callTool("work", { ms: a.ms }, { task: "always", ttlMs: 600_000 });
  ids.push(h.id);
  h.onDone((d) => doneAt.set(h.id, { at: performance.timeOrigin + performance.now(), kind: d.kind }));
}));
const open = () => {
  const stats = fetch(`${srv.base}/stats`).then((r) => r.json());
  const sockets = Number(execSync(`ss -Htn state established '( dport = :${port} )' | wc -l`).toString().trim());
  return stats.then((s) => ({ s, sockets }));
};
let heldPeak = 0;
let socketsPeak = 0;
while (doneAt.size < a.n && Date.now() - t0 < a.ms + 60_000) {
  await new Promise((r) => setTimeout(r, 250));
  const { s, sockets } = await open();
  socketsPeak = Math.max(socketsPeak, sockets - 1); // the stats request's own socket
  const results = s.requests.filter((r) => r.method === "tasks/result").length;
  const finished = Object.keys(s.completions).length;
  heldPeak = Math.max(heldPeak, results - Math.min(finished, results));
}
const { s } = await open();
const lat = ids.map((id) => (doneAt.get(id)?.at ?? NaN) - (s.completions[id] ?? NaN)).filter(Number.isFinite);
const count = (m) => s.requests.filter((r) => r.method === m).length;
process.stdout.write(JSON.stringify({
  n: a.n, link: a.link ?? "detected", heldPeak, socketsPeak, results: count("tasks/result"), gets: count("tasks/get"),
  latency: { median: median(lat), p95: p95(lat), max: Math.max(...lat) }, completed: lat.length, elapsedMs: Date.now() - t0,
}) + "\n");
await client.close();
await srv.stop();
process.exit(0);
