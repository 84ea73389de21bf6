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

const [wasmPath, ...textPaths] = process.argv.slice(2);
const wasm = readFileSync(wasmPath);

let at = 0;
const leb = () => {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = wasm[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return value;
};
const encodeLeb = (n) => {
  const bytes = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    bytes.push(byte);
  } while (n);
  return Buffer.from(bytes);
};
const readName = () => {
  const len = leb();
  at += len;
  return wasm.subarray(at - len, at).toString();
};
const encodeName = (s) => {
  const bytes = Buffer.from(s);
  return Buffer.concat([encodeLeb(bytes.length), bytes]);
};
// Skips an import's description (function, table, memory or global).
const skipImportDesc = () => {
  const kind = wasm[at++];
  if (kind === 0) leb();
  else if (kind === 1 || kind === 2) {
    if (kind === 1) at++; // reference type
    const flags = wasm[at++];
    leb();
    if (flags & 1) leb();
  } else if (kind === 3) at += 2;
  else throw new Error(`import kind ${kind}`);
};

// The module's sections as [id, body start, body end].
const sections = [];
at = 8;
while (at < wasm.length) {
  const id = wasm[at++];
  const len = leb();
  sections.push([id, at, at + len]);
  at += len;
}

// Every import and export name, in order, to rename without clashing with one kept.
const IMPORT = 2;
const EXPORT = 7;
const names = [];
for (const [id, start] of sections) {
  if (id !== IMPORT && id !== EXPORT) continue;
  at = start;
  for (let n = leb(); n > 0; n--) {
    if (id === IMPORT) {
      readName();
      names.push(readName());
      skipImportDesc();
    } else {
      names.push(readName());
      at++;
      leb();
    }
  }
}
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

// The import and export sections rewritten; the others copied.
const out = [wasm.subarray(0, 8)];
for (const [id, start, end] of sections) {
  let body = wasm.subarray(start, end);
  if (id === IMPORT || id === EXPORT) {
    at = start;
    const count = leb();
    const parts = [encodeLeb(count)];
    for (let n = count; n > 0; n--) {
      if (id === IMPORT) parts.push(encodeName(readName()));
      const name = readName();
      const desc = at;
      if (id === IMPORT) skipImportDesc();
      else {
        at++;
        leb();
      }
      parts.push(encodeName(renames.get(name) ?? name), wasm.subarray(desc, at));
    }
    body = Buffer.concat(parts);
  }
  out.push(Buffer.from([id]), encodeLeb(body.length), body);
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
writeFileSync(wasmPath, Buffer.concat(out));
