// Runs the official MCP conformance suite (client mode), in each pinned release, against the built
// pkg/ and judges each scenario from its checks.json: it passes only when at least one check
// succeeded, those the scenario names as proof that the client acted succeeded, no check failed
// and none warned. Prints a table per release and a summary line.
//
//   node run.mjs [--suite 0.1.16|0.2.0-alpha.12] [scenario...]   (Node 22: run.sh picks it)
//   CONFORMANCE_CHECKS=1 also prints every check of every scenario.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MUST_REFUSE, NOT_APPLICABLE, PROOF, SUITES } from "./scenarios.mjs";

const here = dirname(fileURLToPath(import.meta.url));
/** Scenarios where the client may give up (the suite allows its error exit). */
const CLIENT_MAY_FAIL = new Set(["auth/scope-retry-limit"]);
const CLIENT_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 90_000;

function runScenario(entry, scenario, out) {
  const args = [
    "--import", join(here, "preload.mjs"), entry, "client",
    "--command", `${process.execPath} ${join(here, "client.mjs")}`,
    "--scenario", scenario, "--timeout", String(CLIENT_TIMEOUT_MS), "-o", out,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    child.stdout.on("data", (d) => (log += d));
    child.stderr.on("data", (d) => (log += d));
    const kill = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(kill);
      resolve({ code, log });
    });
  });
}

/** The checks the suite wrote for `scenario` under `out` (`null` when it wrote none). */
function checksOf(out, scenario) {
  // `auth/x` results land in `auth/x-<time>/`.
  const parent = join(out, dirname(scenario));
  const name = scenario.split("/").pop();
  try {
    const dir = readdirSync(parent).find((d) => d.startsWith(`${name}-`));
    return dir ? JSON.parse(readFileSync(join(parent, dir, "checks.json"), "utf8")) : null;
  } catch {
    return null;
  }
}

/** The verdict on one run: pass, and why not. */
function judge(scenario, checks, log) {
  const count = (s) => checks.filter((c) => c.status === s).length;
  const [ok, bad, warn] = [count("SUCCESS"), count("FAILURE"), count("WARNING")];
  const exitedWithError = /CLIENT EXITED WITH ERROR|Client exited with code [1-9]/.test(log);
  const timedOut = /CLIENT TIMED OUT/.test(log);
  const succeeded = new Set(checks.filter((c) => c.status === "SUCCESS").map((c) => c.id));
  const unproven = (PROOF[scenario] ?? []).filter((id) => !succeeded.has(id));
  const why = [
    ok === 0 && "no check succeeded",
    bad > 0 && `${bad} failed`,
    warn > 0 && `${warn} warned`,
    unproven.length > 0 && `not proven: ${unproven.join(", ")}`,
    timedOut && "the client timed out",
    MUST_REFUSE.has(scenario) && !exitedWithError && "the client did not refuse",
    !MUST_REFUSE.has(scenario) && !CLIENT_MAY_FAIL.has(scenario) && exitedWithError &&
      "the client failed",
  ].filter(Boolean);
  return { pass: why.length === 0, ok, bad, warn, why };
}

const argv = process.argv.slice(2);
const only = argv[0] === "--suite" ? argv[1] : undefined;
const wanted = argv[0] === "--suite" ? argv.slice(2) : argv;
let passed = 0;
let failed = 0;
for (const suite of SUITES.filter((s) => !only || s.version === only)) {
  const entry = join(here, "node_modules", suite.module, "dist/index.js");
  console.log(`== conformance ${suite.version}`);
  for (const scenario of wanted.length ? wanted : suite.scenarios) {
    const out = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
    const t0 = Date.now();
    const { code, log } = await runScenario(entry, scenario, out);
    const checks = checksOf(out, scenario) ?? [];
    rmSync(out, { recursive: true, force: true });
    const v = judge(scenario, checks, log);
    console.log(
      `${v.pass ? "ok  " : "FAIL"} ${scenario.padEnd(44)} ${v.ok}/${v.ok + v.bad} checks, ` +
        `${v.warn} warnings (${Date.now() - t0} ms, suite exit ${code})` +
        (v.why.length ? ` — ${v.why.join(", ")}` : ""),
    );
    const shown = process.env.CONFORMANCE_CHECKS ? checks : checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    for (const c of shown) {
      console.log(`       ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    }
    for (const c of checks.filter((c) => c.details?.actualDelayMs !== undefined)) {
      console.log(`       ${c.id}: reconnected after ${c.details.actualDelayMs} ms (retry ${c.details.expectedRetryMs} ms)`);
    }
    if (!v.pass) console.log(log.replace(/^/gm, "       | "));
    if (v.pass) passed++;
    else failed++;
  }
  if (!wanted.length) {
    for (const [scenario, reason] of Object.entries(NOT_APPLICABLE)) {
      if (suite.listed.includes(scenario)) console.log(`n/a  ${scenario.padEnd(44)} ${reason}`);
    }
  }
}
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
