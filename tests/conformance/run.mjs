// Runs the official MCP conformance suite (client mode) against the built pkg/ and judges each
// scenario from its checks.json: it passes only with at least one check run and no failure (a
// suite that ran no check is a failure). Prints one line per scenario and a summary line.
//
//   node run.mjs [scenario...]        (Node 22: the suite needs it; run.sh picks the right binary)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/**
 * The client scenarios run. Every `auth/*` scenario that applies to a public client is here; not
 * here: `auth/client-credentials-jwt`, `auth/client-credentials-basic` (the client-credentials
 * grant is for confidential machine clients without a user) and
 * `auth/cross-app-access-complete-flow` (enterprise IdP token exchange, SEP-990).
 */
const SCENARIOS = [
  "initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
  "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
  "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
  "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
  "auth/offline-access-scope", "auth/offline-access-not-supported",
];
/** Scenarios where the client is meant to give up (the suite allows its error exit). */
const CLIENT_MAY_FAIL = new Set(["auth/scope-retry-limit", "auth/resource-mismatch"]);
const CLIENT_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 90_000;
const suite = join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

function runScenario(scenario, out) {
  const args = [
    "--import", join(here, "preload.mjs"), suite, "client",
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

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : SCENARIOS;
let passed = 0;
let failed = 0;
for (const scenario of wanted) {
  const out = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  const t0 = Date.now();
  const { code, log } = await runScenario(scenario, out);
  const checks = checksOf(out, scenario) ?? [];
  rmSync(out, { recursive: true, force: true });
  const count = (s) => checks.filter((c) => c.status === s).length;
  const [ok, bad, warn] = [count("SUCCESS"), count("FAILURE"), count("WARNING")];
  const clientFailed = CLIENT_MAY_FAIL.has(scenario)
    ? /CLIENT TIMED OUT/.test(log)
    : /CLIENT EXITED WITH ERROR|CLIENT TIMED OUT/.test(log);
  const pass = ok + bad > 0 && bad === 0 && !clientFailed;
  const why = [
    ok + bad === 0 && "no check ran",
    bad > 0 && `${bad} failed`,
    clientFailed && "the client failed",
  ].filter(Boolean);
  console.log(
    `${pass ? "ok  " : "FAIL"} ${scenario}: ${ok}/${ok + bad} checks passed, ${warn} warnings` +
      ` (${Date.now() - t0} ms, suite exit ${code})${why.length ? ` — ${why.join(", ")}` : ""}`,
  );
  for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")) {
    console.log(`       ${c.status} ${c.name}: ${c.errorMessage ?? c.description}`);
  }
  for (const c of checks.filter((c) => c.details?.actualDelayMs !== undefined)) {
    console.log(`       ${c.name}: reconnected after ${c.details.actualDelayMs} ms (retry ${c.details.expectedRetryMs} ms)`);
  }
  if (!pass) console.log(log.replace(/^/gm, "       | "));
  if (pass) passed++;
  else failed++;
}
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
