// The docs' code, checked as a reader would use it: every ```ts / ```tsx / ```js block of the READMEs,
// docs/*.md and the examples' READMEs type-checks against the built pkg/ under strict TypeScript
// (lib ES2023 + DOM, skipLibCheck false; a block that calls `require` as CommonJS under NodeNext)
// with TypeScript 5.9 and 7, and the blocks flagged ```ts run run in Node against a real TS SDK task
// server (```js run=everything: against @modelcontextprotocol/server-everything), their
// `http://127.0.0.1:<port>/mcp` replaced by the server's URL; a ```text output block after one lists
// lines its output must contain, in order (`…` matches anything). The names a block leaves to the
// reader (`url`, `render`, …) are declared in ambient.d.ts and, for runnable blocks, defined in
// prelude.cjs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../../servers/launch.mjs";
import { startEverything } from "../everything.mjs";
import { projectSnippets } from "./snippets.mjs";

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../../..");
const PKG = process.env.MCP_TASK_CLIENT_PKG ?? join(ROOT, "pkg");
const MODULES = join(ROOT, "tests/js/node_modules");
/** Inside tests/js, so `react` and its types resolve from the test tools. */
const OUT = join(HERE, ".out");
/** The compilers checked: the last 5.x and the current major. */
const COMPILERS = [
  { name: "TypeScript 5.9", tsc: join(MODULES, "typescript/bin/tsc"), major: "5." },
  { name: "TypeScript 7", tsc: join(MODULES, "typescript7/bin/tsc"), major: "7." },
];
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    module: "ESNext",
    moduleResolution: "Bundler",
    jsx: "react-jsx",
    allowJs: true,
    checkJs: true,
    skipLibCheck: false,
    // The package as installed (its own imports of `react` resolve from the app's modules).
    preserveSymlinks: true,
    types: [],
  },
  include: ["*.ts", "*.tsx", "*.js"],
};
/** CommonJS blocks: Node's own module rules, with Node's types. */
const CJS_TSCONFIG = {
  compilerOptions: {
    ...TSCONFIG.compilerOptions,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    jsx: undefined,
    types: ["node"],
  },
  include: ["*.cjs"],
};

let snippets;

const isCommonJs = (s) => /\brequire\(/.test(s.code);
/** A block's file in OUT: its doc and line, e.g. `src_js_npm_README_md_L10.ts` (CommonJS: `cjs/….cjs`). */
const fileOf = (s) => {
  const name = `${s.file.replace(/[^A-Za-z0-9]/g, "_")}_L${s.line}`;
  return isCommonJs(s) ? `cjs/${name}.cjs` : `${name}.${s.lang}`;
};
/** Which server a runnable block runs against (```ts run, or ```ts run=<kind>), else null. */
const runsOn = (s) => {
  const flag = s.flags.find((f) => f === "run" || f.startsWith("run="));
  return flag === undefined ? null : flag.slice(4) || "ts-sdk";
};

before(async () => {
  snippets = await projectSnippets(ROOT);
  await rm(OUT, { recursive: true, force: true });
  await mkdir(join(OUT, "node_modules"), { recursive: true });
  await mkdir(join(OUT, "cjs"));
  await symlink(PKG, join(OUT, "node_modules/mcp-task-client"), "dir");
  for (const f of ["ambient.d.ts", "electron.d.ts", "prelude.cjs"]) await copyFile(join(HERE, f), join(OUT, f));
  await writeFile(join(OUT, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  // The same with the newest libs: the package's own disposal declarations merge with the lib's.
  await writeFile(join(OUT, "tsconfig.esnext.json"), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { lib: ["ESNext", "DOM"] } }));
  await writeFile(join(OUT, "cjs/tsconfig.json"), JSON.stringify(CJS_TSCONFIG, null, 2));
  // Each ES block is a module of its own (`export {}`): top-level await, no names shared.
  for (const s of snippets) await writeFile(join(OUT, fileOf(s)), isCommonJs(s) ? s.code : `${s.code}export {};\n`);
});

after(async () => {
  if (!process.env.KEEP_DOC_TESTS) await rm(OUT, { recursive: true, force: true });
});

test("the docs' code blocks are found: both READMEs, each block with its language", () => {
  const inFile = (f) => snippets.filter((s) => s.file === f).length;
  assert.ok(inFile("README.md") >= 1, "README.md");
  assert.ok(inFile("src/js/npm/README.md") >= 10, `src/js/npm/README.md: ${inFile("src/js/npm/README.md")}`);
  assert.ok(snippets.some((s) => s.lang === "tsx"), "a tsx block");
  assert.ok(snippets.some((s) => runsOn(s) !== null), "a runnable block");
});

for (const { name, tsc, major } of COMPILERS) {
  test(`every block type-checks (${name}, strict, lib ES2023 + DOM and ESNext + DOM, skipLibCheck false)`, { timeout: 240_000 }, async () => {
    const version = (await run(process.execPath, [tsc, "--version"])).stdout;
    assert.match(version, new RegExp(`Version ${major.replace(".", "\\.")}`), version);
    for (const project of [OUT, join(OUT, "tsconfig.esnext.json"), join(OUT, "cjs")]) {
      const out = await run(process.execPath, [tsc, "-p", project], { cwd: OUT, timeout: 200_000, maxBuffer: 8 << 20 })
        .then(() => "")
        .catch((e) => `${e.stdout}${e.stderr}`);
      assert.equal(toDocLines(out), "", `${name} errors in the docs' code (${project})`);
    }
  });
}

test("the runnable blocks run in Node against a real task server", { timeout: 180_000 }, async () => {
  const runnable = snippets.filter((s) => runsOn(s) !== null);
  const { transform } = await import(join(MODULES, "esbuild/lib/main.js"));
  const servers = new Map();
  try {
    for (const s of runnable) {
      const where = `${s.file}:${s.line}`;
      const kind = runsOn(s);
      if (!servers.has(kind)) servers.set(kind, await (kind === "everything" ? startEverything() : startServer(kind, { port: 0, timeoutMs: 30_000 })));
      const server = servers.get(kind);
      const cjs = isCommonJs(s);
      const { code } = cjs ? { code: s.code } : await transform(s.code, { loader: s.lang, format: "esm", target: "node20" });
      const src = code.replace(/http:\/\/127\.0\.0\.1:\d+\/mcp/g, server.url);
      const file = join(OUT, fileOf(s).replace(/^cjs\//, "").replace(/\.\w+$/, cjs ? ".run.cjs" : ".run.mjs"));
      await writeFile(file, `${cjs ? 'require("./prelude.cjs");' : 'import "./prelude.cjs";'}\n${src}`);
      const calls = await toolCalls(server);
      const env = { ...process.env, DOC_TEST_URL: server.url };
      const res = await run(process.execPath, [file], { cwd: OUT, env, timeout: 30_000 }).catch((e) => e);
      assert.equal(res.code ?? 0, 0, `${where} exited ${res.code}:\n${res.stdout}${res.stderr}`);
      if (calls !== null) assert.ok((await toolCalls(server)) > calls, `${where} called a tool`);
      if (s.output) assertPrinted(res.stdout, s.output, where);
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
});

/** Every expected line matches a printed line, in order; `…` matches anything. */
function assertPrinted(stdout, expected, where) {
  const printed = stdout.split("\n");
  let at = 0;
  for (const line of expected) {
    const re = new RegExp(`^${line.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    while (at < printed.length && !re.test(printed[at])) at++;
    assert.ok(at < printed.length, `${where} printed "${line}" (in order); it printed:\n${stdout}`);
    at++;
  }
}

/** The server's count of `tools/call` requests so far (null for a server without statistics). */
async function toolCalls(server) {
  if (!server.statsUrl) return null;
  const stats = await (await fetch(server.statsUrl)).json();
  return stats.byMethod?.["tools/call"] ?? 0;
}

/** tsc's output with each block's file and line turned into its Markdown file and line. */
function toDocLines(out) {
  return out.trim().replace(/^(\S+?)_L(\d+)\.(ts|tsx|js|cjs)\((\d+),(\d+)\)/gm, (all, _name, fence, ext, line, col) => {
    const file = all.slice(0, all.indexOf("("));
    const s = snippets.find((x) => fileOf(x) === file || fileOf(x) === `cjs/${file}`);
    return s ? `${s.file}:${Number(fence) + Number(line)}:${col}` : all;
  });
}
