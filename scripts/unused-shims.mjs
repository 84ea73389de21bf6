// Frees the function table slots of closure entry points nothing can call, so that wasm-opt
// removes them (~2.3 KB of code per build).
//
// wasm-bindgen describes every imported function of js-sys/web-sys that takes a closure (a typed
// array's forEach, Set.forEach, …) with a pointer to its entry point (`…::closures::…::invoke::<…>`)
// into the function table; it runs those descriptions and deletes them, but the table keeps the
// entries, so the entry points stay. JS calls a live entry point only by its export (the glue's
// `wasm.<name>(…)`), and Rust code never takes its address: a table slot holding one that is not
// exported is never called. Such a slot is pointed at the segment's first other function instead.
// Needs the module's name section (wasm-bindgen's output keeps it; wasm-opt then drops it).
//
//   node scripts/unused-shims.mjs <module_bg.wasm>
import { readFileSync, writeFileSync } from "node:fs";
import { CUSTOM, ELEMENT, EXPORT, IMPORT, Reader, encode, encodeLeb, sections } from "./wasm-module.mjs";

const [wasmPath] = process.argv.slice(2);
const wasm = readFileSync(wasmPath);
const list = sections(wasm);

let imported = 0; // functions are numbered imports first
const exported = new Set();
const names = new Map();
for (const { id, body } of list) {
  const r = new Reader(body);
  if (id === IMPORT) {
    for (let n = r.leb(); n > 0; n--) {
      r.name();
      r.name();
      if (r.importDesc() === 0) imported++;
    }
  } else if (id === EXPORT) {
    for (let n = r.leb(); n > 0; n--) {
      r.name();
      const kind = r.byte();
      const index = r.leb();
      if (kind === 0) exported.add(index);
    }
  } else if (id === CUSTOM && r.name() === "name") {
    while (r.at < body.length) {
      const sub = r.byte();
      const end = r.leb() + r.at;
      if (sub === 1) {
        for (let n = r.leb(); n > 0; n--) names.set(r.leb(), r.name());
      }
      r.at = end;
    }
  }
}
if (names.size === 0) throw new Error(`${wasmPath} has no function names`);

// js-sys's executor wakes a spawned task through a waker whose functions (`jspi::task_waker::raw_*`)
// sit in the table; only a spawned task makes such a waker, and only `spawn_promising` spawns one:
// in a module without it (the core build spawns nothing) those slots are never called either.
const spawns = [...names.values()].some((n) => n.includes("futures::jspi::spawn_promising"));
const unreachable = (name) =>
  /::closures::.*::invoke::</.test(name) || (!spawns && name.includes("futures::jspi::task_waker::raw_"));
const unused = (f) => f >= imported && !exported.has(f) && unreachable(names.get(f) ?? "");

const table = list.find((s) => s.id === ELEMENT);
let freed = 0;
if (table) {
  const r = new Reader(table.body);
  const count = r.leb();
  const parts = [encodeLeb(count)];
  for (let s = 0; s < count; s++) {
    // Only the MVP form (flags 0: `i32.const <offset> end`, then function indices), which is
    // what rustc emits.
    const flags = r.leb();
    if (flags !== 0 || r.byte() !== 0x41) throw new Error(`element segment of another form (flags ${flags})`);
    const offset = r.at;
    while (r.byte() & 0x80); // the offset, signed LEB128
    if (r.byte() !== 0x0b) throw new Error("element segment offset is not a constant");
    const head = table.body.subarray(offset - 1, r.at);
    const funcs = Array.from({ length: r.leb() }, () => r.leb());
    const stand_in = funcs.find((f) => !unused(f));
    const kept = funcs.map((f) => (unused(f) && stand_in !== undefined ? (freed++, stand_in) : f));
    parts.push(encodeLeb(0), head, encodeLeb(kept.length), ...kept.map(encodeLeb));
  }
  table.body = Buffer.concat(parts);
}
writeFileSync(wasmPath, encode(wasm, list));
console.log(`unused-shims: ${freed} table slots freed`);
