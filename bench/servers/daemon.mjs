// Server host process for the bench: keeps task servers out of the client processes being measured.
// Control API on 127.0.0.1 (port printed as the first stdout line, JSON):
//   POST /start {kind, ...options} -> {id, url, statsUrl, base}
//     kind "fast-legacy" | "fast-modern": bench/servers/fast-server.mjs
//     any other kind: tests/servers/launch.mjs startServer(kind, {port}) when that launcher exists
//   POST /stop {id} -> {}
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from "node:http";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { startFastServer } from "./fast-server.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const launcherPath = path.resolve(here, "../../tests/servers/launch.mjs");
const running = new Map();
let nextId = 1;

async function start(cfg) {
  if (cfg.kind === "fast-legacy" || cfg.kind === "fast-modern") {
    return startFastServer({ ...cfg, dialect: cfg.kind === "fast-legacy" ? "legacy" : "modern" });
  }
  if (!existsSync(launcherPath)) throw new Error(`no launcher at tests/servers/launch.mjs for kind ${cfg.kind}`);
  const { startServer } = await import(pathToFileURL(launcherPath).href);
  return startServer(cfg.kind, { port: 0, ...(cfg.options ?? {}) });
}

const ctl = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
  const reply = (code, obj) => { res.writeHead(code, { "content-type": "application/json" }); res.end(JSON.stringify(obj)); };
  try {
    if (req.url === "/start") {
      const s = await start(body);
      const id = nextId++;
      running.set(id, s);
      return reply(200, { id, url: s.url, statsUrl: s.statsUrl, base: s.base ?? new URL(s.url).origin });
    }
    if (req.url === "/stop") {
      const s = running.get(body.id);
      running.delete(body.id);
      if (s) await s.stop();
      return reply(200, {});
    }
    reply(404, { error: "unknown" });
  } catch (e) {
    reply(500, { error: String(e?.stack ?? e) });
  }
});

async function shutdown() {
  for (const s of running.values()) { try { await s.stop(); } catch { /* already gone */ } }
  process.exit(0);
}
process.stdin.on("end", shutdown);
process.stdin.resume();
process.on("SIGTERM", shutdown);

ctl.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: ctl.address().port }) + "\n");
});
