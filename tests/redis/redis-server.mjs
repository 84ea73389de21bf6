// A throwaway redis-server on 127.0.0.1 for one test: a free port, no persistence (a restart
// starts empty, as a Redis without replication does after a crash), killed at the end.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

const START_TIMEOUT_MS = 10_000;

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

function launch(port) {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"];
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server did not start: ${out}`));
    }, START_TIMEOUT_MS);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`redis-server could not run (apt-get install redis-server): ${e.message}`));
    });
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

function stopped(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.once("exit", r);
    child.kill("SIGKILL");
  });
}

/** Starts one; `stop()` kills it, `restart(downMs)` kills it and starts it again (empty) after `downMs`. */
export async function startRedis() {
  const port = await freePort();
  let child = await launch(port);
  return {
    port,
    async stop() {
      await stopped(child);
    },
    async restart(downMs) {
      await stopped(child);
      await new Promise((r) => setTimeout(r, downMs));
      child = await launch(port);
    },
  };
}
