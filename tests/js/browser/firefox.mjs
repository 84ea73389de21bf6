// Headless Firefox (Debian's firefox-esr) driven over WebDriver BiDi, which Firefox serves itself
// (`--remote-debugging-port`: no geckodriver), with a fresh profile: open a page, evaluate a function
// in it. Certificates are not checked (`acceptInsecureCerts`: the local nginx's self-signed one).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";

export const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
export const firefoxAvailable = () => existsSync(FIREFOX);

/** Starts Firefox; `{ evaluate(url, fn, arg), visits(url, runs), close() }`. `fn` is run in a new tab at `url`, its
 * result JSON. */
export async function openFirefox() {
  const profile = await mkdtemp(join(tmpdir(), "mcp-firefox-"));
  const child = spawn(FIREFOX, ["--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0"],
    { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`firefox: no BiDi endpoint in 30 s: ${log.slice(-500)}`)), 30_000);
    child.stderr.on("data", (c) => {
      log += c;
      const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`firefox exited ${code}: ${log.slice(-500)}`)); });
  });
  const ws = new WebSocket(`${endpoint}/session`);
  await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); });
  let next = 1;
  const waiting = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.type === "error") w.reject(new Error(`${msg.error}: ${msg.message}`));
    else w.resolve(msg.result);
  });
  const send = (method, params) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });
  await send("session.new", { capabilities: { alwaysMatch: { acceptInsecureCerts: true } } });

  return {
    async evaluate(url, fn, arg) {
      return (await this.visits(url, [[fn, arg]]))[0];
    },
    /** Runs each `[fn, arg]` of `runs` in one new tab, loading `url` afresh before each (a reload:
     * the tab's sessionStorage stays); their results. */
    async visits(url, runs) {
      const { context } = await send("browsingContext.create", { type: "tab" });
      const out = [];
      try {
        for (const [fn, arg] of runs) {
          await send("browsingContext.navigate", { context, url, wait: "complete" });
          const expression = `(async () => JSON.stringify(await (${fn})(${JSON.stringify(arg)})))()`;
          const r = await send("script.evaluate", { expression, target: { context }, awaitPromise: true, resultOwnership: "none" });
          if (r.type === "exception") throw new Error(`in the page: ${r.exceptionDetails?.text ?? JSON.stringify(r.exceptionDetails)}`);
          out.push(JSON.parse(r.result.value));
        }
        return out;
      } finally {
        await send("browsingContext.close", { context }).catch(() => {});
      }
    },
    async close() {
      await send("session.end", {}).catch(() => {});
      ws.close();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(profile, { recursive: true, force: true });
    },
  };
}
