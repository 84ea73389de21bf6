import { startDaemon } from "../lib/daemon.mjs";
import { execFileSync } from "node:child_process";
const [stack, dialect, push, W, T, P, N] = process.argv.slice(2);
const d = await startDaemon();
const s = await d.start({ kind: dialect === "legacy" ? "fast-legacy" : "fast-modern", pollIntervalMs: +P, push: push === "1" });
const t = Date.now();
const out = execFileSync(process.execPath, ["--no-warnings", "node/requests.mjs", JSON.stringify({ stack, dialect, push: push === "1", url: s.url, statsUrl: s.statsUrl, W: +W, T: +T, P: +P, N: +N, taskMs: (+N + 5) * +P })], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26 });
console.log(out.trim(), "wall", Date.now() - t);
await d.stop(s.id); await d.close();
