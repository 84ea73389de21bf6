// Starts bench/servers/daemon.mjs as a child process and talks to its control API.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import readline from "node:readline";

const here = path.dirname(fileURLToPath(import.meta.url));

export async function startDaemon() {
  const child = spawn(process.execPath, [path.join(here, "../servers/daemon.mjs")], { stdio: ["pipe", "pipe", "inherit"] });
  const rl = readline.createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    rl.once("line", resolve);
    child.once("exit", (c) => reject(new Error(`server daemon exited ${c}`)));
  });
  const { port } = JSON.parse(first);
  const ctl = `http://127.0.0.1:${port}`;
  const post = async (p, body) => {
    const r = await fetch(ctl + p, { method: "POST", body: JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error ?? `daemon ${p} failed`);
    return j;
  };
  return {
    pid: child.pid,
    /** @returns {Promise<{id:number,url:string,statsUrl:string,base:string}>} */
    start: (cfg) => post("/start", cfg),
    stop: (id) => post("/stop", { id }),
    close: () => new Promise((resolve) => { child.once("exit", resolve); child.stdin.end(); }),
  };
}

export async function getStats(statsUrl) {
  const r = await fetch(statsUrl);
  return r.json();
}
