// The real servers behind the proxy: started through tests/servers/launch.mjs (written by the
// tests/servers launcher), or an already running one named by FAULTS_UPSTREAM (dev use).
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LAUNCHER = path.resolve(HERE, "../servers/launch.mjs");

/** What the fault tests need to know of each server kind: dialect and a tool that runs `ms` as a task. */
export const KINDS = {
  "ts-sdk": { dialect: "legacy", transport: "http", tool: { name: "slow_job", args: (ms) => ({ ms }) } },
  "python-http": { dialect: "legacy", transport: "http", tool: { name: "slow_job", args: (ms) => ({ ms }) } },
  "python-ws": { dialect: "legacy", transport: "websocket", tool: { name: "slow_job", args: (ms) => ({ ms }) } },
  rmcp2: { dialect: "legacy", transport: "http", tool: { name: "slow_job", args: (ms) => ({ ms }) } },
  rmcp3: { dialect: "modern", transport: "http", tool: { name: "slow_job", args: (ms) => ({ ms }) } },
  custom: { dialect: process.env.FAULTS_DIALECT || "legacy", transport: "http", tool: { name: process.env.FAULTS_TOOL || "slow_job", args: (ms) => ({ ms }) } },
};

/** Kinds named in `list` (comma-separated) or the defaults, HTTP only (the proxy speaks HTTP). */
export function selectedKinds(list, defaults) {
  const names = list ? list.split(",").map((s) => s.trim()).filter(Boolean) : defaults;
  for (const n of names) if (!KINDS[n]) throw new Error(`unknown server kind ${n}`);
  return names.filter((n) => KINDS[n].transport === "http");
}

let launcher;
async function load() {
  if (!launcher) {
    if (!existsSync(LAUNCHER)) throw new Error(`missing ${LAUNCHER} (the tests/servers launcher)`);
    launcher = await import(pathToFileURL(LAUNCHER).href);
  }
  return launcher;
}

/**
 * Starts one upstream server: {kind, url, dialect, tool, stop(), stopOnly(), restart()}.
 * `restart` brings the same kind back on the same port (for the kill/restart fault).
 */
export async function startUpstream(kind, opts = {}) {
  const spec = KINDS[kind];
  if (kind === "custom") {
    const url = process.env.FAULTS_UPSTREAM;
    return { kind, url, ...spec, stop: async () => {}, stopOnly: null, restart: null };
  }
  const { startServer } = await load();
  let srv = await startServer(kind, { port: opts.port ?? 0, ...opts });
  const port = Number(new URL(srv.url).port);
  const up = {
    kind, ...spec, url: srv.url, statsUrl: srv.statsUrl, port,
    async stopOnly() { const s = srv; srv = null; if (s) await s.stop(); },
    async restart() {
      if (srv) await srv.stop();
      srv = await startServer(kind, { ...opts, port });
      if (new URL(srv.url).port !== String(port)) throw new Error(`${kind} came back on another port`);
    },
    async stop() { await up.stopOnly(); },
  };
  return up;
}
