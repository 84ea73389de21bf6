// A client's I/O: fetch requests and their response bodies, one WebSocket, one timer. It moves
// bytes and reports plain values to one sink, `sink(kind, key, value)`, never from inside a call
// the driver makes; the driver decides everything else. Below the class, what the driver reads of
// the host: the clock, random bits, `localStorage` (and texts kept there, or in this page's memory),
// the `WebSocket` constructor, header collections, a thrown value's message. scripts/build.sh
// minifies it when packaging.

// What the sink hears (the kinds the driver matches on).
const HEAD = 0; // (key, response): the status and headers arrived; the body waits for `read(key)`
const CHUNK = 1; // (key, Uint8Array)
const END = 2; // (key)
const FETCH_FAILED = 3; // (key, error): `fetch` rejected
const READ_FAILED = 4; // (key, error): reading the body failed
const NOT_BYTES = 5; // (key): the body yielded something other than bytes or text
const OPEN = 6; // the socket opened
const FRAME = 7; // (0, text)
const CLOSED = 8; // the socket closed or failed
const TIMER = 9;

const enc = new TextEncoder();
// The driver reads frames as they are (a byte order mark included), invalid bytes replaced.
const dec = new TextDecoder("utf-8", { ignoreBOM: true });

export class Io {
  constructor(sink) {
    this.s = sink;
    this.r = new Map(); // key → AbortController (with the response until its body is read)
    this.w = null;
    this.t = undefined;
  }

  // Reports unless shut.
  o(kind, key, v) {
    if (this.s) this.s(kind, key, v);
  }

  // Starts a request; headers are [name, value, ...], set in order; `low`: a background request
  // (a browser gives a free connection to its other requests first). Returns nothing once started,
  // else [index of the refused header pair or -1 without a global `fetch`, the error]. `fetch`
  // itself runs in a microtask, from a shallow stack: a browser whose DevTools record each
  // request's initiator walks the whole stack inside `fetch`, the driver's wasm frames included.
  fetch(key, url, method, pairs, body, low) {
    const headers = new Headers();
    for (let i = 0; i < pairs.length; i += 2) {
      try {
        headers.set(pairs[i], pairs[i + 1]);
      } catch (e) {
        return [i / 2, e];
      }
    }
    let go;
    try {
      go = fetch;
    } catch (e) {
      return [-1, e];
    }
    const c = new AbortController();
    const live = () => this.r.get(key) === c;
    this.r.set(key, c);
    Promise.resolve()
      .then(() => live() && go(url, { method, headers, body, signal: c.signal, priority: low ? "low" : "auto" }))
      .then(
        (res) => {
          if (res && live()) {
            c.res = res;
            this.o(HEAD, key, res);
          }
        },
        (e) => {
          if (live()) {
            this.r.delete(key);
            this.o(FETCH_FAILED, key, e);
          }
        },
      );
  }

  // Reads the body of a request whose head was reported, chunk by chunk.
  async read(key) {
    const c = this.r.get(key);
    if (!c || !c.res) return;
    const reader = c.res.body && c.res.body.getReader();
    c.res = null;
    const live = () => this.r.get(key) === c;
    try {
      await null;
      while (reader && live()) {
        const { done, value } = await reader.read();
        if (!live()) return;
        if (done) break;
        const bytes =
          typeof value === "string"
            ? enc.encode(value)
            : ArrayBuffer.isView(value)
              ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
              : null;
        if (!bytes) {
          this.abort(key);
          this.o(NOT_BYTES, key);
          return;
        }
        this.o(CHUNK, key, bytes);
      }
    } catch (e) {
      if (live()) {
        this.r.delete(key);
        this.o(READ_FAILED, key, e);
      }
      return;
    }
    if (live()) {
      this.r.delete(key);
      this.o(END, key);
    }
  }

  // Aborts a request (its fetch, or its body's stream); it reports nothing more.
  abort(key) {
    const c = this.r.get(key);
    if (c) {
      this.r.delete(key);
      c.abort();
    }
  }

  // Opens the socket (closing the previous one); returns what the constructor threw, if it did.
  open(ctor, url, subprotocol) {
    this.close();
    let w;
    try {
      w = subprotocol ? new ctor(url, subprotocol) : new ctor(url);
      w.binaryType = "arraybuffer";
    } catch (e) {
      return e;
    }
    this.w = w;
    const on = (f) => (ev) => {
      if (this.w === w) f(ev);
    };
    w.onopen = on(() => this.o(OPEN, 0));
    w.onmessage = on((ev) => {
      const d = ev.data;
      // Blob frames are not JSON-RPC messages that can be read at once: skipped.
      if (typeof d === "string") this.o(FRAME, 0, d);
      else if (d instanceof ArrayBuffer) this.o(FRAME, 0, dec.decode(d));
    });
    // Some runtimes (Node's undici) fire `error` without `close` when a connection fails: the first
    // of the two is reported.
    w.onclose = w.onerror = on(() => {
      this.close();
      this.o(CLOSED, 0);
    });
  }

  // Sends a text frame; returns what `send` threw, if it did.
  send(text) {
    try {
      this.w.send(text);
    } catch (e) {
      return e;
    }
  }

  // Closes the socket (code 1000); it reports nothing more.
  close() {
    const w = this.w;
    if (w) {
      this.w = null;
      w.onopen = w.onmessage = w.onclose = w.onerror = null;
      try {
        w.close(1000);
      } catch {}
    }
  }

  // Fires the timer in `ms` (replacing the pending one).
  arm(ms) {
    this.disarm();
    this.t = setTimeout(() => {
      this.t = undefined;
      this.o(TIMER, 0);
    }, ms);
  }

  disarm() {
    if (this.t !== undefined) clearTimeout(this.t);
    this.t = undefined;
  }

  // Stops everything; nothing is reported afterwards.
  shut() {
    this.s = null;
    for (const c of this.r.values()) c.abort();
    this.r.clear();
    this.close();
    this.disarm();
  }
}

/** Calls `cb(1, key, value)` or `cb(0, key, reason)` once `v` (a value, a promise or a thenable)
 * settles: exactly once, in a later microtask. */
export function settled(v, cb, key) {
  Promise.resolve(v).then(
    (x) => cb(1, key, x),
    (e) => cb(0, key, e),
  );
}

/** Whether `v` is a promise or another thenable (an object with a `then` function; reading `then`
 * may throw: not one). */
export function thenable(v) {
  if (v instanceof Promise) return true;
  try {
    return typeof v === "object" && v !== null && typeof v.then === "function";
  } catch {
    return false;
  }
}

export function status(res) {
  return res.status;
}

export function header(res, name) {
  return res.headers.get(name) ?? undefined;
}

/** A header collection's name/value pairs, flat (name, value, …): an iterable of `[name, value]`
 * (`Headers`, `Map`, arrays) or a plain object's entries. `null`/`undefined` values are left out;
 * numbers and booleans are spelled as `JSON.stringify` does. Throws a message for a wrong shape. */
export function headerPairs(v) {
  if (typeof v !== "object" || v === null) {
    throw "headers must be an object, a Headers/Map, an array of pairs or a function";
  }
  const iterable = typeof v[Symbol.iterator] === "function";
  const out = [];
  for (const item of iterable ? v : Object.entries(v)) {
    const pair = Array.from(item);
    if (iterable && pair.length !== 2) throw "header entries must be [name, value] pairs";
    const [name, value] = pair;
    if (value === undefined || value === null) continue;
    if (typeof name !== "string") throw "header names must be strings";
    const type = typeof value;
    if (type !== "string" && type !== "number" && type !== "boolean") {
      throw `header ${name} must be a string`;
    }
    out.push(name, type === "string" ? value : JSON.stringify(value));
  }
  return out;
}

/** `performance`, when it has a callable `now`, and its `timeOrigin` (fixed for the life of the
 * page, worker or process: read once). */
const perf = typeof globalThis.performance?.now === "function" ? globalThis.performance : undefined;
const origin = perf?.timeOrigin;

/** Milliseconds since the Unix epoch on a monotonic clock where there is one (see the driver's
 * `global::now`), else `Date.now()`. */
export function now() {
  const t = perf ? origin + perf.now() : NaN;
  return t > 0 && t < Infinity ? t : Date.now();
}

/** A readable message for a thrown value: an `Error`'s message (with its `cause`'s, described the
 * same way, in parentheses), a string as it is, else its JSON. */
export function describe(e) {
  if (e instanceof Error) {
    let cause;
    try {
      cause = e.cause;
    } catch {}
    const why = cause == null ? "" : describe(cause);
    return why ? `${e.message} (${why})` : `${e.message}`;
  }
  if (typeof e === "string") return e;
  let json;
  try {
    json = JSON.stringify(e);
  } catch {}
  return typeof json === "string" ? json : "unknown JavaScript error";
}

/** A 64-bit seed (a BigInt): 64 random bits from `crypto.getRandomValues`; where it is unavailable
 * (or gave 0), 32 bits of `Math.random` above, XOR the clock's milliseconds. */
export function seed() {
  const b = new BigUint64Array(1);
  try {
    crypto.getRandomValues(b);
  } catch {}
  return b[0] || (BigInt(Math.floor(Math.random() * 2 ** 32)) << 32n) ^ BigInt(Math.floor(now()));
}

/** The global `WebSocket` constructor, if any. */
export function webSocket() {
  const w = globalThis.WebSocket;
  return typeof w === "function" ? w : undefined;
}

/** `globalThis.localStorage` when it is an object (reading it throws where storage is blocked). */
export function localStorage() {
  try {
    const s = globalThis.localStorage;
    if (typeof s === "object" && s !== null) return s;
  } catch {}
}

/** What `remember` kept in this page (where `localStorage` cannot keep it). */
const memory = new Map();

/** The text stored under `key`: its `localStorage` item where storage works and has one, else what
 * this page remembered. */
export function recall(key) {
  let v;
  try {
    v = localStorage()?.getItem(key);
  } catch {}
  return v ?? memory.get(key);
}

/** Stores `value` under `key` in this page's memory and, where storage works, `localStorage` (a full
 * or blocked storage keeps it in memory only). */
export function remember(key, value) {
  memory.set(key, value);
  try {
    localStorage()?.setItem(key, value);
  } catch {}
}

/** `key`'s text in this tab's `sessionStorage` (it survives reloads), where storage works. */
export function sessionItem(key) {
  try {
    const v = globalThis.sessionStorage?.getItem(key);
    return typeof v === "string" ? v : undefined;
  } catch {}
}

/** Keeps `value` under `key` in this tab's `sessionStorage` where storage works (full or blocked:
 * nothing is kept). */
export function setSessionItem(key, value) {
  try {
    globalThis.sessionStorage?.setItem(key, value);
  } catch {}
}

/** Node or Electron's main process: a `process.versions.node` and no `document`. */
export function inNode() {
  return typeof globalThis.process?.versions?.node === "string" && globalThis.document === undefined;
}

/** What this page's navigation or resource timing shows of the origin of `url` (its
 * `scheme://host[:port]`, up to the path, query or fragment; lowercase): 2 reached over HTTP/2 or
 * HTTP/3, 1 over HTTP/1, 0 untold (not reached yet, or another origin that sends no
 * `Timing-Allow-Origin`: its `nextHopProtocol` reads ""). */
export function nextHop(url) {
  const scheme = url.indexOf("://");
  const start = scheme < 0 ? 0 : scheme + 3;
  const end = url.slice(start).search(/[/?#]/);
  const origin = (end < 0 ? url : url.slice(0, start + end)).toLowerCase();
  const perf = globalThis.performance;
  let told = 0;
  if (typeof perf?.getEntriesByType !== "function") return told;
  for (const kind of ["navigation", "resource"]) {
    let entries;
    try {
      entries = perf.getEntriesByType(kind);
    } catch {}
    for (const e of Array.isArray(entries) ? entries : []) {
      const name = typeof e?.name === "string" ? e.name : "";
      const protocol = typeof e?.nextHopProtocol === "string" ? e.nextHopProtocol : "";
      const rest = name.slice(origin.length);
      if (!name.toLowerCase().startsWith(origin) || (rest !== "" && !"/?#".includes(rest[0]))) continue;
      if (protocol === "h2" || protocol.startsWith("h3")) return 2;
      if (protocol !== "") told = 1;
    }
  }
  return told;
}
