// Page side of the fault matrix: loads the built package (pkg/) and runs batches of tasks for the
// Node runner (matrix.mjs), recording every callback each task gets. Only talks to the proxy URL it
// is given. Exposes window.__faults = {ready, runBatch, closeAll, traceLog, wasmBytes, storageDump}.
// the public entry (as users import it), then the raw glue only to reach the module's memory
const mod = await import(new URLSearchParams(location.search).get("pkg") || "/pkg/index.js");
if (typeof mod.default === "function") await mod.default();
let wasm = null;
try {
  const raw = await import("/pkg/mcp_task_client.js");
  wasm = typeof raw.default === "function" ? await raw.default() : null; // already initialised: returns the exports
} catch { /* no raw glue: memory not measured */ }
const Client = mod.McpTaskClient;

const clients = new Set();
let kept = null;
let headerCalls = 0;
let inputsAnswered = 0; // the client of the last `keep` batch, for a `reuse` batch
const now = () => Math.round(performance.now());

// Every `tasks/get` the client hands to fetch: when it was called and when the client aborted it (page
// clock), by task and JSON-RPC id. The browser may keep an aborted response's connection open a while
// (to drain it for reuse), so the proxy alone cannot tell an abandoned poll from one still wanted.
const polls = new Map();
const pageFetch = globalThis.fetch;
globalThis.fetch = function (input, init) {
  try {
    const msg = typeof init?.body === "string" && init.body.includes('"tasks/get"') ? JSON.parse(init.body) : null;
    if (msg?.method === "tasks/get" && typeof msg.params?.taskId === "string") {
      const rec = { calledAt: performance.now() };
      polls.set(`${msg.params.taskId}#${msg.id}`, rec);
      init.signal?.addEventListener("abort", () => { rec.abortedAt = performance.now(); }, { once: true });
    }
  } catch { /* not a JSON request: not a poll */ }
  const out = pageFetch.call(this, input, init);
  if (tracing) trace(init, out);
  return out;
};
/** With `tracing` on, every fetch: when, which session, what it sent, what came back (bounded). */
let tracing = false;
const traced = [];
function trace(init, out) {
  let headers;
  try { headers = new Headers(init?.headers); } catch { headers = new Headers(); }
  const header = (name) => headers.get(name);
  const rec = { at: now(), verb: init?.method ?? "GET", session: header("mcp-session-id")?.slice(-6) ?? null, sent: String(init?.body ?? "").slice(0, 160), got: "" };
  if (header("last-event-id")) rec.lastEventId = header("last-event-id");
  traced.push(rec);
  init?.signal?.addEventListener("abort", () => { rec.abortedAt = now(); }, { once: true });
  out.then(async (res) => {
    Object.assign(rec, { headAt: now(), status: res.status, type: res.headers.get("content-type") });
    const reader = res.clone().body?.getReader();
    const text = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (rec.got.length < 1500) rec.got += text.decode(value, { stream: true });
    }
    rec.endAt = now();
  }).catch((e) => { rec.error = `${now()}: ${e?.name ?? e}`; });
}
function traceLog(on) {
  tracing = on;
  return traced.splice(0);
}
/** The polls recorded since the last call, keyed `taskId#id`; clears the record. */
function pollLog() {
  const out = Object.fromEntries(polls);
  polls.clear();
  return out;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A JSON-safe summary of whatever an error is. */
function errInfo(e) {
  if (e == null) return { message: String(e) };
  if (typeof e !== "object") return { message: String(e) };
  return {
    name: e.name, message: String(e.message ?? ""), kind: e.kind ?? e.error?.kind, code: e.code ?? e.error?.code,
    isRuntimeError: e instanceof WebAssembly.RuntimeError,
  };
}

/** A JSON-safe summary of a TaskDone ({kind, taskId, status, task, outcome, error}) or a result. */
function outcomeInfo(o) {
  let text;
  try { text = JSON.stringify(o); } catch { text = String(o); }
  return {
    kind: o?.kind, status: o?.status ?? o?.task?.status, outcomeKind: o?.outcome?.kind,
    isError: o?.outcome?.result?.isError === true || o?.isError === true,
    error: o?.error ? { kind: o.error.kind, message: o.error.message, code: o.error.code } : undefined,
    text: text && text.length > 600 ? text.slice(0, 600) + "…" : text,
  };
}

function taskIdOf(h) {
  return h?.taskId ?? h?.id ?? (typeof h?.task === "function" ? h.task()?.taskId : h?.task?.taskId);
}

/** Answers every input request at once: elicitation accepted with {answer: "42"}, sampling with a text. */
async function autoAnswer(req) {
  inputsAnswered++;
  if (req?.method === "elicitation/create") return { action: "accept", content: { answer: "42" } };
  if (req?.method === "sampling/createMessage") return { role: "assistant", content: { type: "text", text: "hello" }, model: "fault-matrix" };
  return {};
}

async function connect(url, options, secret, warnings, answer) {
  const opts = {
    transport: "http",
    dialect: "auto",
    ...(answer ? { onInput: autoAnswer } : {}),
    ...options,
    headers: async () => { headerCalls++; return { Authorization: `Bearer ${secret}` }; },
    onWarning: (w) => { if (warnings.length < 200) warnings.push({ taskId: w?.taskId, ...errInfo(w?.error ?? w) }); },
  };
  const client = await Client.connect(url, opts);
  clients.add(client);
  return client;
}

/**
 * Starts `n` tool calls at once and records every callback until each has ended (or `deadlineMs`),
 * then waits `graceMs` more to catch late duplicates. Never throws: failures are data.
 */
async function runBatch({ url, n, tool, args, ttlMs, deadlineMs, graceMs = 1000, options = {}, secret, keep = false, reuse = false, noClose = false, answer = false }) {
  const t0 = now();
  const warnings = reuse && kept ? kept.warnings : [];
  let client = reuse && kept ? kept.client : null;
  if (!client) {
    try {
      client = await connect(url, options, secret, warnings, answer);
    } catch (e) {
      return { connectError: errInfo(e), recs: [], warnings, ms: now() - t0 };
    }
  }
  if (keep) kept = { client, warnings };
  const recs = Array.from({ length: n }, (_, i) => ({ i, ends: [], statuses: [], afterDone: [], result: null }));
  await Promise.all(recs.map(async (rec) => {
    rec.startedAt = now() - t0;
    let h;
    try {
      h = await client.callTool(tool, args, { ttlMs });
    } catch (e) {
      rec.ends.push({ via: "callTool", at: now() - t0, error: errInfo(e) });
      return;
    }
    rec.taskId = taskIdOf(h);
    try {
      h.onStatus((t) => {
        rec.statuses.push(t?.status);
        if (!rec.taskId) rec.taskId = t?.taskId;
        if (rec.ends.length) rec.afterDone.push(t?.status);
      });
    } catch (e) { rec.hookError = errInfo(e); }
    try {
      h.onDone((o) => rec.ends.push({ via: "onDone", at: now() - t0, ...outcomeInfo(o) }));
    } catch (e) { rec.hookError = errInfo(e); }
    h.result().then(
      (r) => { rec.result = { ok: true, at: now() - t0, ...outcomeInfo(r) }; },
      (e) => { rec.result = { ok: false, at: now() - t0, error: errInfo(e) }; },
    );
  }));
  const settled = (r) => r.ends.length > 0 && (r.ends[0].via === "callTool" || r.result);
  const end = now() + deadlineMs;
  while (now() < end && !recs.every(settled)) await sleep(100);
  await sleep(graceMs);
  if (!keep && !noClose && !(reuse && kept?.client === client)) await closeClient(client);
  return { recs, warnings, inputsAnswered, ms: now() - t0 };
}

async function closeClient(c) {
  clients.delete(c);
  try { await c.close?.(); } catch { /* closing a broken client must not matter here */ }
}

async function closeAll() {
  kept = null;
  for (const c of [...clients]) await closeClient(c);
}

/** Everything the page persisted: localStorage, sessionStorage, IndexedDB, caches, cookies. */
async function storageDump() {
  const out = { localStorage: {}, sessionStorage: {}, indexedDB: {}, caches: {}, cookie: document.cookie };
  for (const [name, s] of [["localStorage", localStorage], ["sessionStorage", sessionStorage]]) {
    for (let i = 0; i < s.length; i++) out[name][s.key(i)] = s.getItem(s.key(i));
  }
  for (const { name } of (await indexedDB.databases?.()) ?? []) {
    out.indexedDB[name] = await new Promise((resolve) => {
      const req = indexedDB.open(name);
      req.onerror = () => resolve({ error: String(req.error) });
      req.onsuccess = async () => {
        const db = req.result;
        const dump = {};
        for (const store of db.objectStoreNames) {
          dump[store] = await new Promise((res2) => {
            const all = db.transaction(store, "readonly").objectStore(store).getAll();
            all.onsuccess = () => res2(all.result);
            all.onerror = () => res2({ error: String(all.error) });
          });
        }
        db.close();
        resolve(dump);
      };
    });
  }
  if (globalThis.caches) {
    for (const name of await caches.keys()) {
      const c = await caches.open(name);
      out.caches[name] = await Promise.all((await c.keys()).map(async (r) => ({ url: r.url, body: await (await c.match(r)).text() })));
    }
  }
  return JSON.stringify(out);
}

window.__faults = {
  ready: true,
  exports: Object.keys(mod),
  runBatch,
  closeAll,
  traceLog,
  storageDump,
  wasmBytes: () => (wasm?.memory?.buffer?.byteLength ?? null),
  xss: () => window.__faultXss ?? 0,
  headerCalls: () => headerCalls,
  pollLog,
};
