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

/** Copies pkg/ to bench/.out/pkg so a rebuild during the run cannot pull it away; returns the copy's path. */
export function snapshotPkg() {
  if (!oursAvailable(repoPkgDir)) return null;
  const dest = path.join(outDir, "pkg");
  rmSync(dest, { recursive: true, force: true });
  cpSync(repoPkgDir, dest, { recursive: true, preserveTimestamps: true });
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
  }
  return out;
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
