// Starts test servers for the wasm-level tests (which cannot spawn processes):
//   node tests/js/serve.mjs ts-sdk python-ws
// prints `<kind> <url>` per server, `closed-port <port>` (a port nothing listens on), then `READY`, and stops them all on SIGTERM/SIGINT.
import { createServer } from "node:net";
import { startServer } from "../servers/launch.mjs";

/** A port nothing listens on (bound once, then released). */
async function closedPort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

const servers = [];
const stop = async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
try {
  for (const kind of process.argv.slice(2)) {
    const s = await startServer(kind, { port: 0 });
    servers.push(s);
    console.log(`${kind} ${s.url}`);
  }
  console.log(`closed-port ${await closedPort()}`);
  console.log("READY");
} catch (e) {
  console.error(`serve.mjs: ${e.message}`);
  await stop();
}
setInterval(() => {}, 1 << 30);
