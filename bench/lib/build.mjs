// esbuild steps: minified browser bundles for the size figure, and the in-page harness bundles.
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
export const benchDir = path.resolve(here, "..");
export const outDir = path.join(benchDir, ".out");
export const pkgDir = path.resolve(benchDir, "../pkg");
export const oursAvailable = () => existsSync(path.join(pkgDir, "mcp_task_client_bg.wasm")) && existsSync(path.join(pkgDir, "index.js"));

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
    const r = await esbuild.build({ ...common, entryPoints: [path.join(benchDir, "bundle/entry-ours.mjs")], minify: true, write: false });
    const js = r.outputFiles[0].contents;
    const wasm = readFileSync(path.join(pkgDir, "mcp_task_client_bg.wasm"));
    const shipped = Buffer.concat(["mcp_task_client.js", "index.js", "extras.js"].map((f) => readFileSync(path.join(pkgDir, f))));
    out.ours = { js: js.length, jsGz: gz(js), wasm: wasm.length, wasmGz: gz(wasm), totalGz: gz(js) + gz(wasm), shippedGlueGz: gz(shipped) };
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
      minify: true, external: ["node:*"],
    });
  }
  return stacks;
}
