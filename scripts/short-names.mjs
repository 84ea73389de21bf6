// Shortens the names wasm-bindgen gives the module's imports and closure entry points, in the wasm
// and in every file of its output that spells them (the glue and the declarations):
//   __wbg_abort_6d73c4e065436877                       → __wbg_abort (then __wbg_abort_2, …)
//   wasm_bindgen_<hash>___convert__closures_____invoke… → __wbg_invoke_1, …
// The 16-hex-digit suffixes and the mangled closure names do not compress: each build carries
// them twice, in the wasm and in the glue (~1.3 KB gz each). Only names are rewritten; every
// section but the import and export sections is copied as is.
//
//   node scripts/short-names.mjs <module_bg.wasm> <file that names its imports/exports>...
import { readFileSync, writeFileSync } from "node:fs";
import { EXPORT, IMPORT, Reader, encode, encodeLeb, encodeName, sections } from "./wasm-module.mjs";

const [wasmPath, ...textPaths] = process.argv.slice(2);
const wasm = readFileSync(wasmPath);
const list = sections(wasm);

// Reads one entry of the import or export section `id` (its name, then the rest as bytes).
const entry = (id, r) => {
  const module = id === IMPORT ? r.name() : null;
  const name = r.name();
  const desc = r.at;
  if (id === IMPORT) r.importDesc();
  else {
    r.byte();
    r.leb();
  }
  return { module, name, desc: r.bytes.subarray(desc, r.at) };
};
const entries = (section) => {
  const r = new Reader(section.body);
  return Array.from({ length: r.leb() }, () => entry(section.id, r));
};
const named = list.filter((s) => s.id === IMPORT || s.id === EXPORT);

// Every import and export name, to rename without clashing with one kept.
const names = named.flatMap((s) => entries(s).map((e) => e.name));
const taken = new Set(names);
const renames = new Map();
let invokes = 0;
for (const name of names) {
  const hashed = name.match(/^(__wbg_.+)_[0-9a-f]{16}$/);
  const base = hashed ? hashed[1] : /_convert__closures_+invoke_/.test(name) ? `__wbg_invoke_${++invokes}` : null;
  if (!base || renames.has(name)) continue;
  let short = base;
  for (let i = 2; taken.has(short); i++) short = `${base}_${i}`;
  taken.add(short);
  renames.set(name, short);
}

for (const section of named) {
  const all = entries(section);
  const parts = [encodeLeb(all.length)];
  for (const { module, name, desc } of all) {
    if (module !== null) parts.push(encodeName(module));
    parts.push(encodeName(renames.get(name) ?? name), desc);
  }
  section.body = Buffer.concat(parts);
}

// Longest first: no name is replaced inside a longer one. The glue (the first file) must spell
// every renamed name: it is what instantiates the module.
const ordered = [...renames].sort((a, b) => b[0].length - a[0].length);
const texts = textPaths.map((path) => readFileSync(path, "utf8"));
const missing = ordered.filter(([from]) => !texts[0].includes(from)).map(([from]) => from);
if (missing.length) throw new Error(`not in ${textPaths[0]}: ${missing.join(", ")}`);
textPaths.forEach((path, i) => {
  let text = texts[i];
  for (const [from, to] of ordered) text = text.split(from).join(to);
  writeFileSync(path, text);
});
writeFileSync(wasmPath, encode(wasm, list));
