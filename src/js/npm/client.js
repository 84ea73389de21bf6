// McpTaskClient: checks the caller's arguments and the types of the options, and owns the
// promises, the callbacks (onTransition, onTaskDoneOnce, onInput, onWarning), the abort controllers
// of the input requests `onInput` handles, the listener on connect's signal and the making of each
// TaskHandle. What everything means is decided in WebAssembly (`ClientCore`): it reads the checked
// values, and tells the client what to act on through one callback (`#heard`).
import { McpTaskError, call, failure } from "./extras.js";
import { TaskHandle } from "./handle.js";

/** What `ClientCore` reports. These numbers are defined in src/js/codes.rs (HEARD, CALLS, ASKS); tests/wasm_wire.rs checks both agree. */
const READY = 0, FAILED = 1, SESSION = 2, WARNING = 3, TRANSITION = 4, INPUT = 5, WITHDRAWN = 6, ONCE = 7, REPLIED = 8, REFUSED = 9;
/** What `ClientCore.call` starts. */
const REQUEST = 0, TOOL = 1, WATCH = 2;
/** What `ClientCore.ask` reads, tells, starts (the one-shot operations) and asks of the stored tasks. */
const SUB_ID = 0, SUB_STATUS = 1, SUB_TASK = 2, TRACKED = 3, DIALECT = 4, ROLE = 5, STORAGE = 6;
const ABANDON = 7, STOP = 8, RESOLVED = 9, REJECTED = 10, CLOSE = 11;
const LIST_TASKS = 12, LIST_TOOLS = 13, CANCEL = 14, DELETE = 15, RESUME = 16, FORGET = 17;

const invalid = (message) => new McpTaskError(message, { kind: "invalidInput" });
const mustBe = (name, what) => invalid(`${name} must be ${what}`);
/** The error of a `ClientCore` method that threw: an `ErrorInfo` (or a `RuntimeError`); `cause`:
 *  the caller's signal's reason, for kind `aborted`. */
const thrown = (e, cause) => (e instanceof Error ? e : failure(e, e.kind === "aborted" ? cause : undefined));

/** What `json` refuses, by why. */
const notJson = (why) => invalid(`not JSON-serializable: ${why}`);
const UNWRITABLE = "a function, symbol or binary value";

/** A caller's value as JSON text, for the WebAssembly side to read: strings, booleans, `null` and
 *  `undefined` (an `undefined` member is left out), numbers (an integral one as its double's exact
 *  digits; NaN and ±Infinity as `null`), BigInts in `i64::MIN..=u64::MAX`, arrays, `Map`s with
 *  string keys and other non-iterable objects by their own enumerable properties. Throws the
 *  `invalidInput` error of anything else, or of nesting deeper than 512. */
export function json(v, depth = 0) {
  if (depth > 512) throw notJson("nested too deeply (or cyclic)");
  const inner = (x) => json(x, depth + 1);
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) ? String(BigInt(v)) : JSON.stringify(v);
    case "bigint":
      if (BigInt.asIntN(64, v) !== v && BigInt.asUintN(64, v) !== v) throw notJson("a BigInt outside i64::MIN..u64::MAX");
      return String(v);
    case "function":
    case "symbol":
      throw notJson(UNWRITABLE);
    case "object": {
      if (v === null) break;
      if (Array.isArray(v)) return `[${Array.from(v, inner)}]`;
      if (v instanceof Uint8Array || v instanceof ArrayBuffer) throw notJson(UNWRITABLE);
      const map = v instanceof Map;
      if (!map && Symbol.iterator in v) throw notJson("an iterable object other than an Array or a Map");
      const members = [];
      for (const [key, x] of map ? v : Object.entries(v)) {
        if (typeof key !== "string") throw notJson("a Map key that is not a string");
        if (x !== undefined) members.push(`${JSON.stringify(key)}:${inner(x)}`);
      }
      return `{${members}}`;
    }
  }
  return JSON.stringify(v) ?? "null";
}

/** Option types: a test and what the message says is expected. */
const TYPES = {
  string: [(v) => typeof v === "string", "a string"],
  millis: [(v) => typeof v === "number" && v >= 0 && v <= Number.MAX_SAFE_INTEGER, "a non-negative number"],
  boolean: [(v) => typeof v === "boolean", "a boolean"],
  function: [(v) => typeof v === "function", "a function"],
};

/** `o[key]`, `undefined` when unset (`null` included). */
const given = (o, key) => o?.[key] ?? undefined;

/** Checks that `o[key]`, when set, is of `type` (a key of TYPES, or the strings it may be);
 *  returns it. */
function typed(o, key, type) {
  const v = given(o, key);
  const [ok, what] = typeof type === "string" ? TYPES[type] : [(v) => type.includes(v), `one of ${type.join(", ")}`];
  if (v !== undefined && !ok(v)) throw mustBe(key, what);
  return v;
}

/** Checks that `o` is an options object (or unset). */
function options(o) {
  if (o != null && typeof o !== "object") throw mustBe("options", "an object");
}

/** A non-empty string argument. */
function id(v, name) {
  if (typeof v !== "string" || !v) throw mustBe(name, "a non-empty string");
  return v;
}

/** What an operation whose signal `s` already aborted rejects with. */
const stopped = (s) => new McpTaskError("stopped waiting for the task", { kind: "aborted" }, { cause: s.reason });

/** The `signal` option, when set: anything with `aborted` and `addEventListener`. */
function signal(o) {
  const s = given(o, "signal");
  if (s !== undefined && !(typeof s === "object" && "aborted" in s && typeof s.addEventListener === "function")) {
    throw invalid("signal must be an AbortSignal");
  }
  return s;
}

/** The plain options of `connect`, by type: checked here, their values read in WebAssembly (with
 *  the URL, `onInput`'s presence and `capabilities`; `headers`, a collection or a function, and
 *  `auth`, which only the full build has, are read there as given). */
const SETTINGS = {
  transport: ["http", "websocket"],
  dialect: ["auto", "modern", "legacy", "draft"],
  clientName: "string",
  clientVersion: "string",
  requestTimeoutMs: "millis",
  maxMessageBytes: "millis",
  resultGcMs: "millis",
  link: ["http1", "http2", "node", "websocket", "learn"],
  cadence: ["latency", "requests"],
  subscribe: "boolean",
  deleteOnDone: "boolean",
  persist: "boolean",
  identity: "string",
  persistResults: "boolean",
  tabs: "boolean",
};

/** The options of `callTool` and `request` (but `signal`), by type: checked here, read in
 *  WebAssembly. */
const CALL_OPTIONS = {
  task: ["auto", "always", "never"],
  ttlMs: "millis",
  keepAliveMs: "millis",
  deleteOnDone: "boolean",
};

/** The server URL: a string the global `URL` parses (relative to the page, where there is one)
 *  with an http(s) or ws(s) scheme. Returned as given. */
function url(text) {
  if (typeof text !== "string") throw invalid("url must be a string");
  if (typeof URL !== "function") return text;
  let scheme;
  try {
    scheme = new URL(text, globalThis.location?.href).protocol;
  } catch {
    throw invalid(`not a URL: "${text}"`);
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(scheme)) {
    throw invalid(`unsupported URL scheme "${scheme}" in "${text}" (use http, https, ws or wss)`);
  }
  return text;
}

/** Only `connect` makes clients. */
const PRIVATE = {};

/** Adds `f` to `list`; returns the function that removes it again. */
function listen(list, f) {
  list.push(f);
  return () => {
    const i = list.indexOf(f);
    if (i >= 0) list.splice(i, 1);
  };
}

/** Whether `connect`'s options `o` need the full build (tab coordination / persistence, OAuth):
 *  `persist` (true, or a coordination host) or `auth`. */
export function needsFull(o) {
  const p = given(o, "persist");
  return p === true || typeof p === "object" || given(o, "auth") !== undefined;
}

/** The client class over the builds' WebAssembly modules: `load(options)` resolves with the
 *  initialized module (with its `ClientCore`) a client connected with `options` runs on;
 *  `coordinate(persist, warn)` makes the coordination host of `persist: { redis }` (the Node
 *  entry's; elsewhere `persist` must be a boolean). */
export function clientClass(load, coordinate) {
  class McpTaskClient {
    /** The class's name, kept through minification (local names are shortened). */
    static name = "McpTaskClient";
    /** The WebAssembly side. */
    #core;
    /** What the session negotiated. */
    #session = null;
    /** `[resolve, reject, signal, stop listening]` until `connect` settles. */
    #connecting;
    #onInput;
    #onWarning;
    #transitions = [];
    #once = [];
    /** The abort controllers of the input requests `onInput` is handling, by input id. */
    #inputs = new Map();
    /** The settle functions of the one-shot operations awaiting their reply, by key. */
    #ops = new Map();
    #lastOp = 0;
    /** What this client's handles call. */
    #port = {
      id: (sub) => this.#core.ask(SUB_ID, sub),
      status: (sub) => this.#core.ask(SUB_STATUS, sub),
      task: (sub) => this.#core.ask(SUB_TASK, sub),
      stop: (sub) => this.#core.ask(STOP, sub),
      cancel: (taskId) => this.#op(CANCEL, taskId).then(() => {}),
      delete: (taskId) => (taskId === null ? Promise.reject(invalid("no task to delete")) : this.#op(DELETE, taskId).then(() => {})),
    };

    constructor(key) {
      if (key !== PRIVATE) throw new TypeError("use McpTaskClient.connect()");
    }

    static async connect(address, opts) {
      const wasm = await load(opts);
      const client = new McpTaskClient(PRIVATE);
      const p = given(opts, "persist");
      const coord = typeof p === "object" ? await coordinate?.(p, (w) => client.#heard(WARNING, 0, w)) : undefined;
      return new Promise((resolve, reject) => client.#open(wasm, address, opts, coord, resolve, reject));
    }

    #open(wasm, address, o, coord, resolve, reject) {
      try {
        const settings = { url: url(address) };
        options(o);
        for (const [key, type] of Object.entries(SETTINGS)) settings[key] = key === "persist" && coord ? true : typed(o, key, type);
        this.#onInput = typed(o, "onInput", "function");
        settings.onInput = this.#onInput !== undefined;
        const caps = given(o, "capabilities");
        if (caps !== undefined && (typeof caps !== "object" || Array.isArray(caps))) {
          throw invalid("capabilities must be a plain object");
        }
        settings.capabilities = caps;
        const ws = typed(o, "WebSocket", "function");
        this.#onWarning = typed(o, "onWarning", "function");
        const s = signal(o);
        if (s?.aborted) throw stopped(s);
        // Set first: the WebAssembly side may report a failure before `open` returns.
        this.#connecting = [resolve, reject, s];
        const heard = (what, id, value) => this.#heard(what, id, value);
        const core = (this.#core = wasm.ClientCore.open(json(settings), given(o, "headers"), ws, given(o, "auth"), coord, heard));
        if (s && this.#connecting) {
          const abort = () => core.ask(ABANDON);
          s.addEventListener("abort", abort);
          this.#connecting.push(() => s.removeEventListener("abort", abort));
        }
      } catch (e) {
        this.#connecting = null;
        reject(thrown(e));
      }
    }

    /** What the WebAssembly side reports: `what` about `id`, with `value`. */
    #heard(what, id, value) {
      switch (what) {
        case READY:
        case FAILED: {
          const [resolve, reject, s, unlisten] = this.#connecting ?? [];
          this.#connecting = null;
          unlisten?.();
          if (what === READY) resolve?.(this);
          else reject?.(thrown(value, s?.reason));
          break;
        }
        case SESSION:
          this.#session = value;
          break;
        case WARNING:
          if (this.#onWarning) call(this.#onWarning, value);
          break;
        case TRANSITION:
          for (const f of [...this.#transitions]) call(f, value);
          break;
        case INPUT:
          this.#input(id, value);
          break;
        case WITHDRAWN: {
          const c = this.#inputs.get(id);
          this.#inputs.delete(id);
          c?.abort(new McpTaskError(`the input request was withdrawn: ${value}`, { kind: "cancelled" }));
          break;
        }
        case ONCE:
          for (const f of [...this.#once]) call(f, value);
          break;
        case REPLIED:
        case REFUSED: {
          const [resolve, reject] = this.#ops.get(id) ?? [];
          this.#ops.delete(id);
          if (what === REPLIED) resolve?.(value);
          else reject?.(failure(value));
          break;
        }
      }
    }

    /** One-shot operation `what` (with `arg`): its reply settles the promise. */
    #op(what, arg) {
      return new Promise((resolve, reject) => {
        const key = ++this.#lastOp;
        this.#ops.set(key, [resolve, reject]);
        try {
          this.#core.ask(what, key, arg);
        } catch (e) {
          this.#ops.delete(key);
          reject(thrown(e));
        }
      });
    }

    /** Runs `onInput` for input request `id` in a later microtask (outside the WebAssembly
     *  side's event delivery) and hands its answer back. */
    #input(id, request) {
      const c = new AbortController();
      this.#inputs.set(id, c);
      const answer = (ok, v) => {
        this.#inputs.delete(id);
        if (ok) {
          try {
            v = json(v);
          } catch {
            v = undefined; // not JSON: answered as an error
          }
        }
        this.#core?.ask(ok ? RESOLVED : REJECTED, id, v);
      };
      queueMicrotask(() => {
        let result;
        try {
          result = this.#onInput(request, { signal: c.signal });
        } catch (e) {
          return answer(false, e);
        }
        Promise.resolve(result).then((v) => answer(true, v), (e) => answer(false, e));
      });
    }

    get dialect() {
      return this.#core.ask(DIALECT);
    }

    get session() {
      return this.#session;
    }

    get role() {
      return this.#core.ask(ROLE);
    }

    get storage() {
      return this.#core.ask(STORAGE);
    }

    callTool(name, args, opts) {
      return this.#call(TOOL, name, "name", args, "arguments", opts);
    }

    request(method, params, opts) {
      return this.#call(REQUEST, method, "method", params, "params", opts);
    }

    /** `callTool` (`what`: TOOL) or `request`: resolves with the handle once the request is under
     *  way. `params` (`undefined` or `null`: `{}`) must be a plain object. */
    #call(what, name, nameArg, params, paramsArg, opts) {
      return new Promise((resolve, reject) => {
        let s;
        try {
          id(name, nameArg);
          options(opts);
          const args = { name };
          for (const [key, type] of Object.entries(CALL_OPTIONS)) args[key] = typed(opts, key, type);
          s = signal(opts);
          const text = params == null ? "{}" : json(params);
          if (text[0] !== "{") throw mustBe(paramsArg, "a plain object");
          if (s?.aborted) throw stopped(s);
          const h = new TaskHandle(this.#port, s, [resolve, reject]);
          h._start(this.#core.call(h, what, json(args), text));
        } catch (e) {
          reject(thrown(e, s?.reason));
        }
      });
    }

    watch(taskId, opts) {
      id(taskId, "taskId");
      const s = signal(opts);
      const h = new TaskHandle(this.#port, s);
      try {
        h._start(this.#core.call(h, WATCH, json({ name: taskId, aborted: s?.aborted === true })));
      } catch (e) {
        throw thrown(e);
      }
      return h;
    }

    listTasks(cursor) {
      if (cursor != null && typeof cursor !== "string") return Promise.reject(mustBe("cursor", "a string"));
      return this.#op(LIST_TASKS, cursor ?? undefined);
    }

    deleteTask(taskId) {
      return this.#op(DELETE, taskId).then(() => {});
    }

    listTools() {
      return this.#op(LIST_TOOLS);
    }

    task(taskId) {
      return this.#core.ask(TRACKED, 0, id(taskId, "taskId"));
    }

    onTransition(cb) {
      return listen(this.#transitions, cb);
    }

    onTaskDoneOnce(cb) {
      return listen(this.#once, cb);
    }

    resume() {
      return new Promise((resolve, reject) => {
        const watch = (ids) => {
          try {
            resolve(ids.map((taskId) => this.watch(taskId)));
          } catch (e) {
            reject(e);
          }
        };
        try {
          this.#core.ask(RESUME, 0, watch);
        } catch (e) {
          reject(thrown(e));
        }
      });
    }

    forget(taskId) {
      return new Promise((resolve) => this.#core.ask(FORGET, taskId, resolve));
    }

    close() {
      const inputs = [...this.#inputs.values()];
      this.#inputs.clear();
      for (const c of inputs) c.abort(new McpTaskError("the client was closed", { kind: "closed" }));
      return new Promise((resolve) => this.#core.ask(CLOSE, 0, resolve));
    }

    /** Same as `close()`, without waiting (a disposed client never throws). */
    free() {
      void this.close();
    }
  }
  const proto = McpTaskClient.prototype;
  if (Symbol.dispose) proto[Symbol.dispose] = proto.free;
  if (Symbol.asyncDispose) proto[Symbol.asyncDispose] = proto.close;
  return McpTaskClient;
}
