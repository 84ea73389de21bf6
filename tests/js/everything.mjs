// @modelcontextprotocol/server-everything (the MCP reference server, from npm) on 127.0.0.1, as the
// package README's "Try it in 5 minutes" runs it: Streamable HTTP on the port `PORT` names. It binds
// every interface by itself; the conformance suite's preload makes that listen bind 127.0.0.1 only.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const PRELOAD = join(HERE, "../conformance/preload.mjs");

/** Starts the server; resolves with `{ url, statsUrl: null, stop() }` once it listens. */
export async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", PRELOAD, BIN, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((ok) => child.on("exit", ok));
  let log = "";
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      child.kill();
      fail(new Error(`server-everything did not start:\n${log}`));
    }, 20_000);
    child.stderr.on("data", (d) => {
      log += d;
      if (/listening on port/.test(log)) {
        clearTimeout(timer);
        ok();
      }
    });
    exited.then((code) => fail(new Error(`server-everything exited ${code}:\n${log}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, statsUrl: null, stop: () => (child.kill(), exited) };
}

/** A port nothing listens on now, for a server that takes its port from the environment. */
function freePort() {
  const srv = createServer();
  return new Promise((ok) => srv.listen(0, "127.0.0.1", () => {
    const { port } = srv.address();
    srv.close(() => ok(port));
  }));
}
