// The shape of the built npm package: conditions and files, resolution by name in Node, the
// browser entry's lazy init, and complete TypeScript types without `any` in the public surface.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PKG = fileURLToPath(new URL("../../../pkg/", import.meta.url));
const JS = fileURLToPath(new URL("../", import.meta.url));

test("package.json: ESM, conditions for node (require: the CommonJS entry)/types/browser/default, every listed file exists", async () => {
  const pj = JSON.parse(await readFile(join(PKG, "package.json"), "utf8"));
  assert.equal(pj.name, "mcp-task-client");
  assert.equal(pj.type, "module");
  for (const [path, dir] of [[".", ""], ["./core", "core/"]]) {
    const entry = pj.exports[path];
    assert.deepEqual(Object.keys(entry), ["node", "types", "browser", "default"], path);
    assert.deepEqual(entry.node, {
      require: { types: `./${dir}node.d.cts`, default: `./${dir}node.cjs` },
      types: `./${dir}index.d.ts`,
      default: `./${dir}node.js`,
    }, path);
    assert.equal(entry.browser, `./${dir}index.js`, path);
    const targets = [entry.node.require.types, entry.node.require.default, entry.node.types, entry.node.default, entry.types, entry.browser];
    for (const target of targets) assert.ok(existsSync(join(PKG, target)), `${target} is in pkg/`);
    for (const target of targets) assert.ok(pj.files.some((f) => target.slice(2) === f || target.slice(2).startsWith(f)), `${target} is published`);
  }
  for (const f of pj.files) assert.ok(existsSync(join(PKG, f)), `${f} is in pkg/`);
});

test("resolves by name in Node (node condition) and works without init()", async () => {
  const dir = await mkdtemp(join(tmpdir(), "mcp-pkg-"));
  try {
    await mkdir(join(dir, "node_modules"));
    await symlink(PKG, join(dir, "node_modules", "mcp-task-client"), "dir");
    await writeFile(
      join(dir, "probe.mjs"),
      `import init, * as m from "mcp-task-client";
       await init();
       const e = new m.McpTaskError("x", { kind: "closed" });
       const r = await m.McpTaskClient.connect("http://127.0.0.1:9/mcp", { dialect: "nope" }).catch((x) => x);
       console.log(JSON.stringify({
         resolved: import.meta.resolve("mcp-task-client"),
         names: Object.keys(m).sort(),
         error: [e instanceof Error, e.name, e.kind],
         rejected: [r instanceof m.McpTaskError, r.kind],
       }));`,
    );
    const { stdout } = await run(process.execPath, ["probe.mjs"], { cwd: dir, timeout: 20_000 });
    const out = JSON.parse(stdout);
    assert.match(out.resolved, /\/node\.js$/);
    // Exactly the typed exports: no `initSync` or error-class hook from wasm-bindgen's glue.
    assert.deepEqual(out.names, ["McpTaskClient", "McpTaskError", "TaskHandle", "TaskUpdates", "default"]);
    assert.deepEqual(out.error, [true, "McpTaskError", "closed"]);
    assert.deepEqual(out.rejected, [true, "invalidInput"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("the browser entry loads each build lazily, when a client first needs it", async () => {
  const src = await readFile(join(PKG, "index.js"), "utf8");
  // Minified: `connect` awaits its loader (`load`, renamed) first.
  const client = await readFile(join(PKG, "client.js"), "utf8");
  assert.match(client, /static async connect\(\w+,(\w+)\)\{const \w+=await \w+\(\1\)/, "connect loads the build its options need");
  assert.doesNotMatch(src, /node:/, "no Node built-ins in the browser entry");
  for (const name of ["mcp_task_client_base", "mcp_task_client"]) {
    assert.match(src, new RegExp(`import\\(["']\\./${name}\\.js["']\\)`), `${name}.js imported on demand`);
    assert.match(src, new RegExp(`new URL\\(["']\\./${name}_bg\\.wasm["'],\\s*import\\.meta\\.url\\)`), `${name}: bundler-friendly wasm URL`);
    const glue = await readFile(join(PKG, `${name}.js`), "utf8");
    assert.match(glue, new RegExp(`new URL\\(["']${name}_bg\\.wasm["'],\\s*import\\.meta\\.url\\)`), `${name}: the glue's own URL`);
    // The glue is minified: statements, not lines.
    const bare = glue.split(/[\n;]/).filter((l) => /\bwindow\b/.test(l) && !/typeof window/.test(l));
    assert.deepEqual(bare, [], `${name}: \`window\` only behind a typeof guard (pages, workers, Node)`);
  }
});

test("TypeScript: the public surface has no `any` and a strict usage file compiles", async () => {
  const generated = await readFile(join(PKG, "mcp_task_client.d.ts"), "utf8");
  // InitOutput (raw wasm exports) is not re-exported by index.d.ts; everything else is public.
  const publicPart = generated.replace(/export interface InitOutput \{[\s\S]*?\n\}\n/, "");
  assert.notEqual(publicPart, generated, "InitOutput block found and skipped");
  for (const [name, text] of [
    ["mcp_task_client.d.ts", publicPart],
    ["index.d.ts", await readFile(join(PKG, "index.d.ts"), "utf8")],
    ["extras.d.ts", await readFile(join(PKG, "extras.d.ts"), "utf8")],
    ["handle.d.ts", await readFile(join(PKG, "handle.d.ts"), "utf8")],
  ]) {
    const hits = text.split("\n").filter((l) => /\bany\b/.test(l.replace(/\/\*\*.*|^\s*\*.*/, "")));
    assert.deepEqual(hits, [], `${name} has no any`);
  }
  const index = await readFile(join(PKG, "index.d.ts"), "utf8");
  assert.doesNotMatch(index, /InitOutput/);
  const tsc = join(JS, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-p", join(JS, "types", "tsconfig.json")], { timeout: 120_000 }).catch((e) => {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  });
});

test("TypeScript: the demo dashboard (www/app.js, // @ts-check) uses only the package's real API", async () => {
  const app = await readFile(join(JS, "..", "..", "www", "app.js"), "utf8");
  assert.match(app, /^\/\/ @ts-check$/m);
  const tsc = join(JS, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-p", join(JS, "types", "www.tsconfig.json")], { timeout: 120_000 }).catch((e) => {
    assert.fail(`tsc failed on www/app.js:\n${e.stdout}${e.stderr}`);
  });
});
