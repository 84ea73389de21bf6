// The CommonJS entry: a .cjs script `require`s the package by name (root and /core), loads it with
// `load()` (the same module `import` gives: one McpTaskError class) and runs a task against a real
// TS SDK server, also through the `connect` shortcut.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../../servers/launch.mjs";

const run = promisify(execFile);
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? fileURLToPath(new URL("../../../pkg/", import.meta.url));

const SCRIPT = `
const entry = process.argv[3];
const pkg = require(entry);
async function main() {
  const m = await pkg.load();
  const again = await pkg.load();
  const esm = await import(entry);
  const client = await m.McpTaskClient.connect(process.argv[2]);
  const task = await client.callTool("long_job", { steps: 2, stepMs: 50 });
  const result = await task.result();
  await client.close();
  const viaConnect = await pkg.connect(process.argv[2]);
  const dialect = viaConnect.dialect;
  await viaConnect.close();
  console.log(JSON.stringify({
    exports: Object.keys(pkg).sort(),
    once: m === again,
    sameClasses: m.McpTaskError === esm.McpTaskError && m.McpTaskClient === esm.McpTaskClient,
    text: result.content[0].text,
    dialect,
  }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`;

let server;
let dir;

before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  dir = await mkdtemp(join(tmpdir(), "mcp-cjs-"));
  await mkdir(join(dir, "node_modules"));
  await symlink(PKG, join(dir, "node_modules/mcp-task-client"), "dir");
  await writeFile(join(dir, "run.cjs"), SCRIPT);
});

after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

for (const entry of ["mcp-task-client", "mcp-task-client/core"]) {
  test(`require("${entry}") from a .cjs script: load() once, the ES module's classes, a task runs`, { timeout: 30_000 }, async () => {
    const { stdout } = await run(process.execPath, ["run.cjs", server.url, entry], { cwd: dir, timeout: 25_000 });
    const got = JSON.parse(stdout.trim().split("\n").pop());
    assert.deepEqual(got.exports, ["connect", "load"]);
    assert.equal(got.once, true, "load() imports once");
    assert.equal(got.sameClasses, true, "the same classes as import()");
    assert.equal(got.text, "long_job done: 2 steps");
    assert.equal(got.dialect, "legacy");
  });
}
