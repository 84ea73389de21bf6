// The demo dashboard: connects to any MCP server through the `mcp-task-client` package (wasm, web
// target), lists tools, starts tasks, follows them live, answers input requests, cancels, stops
// waiting, and picks its tasks up again after a reload.
//
// Safety rule for this file: every string that came from a server (or from the URL) reaches the page
// through text nodes only (see lib/dom.js). No innerHTML, no insertAdjacentHTML, no document.write.
import { el, replace, pretty } from "./lib/dom.js";
import { schemaFields, defaultArguments } from "./lib/schema-form.js";
import { loadTracked, track, updateTracked, forget, lastServer, rememberServer } from "./lib/store.js";

/** The built package's browser entry (web target), relative to this file. */
const PKG_URL = new URL("../pkg/index.js", import.meta.url).href;
const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown", "expired"]);
const MAX_LOG = 400;

const $ = (id) => document.getElementById(id);
const ui = {
  form: $("connect-form"),
  server: $("server-url"),
  transport: $("transport"),
  dialectChoice: $("dialect-choice"),
  connect: $("connect"),
  disconnect: $("disconnect"),
  state: $("conn-state"),
  dialect: $("dialect"),
  protocol: $("protocol"),
  serverName: $("server-name"),
  role: $("role"),
  banner: $("banner"),
  tools: $("tools"),
  inputs: $("inputs"),
  inputCount: $("input-count"),
  tasks: $("tasks"),
  watchForm: $("watch-form"),
  watchId: $("watch-id"),
  clearFinished: $("clear-finished"),
  log: $("log"),
  clearLog: $("clear-log"),
};

let pkg = null; // the imported module, once loaded
let client = null; // the connected McpTaskClient
let serverUrl = ""; // absolute URL of the connected server (the localStorage key)
let localSeq = 0;
let clientLogsTransitions = false; // the client reports transitions itself (onTransition)
/** key → card state ({key, taskId, tool, args, status, handle, abort, node, parts…}) */
const cards = new Map();
/** input id → {node, settle, taskId} */
const pendingInputs = new Map();

// ---------------------------------------------------------------- event log
function log(kind, text, detail) {
  const time = new Date().toISOString().slice(11, 23);
  const item = el(
    "li",
    { className: `log-${kind}`, dataset: { kind } },
    el("time", {}, time),
    " ",
    el("span", { className: "kind" }, kind),
    " ",
    el("span", { className: "text" }, text),
    detail === undefined ? null : el("details", {}, el("summary", {}, "details"), el("pre", {}, pretty(detail))),
  );
  ui.log.prepend(item);
  while (ui.log.childElementCount > MAX_LOG) ui.log.lastElementChild?.remove();
}

function banner(text, kind = "error") {
  if (!text) {
    ui.banner.hidden = true;
    return;
  }
  ui.banner.hidden = false;
  ui.banner.dataset.kind = kind;
  replace(ui.banner, text);
}

function errText(e) {
  if (e === null || e === undefined) return "unknown error";
  if (typeof e === "string") return e;
  if (e instanceof Error) return e.message;
  if (typeof e === "object") {
    const msg = e.message ?? e.error?.message;
    const code = e.code ?? e.error?.code;
    const status = e.httpStatus ?? e.error?.httpStatus;
    const notes = [code != null && `code ${code}`, status != null && `HTTP ${status}`].filter(Boolean);
    if (msg !== undefined) return notes.length ? `${msg} (${notes.join(", ")})` : String(msg);
  }
  return pretty(e);
}

window.addEventListener("error", (e) => log("error", `page error: ${e.message}`));
window.addEventListener("unhandledrejection", (e) => log("error", `unhandled rejection: ${errText(e.reason)}`));

// ---------------------------------------------------------------- package
async function loadPackage() {
  if (pkg) return pkg;
  let mod;
  try {
    mod = await import(PKG_URL);
  } catch (e) {
    throw new Error(`could not load the package from ${PKG_URL} (build it with scripts/build.sh): ${errText(e)}`);
  }
  if (typeof mod.default === "function") await mod.default();
  if (!mod.McpTaskClient) throw new Error("the package has no McpTaskClient export");
  pkg = mod;
  return mod;
}

// ---------------------------------------------------------------- connection
function setState(state, text) {
  ui.state.dataset.state = state;
  replace(ui.state, text ?? state);
  document.body.dataset.conn = state;
}

function readProp(obj, ...names) {
  for (const n of names) {
    try {
      const v = obj?.[n];
      if (v !== undefined && v !== null) return typeof v === "function" ? undefined : v;
    } catch {
      // getter threw: treat as absent
    }
  }
  return undefined;
}

function showSession() {
  const session = readProp(client, "session", "sessionInfo") ?? {};
  const dialect = readProp(client, "dialect") ?? session.dialect;
  replace(ui.dialect, dialect ? String(dialect) : "—");
  ui.dialect.dataset.dialect = dialect ? String(dialect) : "";
  const version = readProp(client, "protocolVersion") ?? session.protocolVersion;
  replace(ui.protocol, version ? String(version) : "—");
  const info = readProp(client, "serverInfo") ?? session.serverInfo;
  const name = info && typeof info === "object" ? [info.name, info.version].filter(Boolean).join(" ") : "";
  replace(ui.serverName, name || "—");
  showRole(readProp(client, "role", "tabRole") ?? (readProp(client, "isLeader") === undefined ? undefined : readProp(client, "isLeader") ? "leader" : "follower"));
  for (const hook of ["onRoleChange", "onRole"]) {
    if (typeof client?.[hook] === "function") {
      try {
        client[hook]((r) => showRole(typeof r === "boolean" ? (r ? "leader" : "follower") : r));
      } catch {
        // optional API
      }
      break;
    }
  }
}

/** Placeholder until cross-tab coordination reports a role: a single tab polls for itself. */
function showRole(role) {
  const r = role ? String(role) : "leader (single tab)";
  ui.role.dataset.role = role ? String(role) : "placeholder";
  replace(ui.role, r);
}

function resolveServer(text) {
  const s = text.trim();
  if (!s) throw new Error("enter a server URL");
  const u = new URL(s, location.href);
  if (!["http:", "https:", "ws:", "wss:"].includes(u.protocol)) throw new Error(`unsupported URL scheme ${u.protocol}`);
  return u.href;
}

async function connect() {
  banner("");
  let url;
  try {
    url = resolveServer(ui.server.value);
  } catch (e) {
    banner(errText(e));
    return;
  }
  await disconnect(true);
  setState("connecting", "connecting…");
  ui.connect.disabled = true;
  const transport = ui.transport.value;
  const dialect = ui.dialectChoice.value;
  log("info", `connecting to ${url} (transport ${transport}, dialect ${dialect})`);
  try {
    const mod = await loadPackage();
    const c = await mod.McpTaskClient.connect(url, {
      transport,
      dialect,
      clientName: "mcp-task-dashboard",
      // One poller per task across tabs, the session kept across reloads, onDone exactly once.
      persist: true,
      onInput,
      onWarning: (w) => log("warn", `${w?.taskId ? `${w.taskId}: ` : ""}${errText(w?.error ?? w)}`, w),
    });
    client = c;
    serverUrl = url;
    rememberServer(url);
    setState("connected", "connected");
    ui.disconnect.disabled = false;
    showSession();
    subscribeClientEvents(c);
    log("connect", `connected; dialect ${readProp(c, "dialect") ?? "?"}`, { protocolVersion: readProp(c, "protocolVersion"), serverInfo: readProp(c, "serverInfo") });
    await refreshTools();
    restoreTracked();
  } catch (e) {
    setState("error", "connection failed");
    banner(`Could not connect: ${errText(e)}`);
    log("error", `connect failed: ${errText(e)}`, e);
  } finally {
    ui.connect.disabled = false;
  }
}

async function disconnect(quiet = false) {
  const c = client;
  client = null;
  for (const card of cards.values()) {
    card.abort?.abort();
    card.off?.();
  }
  cards.clear();
  replace(ui.tasks, el("p", { className: "muted empty" }, "No tasks yet."));
  for (const p of pendingInputs.values()) p.node.remove();
  pendingInputs.clear();
  updateInputCount();
  if (c) {
    try {
      await c.close?.();
    } catch (e) {
      log("warn", `close: ${errText(e)}`);
    }
    if (!quiet) log("info", "disconnected");
  }
  ui.disconnect.disabled = true;
  if (!quiet) setState("idle", "not connected");
  replace(ui.dialect, "—");
  replace(ui.protocol, "—");
  replace(ui.serverName, "—");
  ui.role.dataset.role = "unknown";
  replace(ui.role, "—");
  replace(ui.tools, el("p", { className: "muted" }, "Connect to list tools."));
}

/** Client-wide events, where the package offers them (transitions, …); optional. */
function subscribeClientEvents(c) {
  clientLogsTransitions = false;
  if (typeof c.onTransition === "function") {
    try {
      c.onTransition((tr) => {
        const snap = typeof c.task === "function" ? c.task(String(tr?.taskId)) : null;
        const msg = typeof snap?.statusMessage === "string" ? `: ${snap.statusMessage}` : "";
        log("status", `${tr?.taskId} ${tr?.from ?? "new"} → ${tr?.to}${msg}`, tr);
      });
      clientLogsTransitions = true;
    } catch {
      // optional API
    }
  }
  for (const hook of ["onEvent"]) {
    if (typeof c[hook] === "function") {
      try {
        c[hook]((ev) => {
          const type = ev?.type ?? hook;
          if (type === "transition") return; // the task cards log their own transitions
          log(type === "warning" ? "warn" : "client", `${type}: ${errText(ev?.error ?? ev?.message ?? ev)}`, ev);
        });
      } catch {
        // optional API
      }
    }
  }
}

// ---------------------------------------------------------------- tools
async function refreshTools() {
  let listed;
  try {
    listed = await client.listTools();
  } catch (e) {
    replace(ui.tools, el("p", { className: "error" }, `tools/list failed: ${errText(e)}`));
    log("error", `tools/list failed: ${errText(e)}`, e);
    return;
  }
  const tools = Array.isArray(listed) ? listed : Array.isArray(listed?.tools) ? listed.tools : [];
  log("info", `${tools.length} tools listed`);
  if (tools.length === 0) {
    replace(ui.tools, el("p", { className: "muted" }, "The server lists no tools."));
    return;
  }
  replace(ui.tools, tools.map((t) => toolRow(t)));
}

function taskSupportOf(tool) {
  const ts = tool?.execution?.taskSupport;
  if (typeof ts === "string") return ts;
  const d = readProp(client, "dialect");
  if (d === "draft") return "any (draft)";
  if (d === "modern") return "server decides";
  return "forbidden";
}

function toolRow(tool) {
  const name = typeof tool?.name === "string" ? tool.name : "";
  const support = taskSupportOf(tool);
  const idBase = `tool-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const args = el("textarea", { className: "args", rows: 2, spellcheck: false, id: `${idBase}-args`, value: JSON.stringify(defaultArguments(tool?.inputSchema)) });
  const ttl = el("input", { type: "number", className: "ttl", min: "0", step: "1000", value: "60000", id: `${idBase}-ttl`, title: "ttl in ms" });
  const err = el("span", { className: "error" });
  const start = el("button", { type: "button", className: "start" }, "Start");
  start.addEventListener("click", async () => {
    replace(err);
    let parsed;
    try {
      parsed = args.value.trim() === "" ? {} : JSON.parse(args.value);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("arguments must be a JSON object");
    } catch (e) {
      replace(err, `bad JSON: ${errText(e)}`);
      return;
    }
    const ttlMs = ttl.value === "" ? undefined : Number(ttl.value);
    start.disabled = true;
    try {
      await startTool(name, parsed, ttlMs);
    } finally {
      start.disabled = false;
    }
  });
  return el(
    "div",
    { className: "tool", dataset: { tool: name } },
    el("div", { className: "tool-head" },
      el("code", { className: "tool-name" }, name),
      el("span", { className: `badge support support-${support.split(" ")[0]}`, title: "task support" }, support),
    ),
    typeof tool?.description === "string" ? el("p", { className: "desc" }, tool.description) : null,
    el("div", { className: "tool-form" },
      el("label", { htmlFor: args.id }, "arguments"), args,
      el("label", { htmlFor: ttl.id }, "ttl ms"), ttl,
      start, err),
  );
}

// ---------------------------------------------------------------- tasks
function newCard({ taskId = null, tool = "", args = undefined, restored = false }) {
  const key = `c${++localSeq}`;
  const parts = {
    id: el("code", { className: "task-id" }, taskId ?? "(starting…)"),
    tool: el("span", { className: "tool-name" }, tool || "watched"),
    badge: el("span", { className: "badge status" }, restored ? "restoring" : "starting"),
    bar: el("div", { className: "bar" }),
    progressText: el("span", { className: "progress-text" }),
    message: el("p", { className: "status-message" }),
    meta: el("dl", { className: "meta" }),
    outcome: el("div", { className: "outcome", hidden: true }),
    cancel: el("button", { type: "button", className: "cancel" }, "Cancel"),
    stop: el("button", { type: "button", className: "stop" }, "Stop waiting"),
    rewatch: el("button", { type: "button", className: "rewatch", hidden: true }, "Watch again"),
    forget: el("button", { type: "button", className: "forget" }, "Forget"),
  };
  const node = el(
    "article",
    { className: "task", dataset: { key, taskId: taskId ?? "", status: "starting" } },
    el("header", {}, parts.id, parts.tool, parts.badge),
    el("div", { className: "progress", role: "progressbar", aria: { valuemin: 0, valuemax: 100 } }, parts.bar),
    parts.progressText,
    parts.message,
    parts.meta,
    parts.outcome,
    el("div", { className: "actions" }, parts.cancel, parts.stop, parts.rewatch, parts.forget),
  );
  const card = { key, taskId, tool, args, status: "starting", node, parts, handle: null, abort: null, off: null, done: false };
  parts.cancel.addEventListener("click", () => cancelCard(card));
  parts.stop.addEventListener("click", () => stopWaiting(card));
  parts.rewatch.addEventListener("click", () => watchCard(card));
  parts.forget.addEventListener("click", () => forgetCard(card));
  cards.set(key, card);
  ui.tasks.querySelector(".empty")?.remove();
  ui.tasks.prepend(node);
  return card;
}

function setCardId(card, taskId) {
  if (!taskId || card.taskId === taskId) return;
  card.taskId = String(taskId);
  card.node.dataset.taskId = card.taskId;
  replace(card.parts.id, card.taskId);
}

/** Progress from a status message such as "step 2/5" or "40%"; null when it says nothing. */
function progressOf(message) {
  if (typeof message !== "string") return null;
  const frac = /(\d+)\s*\/\s*(\d+)/.exec(message);
  if (frac && Number(frac[2]) > 0) return Math.min(1, Number(frac[1]) / Number(frac[2]));
  const pct = /(\d+(?:\.\d+)?)\s*%/.exec(message);
  if (pct) return Math.min(1, Number(pct[1]) / 100);
  return null;
}

function setStatus(card, status, message) {
  const prev = card.status;
  card.status = status;
  card.node.dataset.status = status;
  card.parts.badge.className = `badge status status-${status.replace(/[^a-z_]/gi, "")}`;
  replace(card.parts.badge, status.replace(/_/g, " "));
  if (message !== undefined) replace(card.parts.message, message ?? "");
  const frac = TERMINAL.has(status) ? 1 : progressOf(message ?? card.parts.message.textContent);
  const bar = card.node.querySelector(".progress");
  bar.classList.toggle("indeterminate", frac === null && !TERMINAL.has(status) && status !== "stopped");
  card.parts.bar.style.width = frac === null ? "" : `${Math.round(frac * 100)}%`;
  if (frac !== null) bar.setAttribute("aria-valuenow", String(Math.round(frac * 100)));
  replace(card.parts.progressText, frac === null || TERMINAL.has(status) ? "" : `${Math.round(frac * 100)}%`);
  const live = !TERMINAL.has(status) && status !== "stopped";
  card.parts.cancel.disabled = !live || !card.taskId;
  card.parts.stop.disabled = !live;
  card.parts.rewatch.hidden = live || !card.taskId || !client;
  return prev;
}

function renderMeta(card, t) {
  const rows = [];
  const add = (k, v) => {
    if (v !== undefined && v !== null && v !== "") rows.push(el("dt", {}, k), el("dd", {}, String(v)));
  };
  add("created", t.createdAt);
  add("updated", t.lastUpdatedAt);
  add("ttl ms", t.ttlMs ?? t.ttl ?? t.keepAlive);
  add("poll ms", t.pollIntervalMs ?? t.pollInterval ?? t.pollFrequency);
  replace(card.parts.meta, rows);
}

/** A status snapshot from the client (`onStatus`). */
function onTaskStatus(card, t) {
  if (!t || typeof t !== "object") return;
  setCardId(card, t.taskId ?? t.id);
  const status = typeof t.status === "string" ? t.status : "unknown";
  const message = typeof t.statusMessage === "string" ? t.statusMessage : typeof t.error === "string" ? t.error : undefined;
  const prev = setStatus(card, status, message);
  renderMeta(card, t);
  if (prev !== status && !clientLogsTransitions) log("status", `${card.taskId ?? card.key} ${prev} → ${status}${message ? `: ${message}` : ""}`);
  if (card.taskId) updateTracked(serverUrl, card.taskId, { status, statusMessage: message });
  if (TERMINAL.has(status)) dropInputsFor(card.taskId);
}

/** Normalises whatever `onDone` hands over into {status, summary, detail}. */
function describeOutcome(o) {
  let x = o;
  if (x && typeof x === "object" && "end" in x) x = x.end;
  const kind = x?.kind;
  if (kind === "aborted") return { status: "stopped", summary: "stopped waiting (nothing was sent to the server)" };
  if (kind === "failed") return { status: "error", summary: `tracking failed: ${errText(x.error)}`, detail: x.error };
  const task = x?.task ?? null;
  let out = kind === "finished" ? x.outcome : x;
  if (out && typeof out === "object" && out.kind === "result") out = { result: out.result };
  if (out && typeof out === "object" && out.kind === "error") out = { error: out.error };
  const status = typeof task?.status === "string" ? task.status : typeof x?.status === "string" ? x.status : null;
  if (out && typeof out === "object" && "error" in out && out.error) {
    return { status: status ?? "failed", summary: `error: ${errText(out.error)}`, detail: out.error, task };
  }
  const result = out && typeof out === "object" && "result" in out ? out.result : out && typeof out === "object" && Array.isArray(out.content) ? out : null;
  if (result) {
    const texts = Array.isArray(result.content) ? result.content.filter((c) => c?.type === "text").map((c) => String(c.text)) : [];
    const summary = `${result.isError ? "tool error: " : "result: "}${texts.join(" ") || "(no text content)"}`;
    return { status: status ?? "completed", summary, detail: result, task };
  }
  return { status: status ?? "completed", summary: status ? `ended ${status}` : "ended", detail: out ?? x, task };
}

function onTaskDone(card, outcome) {
  if (card.done) return;
  card.done = true;
  const d = describeOutcome(outcome);
  if (d.task) onTaskStatus(card, d.task);
  if (d.status === "stopped") {
    setStatus(card, "stopped", "Stopped waiting; the task may still run on the server.");
    if (card.taskId) updateTracked(serverUrl, card.taskId, { stopped: true });
  } else if (!TERMINAL.has(card.status)) {
    setStatus(card, d.status === "error" ? "unknown" : d.status, undefined);
  }
  showOutcome(card, d.summary, d.detail);
  card.node.dataset.done = "true";
  log("done", `${card.taskId ?? card.key} (${card.tool || "watched"}): ${d.summary}`);
  if (card.taskId) updateTracked(serverUrl, card.taskId, { status: card.status, summary: d.summary.slice(0, 500) });
  if (card.taskId) dropInputsFor(card.taskId);
  card.off?.();
  card.off = null;
}

/** Summary line plus the raw JSON (collapsed), all as text. */
function showOutcome(card, summary, detail) {
  card.parts.outcome.hidden = false;
  replace(
    card.parts.outcome,
    el("p", { className: "summary" }, summary),
    detail === undefined ? null : el("details", {}, el("summary", {}, "raw"), el("pre", {}, pretty(detail))),
  );
}

/** Wires a TaskHandle (from callTool or watch) to a card. */
function attach(card, handle) {
  card.handle = handle;
  card.done = false;
  delete card.node.dataset.done;
  setCardId(card, readProp(handle, "id", "taskId"));
  const offs = [];
  if (typeof handle?.onStatus === "function") {
    const off = handle.onStatus((t) => onTaskStatus(card, t));
    if (typeof off === "function") offs.push(off);
  }
  if (typeof handle?.onDone === "function") {
    const off = handle.onDone((o) => onTaskDone(card, o));
    if (typeof off === "function") offs.push(off);
  } else if (typeof handle?.result === "function") {
    handle.result().then((o) => onTaskDone(card, o), (e) => onTaskDone(card, { kind: "failed", error: e }));
  }
  card.off = () => offs.forEach((f) => f());
  const snapshot = readProp(handle, "task");
  const status = readProp(handle, "status");
  if (snapshot && typeof snapshot === "object") onTaskStatus(card, snapshot);
  else if (typeof status === "string") onTaskStatus(card, { taskId: card.taskId, status });
  else if (status && typeof status === "object") onTaskStatus(card, status);
  if (card.taskId && card.tool !== "") track(serverUrl, { taskId: card.taskId, tool: card.tool, args: card.args, startedAt: Date.now(), status: card.status });
  else if (card.taskId) updateTracked(serverUrl, card.taskId, { stopped: false });
}

async function startTool(name, args, ttlMs) {
  if (!client) return;
  const card = newCard({ tool: name, args });
  const abort = new AbortController();
  card.abort = abort;
  log("call", `tools/call ${name} ${JSON.stringify(args)}`);
  try {
    const handle = await client.callTool(name, args, { ttlMs, signal: abort.signal });
    attach(card, handle);
    if (!card.taskId) {
      replace(card.parts.id, "(no task: answered directly)");
      card.node.dataset.taskId = "";
    }
    if (card.status === "starting") setStatus(card, "working");
    log("task", card.taskId ? `task ${card.taskId} created for ${name}` : `${name} runs without a task`);
  } catch (e) {
    setStatus(card, "failed", `could not start: ${errText(e)}`);
    card.done = true;
    card.node.dataset.done = "true";
    showOutcome(card, `could not start: ${errText(e)}`, e);
    log("error", `tools/call ${name} failed: ${errText(e)}`, e);
  }
}

async function watchCard(card) {
  if (!client || !card.taskId) return;
  card.off?.();
  const abort = new AbortController();
  card.abort = abort;
  card.done = false;
  setStatus(card, "watching", undefined);
  log("watch", `watching ${card.taskId}`);
  try {
    const handle = await client.watch(card.taskId, { signal: abort.signal });
    attach(card, handle);
  } catch (e) {
    setStatus(card, "unknown", `watch failed: ${errText(e)}`);
    log("error", `watch ${card.taskId} failed: ${errText(e)}`, e);
  }
}

async function cancelCard(card) {
  const taskId = card.taskId;
  if (!client || !taskId) return;
  card.parts.cancel.disabled = true;
  log("cancel", `cancel requested for ${taskId}`);
  try {
    if (typeof card.handle?.cancel === "function") await card.handle.cancel();
    else if (typeof client.cancel === "function") await client.cancel(taskId);
    else throw new Error("this client cannot cancel");
    log("cancel", `cancel sent for ${taskId}; waiting for the server to confirm`);
  } catch (e) {
    card.parts.cancel.disabled = false;
    log("error", `cancel ${taskId} failed: ${errText(e)}`, e);
  }
}

function stopWaiting(card) {
  log("stop", `stop waiting for ${card.taskId ?? card.key} (local only)`);
  if (card.abort && !card.abort.signal.aborted) card.abort.abort();
  else if (typeof card.handle?.stop === "function") card.handle.stop();
  else if (typeof card.handle?.unsubscribe === "function") card.handle.unsubscribe();
  // If the handle reports nothing, mark it here; onDone will not run twice.
  setTimeout(() => {
    if (!card.done) onTaskDone(card, { kind: "aborted" });
  }, 500);
}

function forgetCard(card) {
  if (!card.done && card.abort && !card.abort.signal.aborted) card.abort.abort();
  card.done = true;
  card.off?.();
  if (card.taskId) forget(serverUrl, card.taskId);
  cards.delete(card.key);
  card.node.remove();
  if (cards.size === 0) replace(ui.tasks, el("p", { className: "muted empty" }, "No tasks yet."));
  log("info", `forgot ${card.taskId ?? card.key}`);
}

/** After a (re)connect: show every remembered task and watch the ones still running. */
function restoreTracked() {
  const list = loadTracked(serverUrl);
  if (list.length === 0) return;
  log("info", `restoring ${list.length} remembered task(s)`);
  for (const t of list) {
    const card = newCard({ taskId: t.taskId, tool: t.tool ?? "", args: t.args, restored: true });
    if (t.stopped || TERMINAL.has(t.status)) {
      card.done = true;
      setStatus(card, t.stopped ? "stopped" : t.status, t.statusMessage);
      if (t.summary) showOutcome(card, `${t.summary} (from before the reload; "Watch again" asks the server)`);
    } else {
      watchCard(card);
    }
  }
}

// ---------------------------------------------------------------- input requests
function updateInputCount() {
  replace(ui.inputCount, String(pendingInputs.size));
  ui.inputCount.dataset.count = String(pendingInputs.size);
  if (pendingInputs.size === 0 && !ui.inputs.querySelector(".empty")) {
    replace(ui.inputs, el("p", { className: "muted empty" }, "No task is waiting for input."));
  }
}

function dropInputsFor(taskId) {
  if (!taskId) return;
  for (const [id, p] of pendingInputs) {
    if (p.taskId === taskId) {
      p.node.remove();
      pendingInputs.delete(id);
      p.settle(null, new Error("the task ended before the answer was sent"));
    }
  }
  updateInputCount();
}

/**
 * `onInput` for the client: shows a form and resolves with the answer (the JSON-RPC result), or
 * rejects (the client then answers with a JSON-RPC error).
 */
function onInput(req) {
  const method = String(req?.method ?? req?.request?.method ?? "");
  const params = req?.params ?? req?.request?.params ?? {};
  const taskId = req?.taskId ?? params?._meta?.["io.modelcontextprotocol/related-task"]?.taskId ?? params?._meta?.["modelcontextprotocol.io/related-task"]?.taskId ?? null;
  const id = `in${++localSeq}`;
  log("input", `${method} requested${taskId ? ` by ${taskId}` : ""}`, params);
  if (method === "roots/list") {
    log("input", "roots/list answered with no roots");
    return Promise.resolve({ roots: [] });
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (value, error) => {
      if (settled) return;
      settled = true;
      node.remove();
      pendingInputs.delete(id);
      updateInputCount();
      if (error) reject(error);
      else resolve(value);
    };
    const node = inputForm(id, method, params, taskId, settle);
    ui.inputs.querySelector(".empty")?.remove();
    ui.inputs.append(node);
    pendingInputs.set(id, { node, settle, taskId });
    updateInputCount();
    node.querySelector("input, textarea, select, button")?.focus();
  });
}

function inputForm(id, method, params, taskId, settle) {
  const err = el("p", { className: "error" });
  const head = el("header", {},
    el("span", { className: "badge method" }, method || "request"),
    taskId ? el("code", { className: "task-id" }, String(taskId)) : null);
  const message = typeof params?.message === "string" ? el("p", { className: "prompt" }, params.message) : null;
  const form = el("form", { className: "input-request", dataset: { inputId: id, method, taskId: taskId ?? "" } }, head, message);
  form.addEventListener("submit", (e) => e.preventDefault());
  const button = (label, cls, fn) => el("button", { type: "button", className: cls, on: { click: fn } }, label);

  if (method === "elicitation/create" && params?.mode !== "url") {
    const fields = schemaFields(params?.requestedSchema, id);
    form.append(fields.node, err, el("div", { className: "actions" },
      button("Accept", "accept primary", () => {
        const r = fields.read();
        if (!r.ok) return replace(err, r.error);
        log("input", `answered ${method} (accept)`, r.content);
        settle({ action: "accept", content: r.content });
      }),
      button("Decline", "decline", () => { log("input", `answered ${method} (decline)`); settle({ action: "decline" }); }),
      button("Cancel", "cancel-input", () => { log("input", `answered ${method} (cancel)`); settle({ action: "cancel" }); }),
    ));
  } else if (method === "elicitation/create") {
    // URL mode: show the URL as text only (never a live link to a server-chosen address).
    form.append(el("p", {}, "The server asks you to visit: ", el("code", {}, String(params?.url ?? ""))), el("div", { className: "actions" },
      button("Done", "accept primary", () => settle({ action: "accept" })),
      button("Decline", "decline", () => settle({ action: "decline" })),
    ));
  } else if (method === "sampling/createMessage") {
    const msgs = Array.isArray(params?.messages) ? params.messages : [];
    const convo = el("div", { className: "conversation" }, msgs.map((m) =>
      el("p", {}, el("strong", {}, `${m?.role ?? "?"}: `), m?.content?.type === "text" ? String(m.content.text) : pretty(m?.content))));
    const text = el("textarea", { className: "sample-text", rows: 3, id: `${id}-text`, placeholder: "Reply as the model" });
    form.append(convo, el("label", { htmlFor: text.id }, "Reply"), text, err, el("div", { className: "actions" },
      button("Send", "accept primary", () => {
        log("input", `answered ${method}`, { text: text.value });
        settle({ role: "assistant", content: { type: "text", text: text.value }, model: "dashboard-user", stopReason: "endTurn" });
      }),
      button("Reject", "decline", () => { log("input", `rejected ${method}`); settle(null, new Error("the user rejected the sampling request")); }),
    ));
  } else {
    const text = el("textarea", { className: "raw-result", rows: 4, id: `${id}-raw`, value: "{}" });
    form.append(el("pre", {}, pretty(params)), el("label", { htmlFor: text.id }, "Result (JSON)"), text, err, el("div", { className: "actions" },
      button("Send", "accept primary", () => {
        try {
          settle(JSON.parse(text.value));
        } catch (e) {
          replace(err, `bad JSON: ${errText(e)}`);
        }
      }),
      button("Reject", "decline", () => settle(null, new Error("the user rejected the request"))),
    ));
  }
  return form;
}

// ---------------------------------------------------------------- wiring
ui.form.addEventListener("submit", (e) => {
  e.preventDefault();
  connect();
});
ui.disconnect.addEventListener("click", () => disconnect());
ui.watchForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const id = ui.watchId.value.trim();
  if (!id || !client) return;
  const existing = [...cards.values()].find((c) => c.taskId === id);
  const card = existing ?? newCard({ taskId: id, tool: "", restored: true });
  if (!existing) track(serverUrl, { taskId: id, tool: "", args: undefined, startedAt: Date.now() });
  ui.watchId.value = "";
  watchCard(card);
});
ui.clearFinished.addEventListener("click", () => {
  for (const card of [...cards.values()]) if (card.done || TERMINAL.has(card.status)) forgetCard(card);
});
ui.clearLog.addEventListener("click", () => ui.log.replaceChildren());

/** Initial server URL: `?server=` wins, then the demo's /demo-config.json, then the last one used. */
async function init() {
  const q = new URLSearchParams(location.search);
  if (q.get("transport")) ui.transport.value = q.get("transport") === "websocket" ? "websocket" : "http";
  const d = q.get("dialect");
  if (d && ["auto", "modern", "legacy", "draft"].includes(d)) ui.dialectChoice.value = d;
  let server = q.get("server");
  let auto = q.get("autoconnect") !== "0" && server !== null;
  if (!server) {
    try {
      const r = await fetch(new URL("/demo-config.json", location.href), { cache: "no-store" });
      if (r.ok) {
        const cfg = await r.json();
        if (typeof cfg?.serverUrl === "string") {
          server = cfg.serverUrl;
          auto = q.get("autoconnect") !== "0";
        }
      }
    } catch {
      // no demo config: a plain static host
    }
  }
  ui.server.value = server ?? lastServer();
  showRole(undefined);
  replace(ui.role, "—");
  log("info", `dashboard ready; package at ${PKG_URL}`);
  if (auto && ui.server.value) connect();
}

init();
