// Reading and re-encoding a WebAssembly module's sections, for the build's post-processing steps
// (scripts/short-names.mjs, scripts/unused-shims.mjs). Sections are kept as they are unless a
// step replaces one's body.

/** A cursor over `bytes`: unsigned LEB128 numbers and length-prefixed names. */
export class Reader {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.at = at;
  }
  byte() {
    return this.bytes[this.at++];
  }
  leb() {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = this.bytes[this.at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  }
  name() {
    const len = this.leb();
    this.at += len;
    return this.bytes.subarray(this.at - len, this.at).toString();
  }
  /** Skips an import's description (function, table, memory or global); returns its kind. */
  importDesc() {
    const kind = this.byte();
    if (kind === 0) this.leb();
    else if (kind === 1 || kind === 2) {
      if (kind === 1) this.byte(); // reference type
      const flags = this.byte();
      this.leb();
      if (flags & 1) this.leb();
    } else if (kind === 3) this.at += 2;
    else throw new Error(`import kind ${kind}`);
    return kind;
  }
}

export const encodeLeb = (n) => {
  const bytes = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    bytes.push(byte);
  } while (n);
  return Buffer.from(bytes);
};

export const encodeName = (s) => {
  const bytes = Buffer.from(s);
  return Buffer.concat([encodeLeb(bytes.length), bytes]);
};

export const IMPORT = 2;
export const EXPORT = 7;
export const ELEMENT = 9;
export const CUSTOM = 0;

/** The module's sections: `{ id, body }` (a custom section's body starts with its name). */
export function sections(wasm) {
  const out = [];
  const r = new Reader(wasm, 8);
  while (r.at < wasm.length) {
    const id = r.byte();
    const len = r.leb();
    out.push({ id, body: wasm.subarray(r.at, r.at + len) });
    r.at += len;
  }
  return out;
}

/** The module bytes of `wasm`'s header and `list`'s sections. */
export function encode(wasm, list) {
  const parts = [wasm.subarray(0, 8)];
  for (const { id, body } of list) parts.push(Buffer.from([id]), encodeLeb(body.length), body);
  return Buffer.concat(parts);
}
