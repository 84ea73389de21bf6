#!/usr/bin/env node
// The demo: builds pkg/ if it is missing, starts a real MCP task server (TS SDK 1.32.2 by default) and a
// static file server for the repo root on 127.0.0.1, and prints the dashboard URL. Ctrl-C stops everything.
//
//   node scripts/demo.mjs [--port N] [--server KIND] [--mcp-port N] [--server-url URL] [--no-build]
//
//   --port N         static server port (default 8787; 0 = any free port)
//   --server KIND    test server kind for tests/servers/launch.mjs (default ts-sdk; `draft` = the draft fixture)
//   --mcp-port N     port for that server (default 0 = any free port)
//   --server-url U   use an already running MCP server instead of starting one
//   --no-build       never run scripts/build.sh
//   --no-pkg         serve even without pkg/ (the page then says the package is missing)
//
// The static server also forwards /mcp and /stats to the MCP server, so the dashboard can be tried from the
// server's own origin (same-origin) as well as from another origin (the MCP server's own port, CORS).
// Machine-readable lines on stdout: `MCP <url>`, `DASHBOARD <url>`, `DASHBOARD_SAME_ORIGIN <url>`, `READY <url>`.
import http from "node:http";
import { spawn, spawnSync } from "node:child_process";
import { createReadStream, existsSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PKG_ENTRY = join(ROOT, "pkg", "index.js");

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const STATIC_PORT = Number(opt("--port", process.env.DEMO_PORT ?? "8787"));
const KIND = opt("--server", "ts-sdk");
const MCP_PORT = Number(opt("--mcp-port", "0"));
const EXTERNAL = opt("--server-url", null);
const NO_BUILD = argv.includes("--no-build");
const NO_PKG = argv.includes("--no-pkg");

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

function say(line) {
  process.stdout.write(`${line}\n`);
}

/** Builds pkg/ when it is missing. The build runs in its own process group, stopped with us on a signal. */
async function ensurePackage() {
  if (existsSync(PKG_ENTRY) || NO_PKG) return;
  if (NO_BUILD) throw new Error(`pkg/ is missing (${PKG_ENTRY}) and --no-build was given`);
  if (!existsSync(join(ROOT, "scripts", "build.sh"))) throw new Error("pkg/ is missing and scripts/build.sh does not exist yet");
  say("[demo] pkg/ missing: running scripts/build.sh");
  const child = spawn("bash", ["scripts/build.sh"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    process.exit(130);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const code = await new Promise((done) => child.once("exit", (c) => done(c)));
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  if (code !== 0 || !existsSync(PKG_ENTRY)) throw new Error(`scripts/build.sh failed (exit ${code})`);
}

async function startMcpServer() {
  if (EXTERNAL) return { url: new URL(EXTERNAL).href, stop: async () => {} };
  const launch = await import(pathToFileURL(join(ROOT, "tests", "servers", "launch.mjs")).href);
  if (KIND === "draft") {
    const { draftKind } = await import(pathToFileURL(join(ROOT, "tests", "fixtures", "draft-server", "kind.mjs")).href);
    launch.registerKind("draft", draftKind);
  }
  try {
    return await launch.startServer(KIND, { port: MCP_PORT });
  } catch (e) {
    if (KIND !== "ts-sdk" || !/node_modules/.test(String(e?.message))) throw e;
    say("[demo] installing the TS SDK test server (npm ci)");
    const r = spawnSync("bash", ["tests/servers/install.sh", "ts-sdk"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) throw e;
    return launch.startServer(KIND, { port: MCP_PORT });
  }
}

/** Maps a URL path to a file under ROOT; null for anything hidden, outside, or not a file. */
function fileFor(pathname) {
  let p;
  try {
    p = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const segments = p.split("/").filter(Boolean);
  if (segments.some((s) => s.startsWith(".") || s === "node_modules" || s === "target" || s.includes("\\"))) return null;
  let file = resolve(ROOT, ...segments);
  if (file !== ROOT && !file.startsWith(ROOT + sep)) return null;
  try {
    if (statSync(file).isDirectory()) file = join(file, "index.html");
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Streams a request to the MCP server (SSE included) and the answer back. */
function forward(req, res, target) {
  const url = new URL(req.url ?? "/", target);
  const headers = { ...req.headers, host: url.host };
  delete headers.origin; // same-origin for the page; the upstream needs no CORS for this hop
  const up = http.request(url, { method: req.method, headers }, (upRes) => {
    res.writeHead(upRes.statusCode ?? 502, upRes.headers);
    upRes.pipe(res);
  });
  up.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
    res.end(`upstream error: ${e.message}`);
  });
  res.on("close", () => up.destroy()); // the page closed its stream: close ours
  req.pipe(up);
}

function startStatic(mcpUrl) {
  const mcp = new URL(mcpUrl);
  const upstream = `${mcp.protocol === "https:" ? "https:" : "http:"}//${mcp.host}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === mcp.pathname || url.pathname === "/stats" || url.pathname === "/stats/reset") {
      return forward(req, res, upstream);
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" });
      return res.end();
    }
    if (url.pathname === "/") {
      res.writeHead(302, { Location: "/www/" });
      return res.end();
    }
    if (url.pathname === "/demo-config.json") {
      res.writeHead(200, { "Content-Type": MIME[".json"], "Cache-Control": "no-store" });
      return res.end(JSON.stringify({ serverUrl: mcpUrl, sameOriginUrl: mcp.pathname, kind: EXTERNAL ? "external" : KIND }));
    }
    const file = fileFor(url.pathname);
    if (!file) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      return res.end("not found");
    }
    res.writeHead(200, {
      "Content-Type": MIME[extname(file)] ?? "application/octet-stream",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    if (req.method === "HEAD") return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(STATIC_PORT, "127.0.0.1", () => resolvePromise(server));
  });
}

async function main() {
  await ensurePackage();
  const mcp = await startMcpServer();
  let web;
  try {
    web = await startStatic(mcp.url);
  } catch (e) {
    await mcp.stop();
    throw e;
  }
  const base = `http://127.0.0.1:${web.address().port}`;
  const dashboard = `${base}/www/?server=${encodeURIComponent(mcp.url)}`;
  const sameOrigin = `${base}/www/?server=${encodeURIComponent(new URL(mcp.url).pathname)}`;
  say(`MCP ${mcp.url}`);
  say(`DASHBOARD ${dashboard}`);
  say(`DASHBOARD_SAME_ORIGIN ${sameOrigin}`);
  say(`READY ${dashboard}`);
  say(`\nOpen ${dashboard} in a browser (the MCP server is on another origin, CORS).`);
  say(`Same-origin variant (through this server's /mcp): ${sameOrigin}`);
  say("Ctrl-C stops everything.");

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    web.closeAllConnections?.();
    web.close();
    await mcp.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  mcp.exited?.then(({ code }) => {
    if (!stopping) {
      process.stderr.write(`[demo] the MCP server exited (code ${code}); stopping\n`);
      stop();
    }
  });
}

main().catch((e) => {
  process.stderr.write(`[demo] ${e?.stack ?? e}\n`);
  process.exit(1);
});
