// esbuild steps: minified browser bundles for the size figure, and the in-page harness bundles.
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const benchDir = path.resolve(here, "..");
export const outDir = path.join(benchDir, ".out");
export const repoPkgDir = path.resolve(benchDir, "../pkg");
/** The pkg/ the bench uses: a snapshot taken at the start of the run (BENCH_PKG_DIR), else pkg/ itself. */
export const pkgPath = () => process.env.BENCH_PKG_DIR ?? repoPkgDir;
export const oursAvailable = (dir = pkgPath()) => existsSync(path.join(dir, "mcp_task_client_bg.wasm")) && existsSync(path.join(dir, "index.js")) && existsSync(path.join(dir, "node.js"));

/**
 * Copies pkg/ (or the package BENCH_PKG_DIR names, e.g. another build to compare) to bench/.out/pkg so a
 * rebuild during the run cannot pull it away; returns the copy's path.
 */
export function snapshotPkg() {
  const src = pkgPath();
  if (!oursAvailable(src)) return null;
  const dest = path.join(outDir, "pkg");
  if (path.resolve(src) === path.resolve(dest)) return dest;
  rmSync(dest, { recursive: true, force: true });
  cpSync(src, dest, { recursive: true, preserveTimestamps: true });
  return oursAvailable(dest) ? dest : null;
}

/** Points the harness's `../../pkg/...` imports at the pkg/ in use. */
const pkgRedirect = {
  name: "pkg-redirect",
  setup(b) {
    b.onResolve({ filter: /(^|\/)pkg\/(core\/)?[^/]+\.js$/ }, (args) => ({ path: path.join(pkgPath(), args.path.replace(/^.*\bpkg\//, "")) }));
  },
};

const common = {
  bundle: true, platform: "browser", format: "esm", target: "es2022", logLevel: "error",
  define: { "process.env.NODE_ENV": '"production"' },
};
const gz = (buf) => gzipSync(buf, { level: 9 }).length;

/** Gzipped sizes of each stack as a minified browser bundle. */
export async function bundleSizes() {
  const out = {};
  for (const s of ["sdk1", "ext"]) {
    const r = await esbuild.build({ ...common, entryPoints: [path.join(benchDir, `bundle/entry-${s}.mjs`)], minify: true, write: false });
    const js = r.outputFiles[0].contents;
    out[s] = { js: js.length, jsGz: gz(js), wasm: 0, wasmGz: 0, totalGz: gz(js) };
  }
  if (oursAvailable()) {
    // The core build (pkg/core: what the others bundle, without tabs / persistence / OAuth) and
    // the full build at the package root.
    for (const [key, entry, dir] of [["ours", "entry-ours-core.mjs", "core"], ["oursFull", "entry-ours.mjs", "."]]) {
      const r = await esbuild.build({ ...common, entryPoints: [path.join(benchDir, "bundle", entry)], minify: true, write: false, plugins: [pkgRedirect] });
      const js = r.outputFiles[0].contents;
      const wasm = readFileSync(path.join(pkgPath(), dir, "mcp_task_client_bg.wasm"));
      out[key] = { js: js.length, jsGz: gz(js), wasm: wasm.length, wasmGz: gz(wasm), totalGz: gz(js) + gz(wasm) };
    }
    if (existsSync(path.join(pkgPath(), "mcp_task_client_base_bg.wasm"))) out.oursLazy = await lazySizes();
  }
  return out;
}

/** `connect` options by what they ask for, as the lazy rows name them. */
const OPTIONS = {
  "default options": {},
  "+ persist": { persist: true },
  "+ OAuth": { auth: {} },
  "+ receiver (onInput)": { onInput: () => ({}) },
  "+ draft": { dialect: "draft" },
  "all together": { persist: true, auth: {}, onInput: () => ({}), dialect: "draft" },
};

/**
 * What an app bundled by esbuild (code splitting on: each build's glue is a chunk of its own)
 * fetches from the package root before `connect()` resolves, per option set: the entry chunk and
 * its static imports, then the glue chunk and the wasm of the build the client's options need
 * (`needsFull`, the package's own rule). Each file gzipped on its own, as it is fetched.
 * `added`: bytes beyond the default options' fetch (negative when the options fetch less).
 */
async function lazySizes() {
  const r = await esbuild.build({
    ...common, entryPoints: [path.join(benchDir, "bundle", "entry-ours.mjs")], minify: true, splitting: true,
    outdir: path.join(outDir, "lazy"), write: false, metafile: true, plugins: [pkgRedirect],
  });
  const files = new Map(r.outputFiles.map((f) => [path.relative(process.cwd(), f.path), f.contents]));
  const outputs = r.metafile.outputs;
  /** `file` and what it imports statically, transitively. */
  const closure = (file, seen = new Set()) => {
    if (seen.has(file)) return seen;
    seen.add(file);
    for (const i of outputs[file].imports) if (i.kind === "import-statement") closure(i.path, seen);
    return seen;
  };
  const holding = (name) => Object.keys(outputs).find((o) => Object.keys(outputs[o].inputs).some((i) => i.endsWith(`/pkg/${name}`)));
  const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint);
  const sum = (set) => [...set].reduce((n, f) => n + gz(files.get(f)), 0);
  const wasmGz = (name) => gz(readFileSync(path.join(pkgPath(), name)));
  const { needsFull } = await import(path.join(pkgPath(), "client.js"));
  const fetch = (full) => {
    const [glue, wasm] = full ? ["mcp_task_client.js", "mcp_task_client_bg.wasm"] : ["mcp_task_client_base.js", "mcp_task_client_base_bg.wasm"];
    const js = new Set([...closure(entry), ...closure(holding(glue))]);
    return { jsGz: sum(js), wasmGz: wasmGz(wasm), totalGz: sum(js) + wasmGz(wasm), build: full ? "full" : "base" };
  };
  const rows = Object.fromEntries(Object.entries(OPTIONS).map(([k, o]) => [k, fetch(needsFull(o))]));
  const initial = rows["default options"].totalGz;
  for (const v of Object.values(rows)) v.added = v.totalGz - initial;
  // A page with a default client and one with `persist`/`auth`: both builds.
  const both = new Set([...closure(entry), ...closure(holding("mcp_task_client_base.js")), ...closure(holding("mcp_task_client.js"))]);
  const bothGz = sum(both) + wasmGz("mcp_task_client_base_bg.wasm") + wasmGz("mcp_task_client_bg.wasm");
  rows["a default client, then one with persist"] = { totalGz: bothGz, added: bothGz - initial, build: "base + full" };
  return rows;
}

/** Harness bundles for the Chromium page, written to bench/.out/. */
export async function buildHarnesses() {
  mkdirSync(outDir, { recursive: true });
  const stacks = ["sdk1", "ext", ...(oursAvailable() ? ["ours"] : [])];
  for (const s of stacks) {
    await esbuild.build({
      ...common, entryPoints: [path.join(benchDir, `browser/harness-${s}.mjs`)], outfile: path.join(outDir, `harness-${s}.js`),
      minify: true, external: ["node:*"], plugins: [pkgRedirect],
    });
  }
  return stacks;
}
