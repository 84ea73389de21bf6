// Sums a .cpuprofile (Chrome DevTools Protocol Profiler) by function: self time and inclusive time.
//   node bench/profile-top.mjs <file.cpuprofile> [count]
import { readFileSync } from "node:fs";

const [file, count = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.split("/").pop()}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};
const self = new Map();
const total = new Map();
let busy = 0;
const { samples = [], timeDeltas = [] } = profile;
for (let i = 0; i < samples.length; i++) {
  const dt = (timeDeltas[i + 1] ?? 0) / 1000;
  const leaf = byId.get(samples[i]);
  if (["(idle)", "(program)", "(root)"].includes(leaf.callFrame.functionName)) continue;
  busy += dt;
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
  const seen = new Set();
  for (let id = samples[i]; id !== undefined; id = parent.get(id)) {
    const l = label(byId.get(id));
    if (!seen.has(l)) { seen.add(l); total.set(l, (total.get(l) ?? 0) + dt); }
  }
}
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(count));
const pct = (ms) => `${ms.toFixed(0).padStart(6)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)} %`;
console.log(`busy (JS + GC, no idle/program): ${busy.toFixed(0)} ms`);
console.log("\nself time:");
for (const [l, ms] of top(self)) console.log(`${pct(ms)}  ${l}`);
console.log("\ninclusive time:");
for (const [l, ms] of top(total)) console.log(`${pct(ms)}  ${l}`);
