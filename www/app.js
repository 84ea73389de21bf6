// @ts-check
// The demo dashboard: connects to any MCP server through the `mcp-task-client` package (wasm, web
// target), lists tools, starts tasks, follows them live, answers input requests, cancels, stops
// waiting, and picks its tasks up again after a reload (`persist: true` + `client.resume()`).
// Type-checked against the package's own declarations (tests/js/types/www.tsconfig.json).
//
// Safety rule for this file: every string that came from a server (or from the URL) reaches the page
// through text nodes only (see lib/dom.js). No innerHTML, no insertAdjacentHTML, no document.write.
import { el, replace, pretty } from "./lib/dom.js";
import { schemaFields, defaultArguments } from "./lib/schema-form.js";
import { lastServer, rememberServer } from "./lib/store.js";

/** @typedef {import("../pkg/index.js")} Package */
/** @typedef {import("../pkg/index.js").McpTaskClient} McpTaskClient */
/** @typedef {import("../pkg/index.js").TaskHandle<import("../pkg/index.js").CallToolResult>} ToolHandle */
/** @typedef {import("../pkg/index.js").Task} Task */
/** @typedef {import("../pkg/index.js").TaskDone} TaskDone */
/** @typedef {import("../pkg/index.js").Tool} Tool */
/** @typedef {import("../pkg/index.js").InputRequestEvent} InputRequestEvent */
/** @typedef {import("../pkg/index.js").InputResult} InputResult */
/** @typedef {import("../pkg/index.js").JsonObject} JsonObject */

/**
 * One task card.
 * @typedef {{ key: string, taskId: string | null, tool: string, status: string, node: HTMLElement,
 *   parts: Record<string, HTMLElement>, handle: ToolHandle | null, off: (() => void) | null, done: boolean }} Card
 */

/** The built package's browser entry (web target), relative to this file. */
const PKG_URL = new URL("../pkg/index.js", import.meta.url).href;
const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown", "expired"]);
const MAX_LOG = 400;

/** @template {HTMLElement} T @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));
const ui = {
  form: $("connect-form"),
  server: /** @type {HTMLInputElement} */ ($("server-url")),
  transport: /** @type {HTMLSelectElement} */ ($("transport")),
  dialectChoice: /** @type {HTMLSelectElement} */ ($("dialect-choice")),
  connect: /** @type {HTMLButtonElement} */ ($("connect")),
  disconnect: /** @type {HTMLButtonElement} */ ($("disconnect")),
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
  watchId: /** @type {HTMLInputElement} */ ($("watch-id")),
  clearFinished: $("clear-finished"),
  log: $("log"),
  clearLog: $("clear-log"),
};

/** @type {Package | null} the imported module, once loaded */
let pkg = null;
/** @type {McpTaskClient | null} */
let client = null;
let localSeq = 0;
/** @type {ReturnType<typeof setInterval> | undefined} refreshes the tab role */
let roleTimer;
/** @type {Map<string, Card>} key → card */
const cards = new Map();
/** @type {Map<string, { node: HTMLElement, settle: (value: InputResult | null, error?: Error) => void, taskId: string | null }>} */
const pendingInputs = new Map();

// ---------------------------------------------------------------- event log
/** @param {string} kind @param {string} text @param {unknown} [detail] */
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

/** @param {string} text @param {string} [kind] */
function banner(text, kind = "error") {
  if (!text) {
    ui.banner.hidden = true;
    return;
  }
  ui.banner.hidden = false;
  ui.banner.dataset.kind = kind;
  replace(ui.banner, text);
}

/**
 * An error's kind and message, with its JSON-RPC code and HTTP status when it has them.
 * @param {{ kind: string, message: string, code?: number | null, httpStatus?: number | null }} e
 */
function infoText(e) {
  const notes = [e.code != null && `code ${e.code}`, e.httpStatus != null && `HTTP ${e.httpStatus}`].filter(Boolean);
  return `${e.kind}: ${e.message}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

/** An error's text: an `McpTaskError` (or any Error) by its message and code, plain data by its fields. @param {unknown} e */
function errText(e) {
  if (e === null || e === undefined) return "unknown error";
  if (typeof e === "string") return e;
  if (pkg && e instanceof pkg.McpTaskError) return infoText(e);
  if (e instanceof Error) return e.message;
  return pretty(e);
}

window.addEventListener("error", (e) => log("error", `page error: ${e.message}`));
window.addEventListener("unhandledrejection", (e) => log("error", `unhandled rejection: ${errText(e.reason)}`));

// ---------------------------------------------------------------- package
/** @returns {Promise<Package>} */
async function loadPackage() {
  if (pkg) return pkg;
  /** @type {Package} */
  let mod;
  try {
    mod = await import(PKG_URL);
  } catch (e) {
    throw new Error(`could not load the package from ${PKG_URL} (build it with scripts/build.sh): ${errText(e)}`);
  }
  await mod.default();
  pkg = mod;
  return mod;
}

// ---------------------------------------------------------------- connection
/** @param {string} state @param {string} [text] */
function setState(state, text) {
  ui.state.dataset.state = state;
  replace(ui.state, text ?? state);
  document.body.dataset.conn = state;
}

/** @param {McpTaskClient} c */
function showSession(c) {
  const { dialect, protocolVersion, serverInfo } = c.session;
  replace(ui.dialect, dialect);
  ui.dialect.dataset.dialect = dialect;
  replace(ui.protocol, protocolVersion);
  replace(ui.serverName, [serverInfo.name, serverInfo.version].filter(Boolean).join(" ") || "—");
  showRole(c.role);
  // The role changes when another tab takes over or hands over: show the current one.
  clearInterval(roleTimer);
  roleTimer = setInterval(() => client && showRole(client.role), 1000);
}

/** @param {string} role */
function showRole(role) {
  ui.role.dataset.role = role;
  replace(ui.role, role === "solo" ? "leader (single tab)" : role);
}

/** @param {string} text */
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
  const transport = ui.transport.value === "websocket" ? "websocket" : "http";
  const dialect = /** @type {"auto" | "modern" | "legacy" | "draft"} */ (ui.dialectChoice.value);
  log("info", `connecting to ${url} (transport ${transport}, dialect ${dialect})`);
  try {
    const mod = await loadPackage();
    const c = await mod.McpTaskClient.connect(url, {
      transport,
      dialect,
      clientName: "mcp-task-dashboard",
      // One poller per task across tabs, the session and the tasks kept across reloads.
      persist: true,
      onInput,
      onWarning: (w) => log("warn", `${w.taskId ? `${w.taskId}: ` : ""}${infoText(w.error)}`, w),
    });
    client = c;
    rememberServer(url);
    setState("connected", "connected");
    ui.disconnect.disabled = false;
    showSession(c);
    c.onTransition((tr) => {
      const msg = c.task(tr.taskId)?.statusMessage;
      log("status", `${tr.taskId} ${tr.from ?? "new"} → ${tr.to}${msg ? `: ${msg}` : ""}`, tr);
    });
    log("connect", `connected; dialect ${c.dialect}; tasks stored in ${c.storage}`, c.session);
    await refreshTools(c);
    await resumeTasks(c);
  } catch (e) {
    setState("error", "connection failed");
    banner(`Could not connect: ${errText(e)}`);
    log("error", `connect failed: ${errText(e)}`, e);
  } finally {
    ui.connect.disabled = false;
  }
}

/** @param {boolean} [quiet] */
async function disconnect(quiet = false) {
  const c = client;
  client = null;
  clearInterval(roleTimer);
  for (const card of cards.values()) card.off?.();
  cards.clear();
  replace(ui.tasks, el("p", { className: "muted empty" }, "No tasks yet."));
  for (const p of pendingInputs.values()) p.node.remove();
  pendingInputs.clear();
  updateInputCount();
  if (c) {
    await c.close();
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

// ---------------------------------------------------------------- tools
/** @param {McpTaskClient} c */
async function refreshTools(c) {
  let tools;
  try {
    tools = (await c.listTools()).tools;
  } catch (e) {
    replace(ui.tools, el("p", { className: "error" }, `tools/list failed: ${errText(e)}`));
    log("error", `tools/list failed: ${errText(e)}`, e);
    return;
  }
  log("info", `${tools.length} tools listed`);
  if (tools.length === 0) {
    replace(ui.tools, el("p", { className: "muted" }, "The server lists no tools."));
    return;
  }
  replace(ui.tools, tools.map((t) => toolRow(t)));
}

/** @param {Tool} tool */
function taskSupportOf(tool) {
  const ts = tool.execution?.taskSupport;
  if (ts) return ts;
  const d = client?.dialect;
  if (d === "draft") return "any (draft)";
  if (d === "modern") return "server decides";
  return "forbidden";
}

/** @param {Tool} tool */
function toolRow(tool) {
  const name = tool.name;
  const support = taskSupportOf(tool);
  const idBase = `tool-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const args = /** @type {HTMLTextAreaElement} */ (el("textarea", { className: "args", rows: 2, spellcheck: false, id: `${idBase}-args`, value: JSON.stringify(defaultArguments(tool.inputSchema)) }));
  const ttl = /** @type {HTMLInputElement} */ (el("input", { type: "number", className: "ttl", min: "0", step: "1000", value: "60000", id: `${idBase}-ttl`, title: "ttl in ms" }));
  const err = el("span", { className: "error" });
  const start = /** @type {HTMLButtonElement} */ (el("button", { type: "button", className: "start" }, "Start"));
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
    tool.description === undefined ? null : el("p", { className: "desc" }, tool.description),
    el("div", { className: "tool-form" },
      el("label", { htmlFor: args.id }, "arguments"), args,
      el("label", { htmlFor: ttl.id }, "ttl ms"), ttl,
      start, err),
  );
}

// ---------------------------------------------------------------- tasks
/** @param {{ taskId?: string | null, tool?: string, restored?: boolean }} init */
function newCard({ taskId = null, tool = "", restored = false }) {
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
  /** @type {Card} */
  const card = { key, taskId, tool, status: "starting", node, parts, handle: null, off: null, done: false };
  parts.cancel.addEventListener("click", () => cancelCard(card));
  parts.stop.addEventListener("click", () => stopWaiting(card));
  parts.rewatch.addEventListener("click", () => watchCard(card));
  parts.forget.addEventListener("click", () => forgetCard(card));
  cards.set(key, card);
  ui.tasks.querySelector(".empty")?.remove();
  ui.tasks.prepend(node);
  return card;
}

/** @param {Card} card @param {string | null} taskId */
function setCardId(card, taskId) {
  if (!taskId || card.taskId === taskId) return;
  card.taskId = taskId;
  card.node.dataset.taskId = taskId;
  replace(card.parts.id, taskId);
}

/** Progress from a status message such as "step 2/5" or "40%"; null when it says nothing. @param {string | undefined} message */
function progressOf(message) {
  if (message === undefined) return null;
  const frac = /(\d+)\s*\/\s*(\d+)/.exec(message);
  if (frac && Number(frac[2]) > 0) return Math.min(1, Number(frac[1]) / Number(frac[2]));
  const pct = /(\d+(?:\.\d+)?)\s*%/.exec(message);
  if (pct) return Math.min(1, Number(pct[1]) / 100);
  return null;
}

/** @param {Card} card @param {string} status @param {string} [message] */
function setStatus(card, status, message) {
  const prev = card.status;
  card.status = status;
  card.node.dataset.status = status;
  card.parts.badge.className = `badge status status-${status.replace(/[^a-z_]/gi, "")}`;
  replace(card.parts.badge, status.replace(/_/g, " "));
  if (message !== undefined) replace(card.parts.message, message);
  const frac = TERMINAL.has(status) ? 1 : progressOf(message ?? card.parts.message.textContent ?? undefined);
  const bar = /** @type {HTMLElement} */ (card.node.querySelector(".progress"));
  bar.classList.toggle("indeterminate", frac === null && !TERMINAL.has(status) && status !== "stopped");
  card.parts.bar.style.width = frac === null ? "" : `${Math.round(frac * 100)}%`;
  if (frac !== null) bar.setAttribute("aria-valuenow", String(Math.round(frac * 100)));
  replace(card.parts.progressText, frac === null || TERMINAL.has(status) ? "" : `${Math.round(frac * 100)}%`);
  const live = !TERMINAL.has(status) && status !== "stopped";
  /** @type {HTMLButtonElement} */ (card.parts.cancel).disabled = !live || !card.taskId;
  /** @type {HTMLButtonElement} */ (card.parts.stop).disabled = !live;
  card.parts.rewatch.hidden = live || !card.taskId || !client;
  return prev;
}

/** @param {Card} card @param {Task} t */
function renderMeta(card, t) {
  /** @type {HTMLElement[]} */
  const rows = [];
  /** @param {string} k @param {string | number | undefined} v */
  const add = (k, v) => {
    if (v !== undefined && v !== "") rows.push(el("dt", {}, k), el("dd", {}, String(v)));
  };
  add("created", t.createdAt);
  add("updated", t.lastUpdatedAt);
  add("ttl ms", t.ttlMs);
  add("poll ms", t.pollIntervalMs);
  replace(card.parts.meta, rows);
}

/** A status snapshot from the client (`onStatus`). @param {Card} card @param {Task} t */
function onTaskStatus(card, t) {
  setCardId(card, t.taskId);
  setStatus(card, t.status, t.statusMessage);
  renderMeta(card, t);
  if (TERMINAL.has(t.status)) dropInputsFor(t.taskId);
}

/** What a card shows for a finished handle: a status, a summary line and the raw JSON. @param {TaskDone} done */
function describeDone(done) {
  if (done.kind === "aborted") return { status: "stopped", summary: "stopped waiting (nothing was sent to the server)" };
  const status = done.status ?? (done.error ? "failed" : "completed");
  if (done.error) {
    // `taskFailed` carries the tool's own text; `rpc` the server's error; `cancelled`/`expired` say so.
    return { status, summary: infoText(done.error), detail: done.error };
  }
  if (done.outcome?.kind === "result") {
    const result = /** @type {import("../pkg/index.js").CallToolResult} */ (/** @type {unknown} */ (done.outcome.result));
    const texts = (result.content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : []));
    const summary = `${result.isError ? "tool error: " : "result: "}${texts.join(" ") || "(no text content)"}`;
    return { status, summary, detail: result };
  }
  return { status, summary: `ended ${status}` };
}

/** @param {Card} card @param {TaskDone} done */
function onTaskDone(card, done) {
  if (card.done) return;
  card.done = true;
  const d = describeDone(done);
  if (done.task && done.kind === "finished") onTaskStatus(card, done.task);
  if (d.status === "stopped") setStatus(card, "stopped", "Stopped waiting; the task may still run on the server.");
  else if (!TERMINAL.has(card.status)) setStatus(card, TERMINAL.has(d.status) ? d.status : "unknown");
  showOutcome(card, d.summary, d.detail);
  card.node.dataset.done = "true";
  log("done", `${card.taskId ?? card.key} (${card.tool || "watched"}): ${d.summary}`);
  if (card.taskId) dropInputsFor(card.taskId);
  card.off?.();
  card.off = null;
}

/** Summary line plus the raw JSON (collapsed), all as text. @param {Card} card @param {string} summary @param {unknown} [detail] */
function showOutcome(card, summary, detail) {
  card.parts.outcome.hidden = false;
  replace(
    card.parts.outcome,
    el("p", { className: "summary" }, summary),
    detail === undefined ? null : el("details", {}, el("summary", {}, "raw"), el("pre", {}, pretty(detail))),
  );
}

/** Wires a TaskHandle (from callTool, watch or resume) to a card. @param {Card} card @param {ToolHandle} handle */
function attach(card, handle) {
  card.handle = handle;
  card.done = false;
  delete card.node.dataset.done;
  setCardId(card, handle.id);
  const offStatus = handle.onStatus((t) => onTaskStatus(card, t));
  const offDone = handle.onDone((d) => onTaskDone(card, d));
  card.off = () => {
    offStatus();
    offDone();
  };
  if (handle.task) onTaskStatus(card, handle.task);
}

/** @param {string} name @param {JsonObject} args @param {number | undefined} ttlMs */
async function startTool(name, args, ttlMs) {
  if (!client) return;
  const card = newCard({ tool: name });
  log("call", `tools/call ${name} ${JSON.stringify(args)}`);
  try {
    const handle = await client.callTool(name, args, { ttlMs });
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

/** @param {Card} card */
function watchCard(card) {
  if (!client || !card.taskId) return;
  card.off?.();
  setStatus(card, "watching");
  log("watch", `watching ${card.taskId}`);
  attach(card, client.watch(card.taskId));
}

/** @param {Card} card */
async function cancelCard(card) {
  if (!card.handle || !card.taskId) return;
  /** @type {HTMLButtonElement} */ (card.parts.cancel).disabled = true;
  log("cancel", `cancel requested for ${card.taskId}`);
  try {
    await card.handle.cancel();
    log("cancel", `cancel sent for ${card.taskId}; waiting for the server to confirm`);
  } catch (e) {
    /** @type {HTMLButtonElement} */ (card.parts.cancel).disabled = false;
    log("error", `cancel ${card.taskId} failed: ${errText(e)}`, e);
  }
}

/** Stops waiting, locally: the handle ends `aborted` and its onDone marks the card. @param {Card} card */
function stopWaiting(card) {
  log("stop", `stop waiting for ${card.taskId ?? card.key} (local only)`);
  card.handle?.stop();
}

/** @param {Card} card */
function forgetCard(card) {
  card.off?.();
  card.handle?.stop();
  card.done = true;
  if (card.taskId) void client?.forget(card.taskId);
  cards.delete(card.key);
  card.node.remove();
  if (cards.size === 0) replace(ui.tasks, el("p", { className: "muted empty" }, "No tasks yet."));
  log("info", `forgot ${card.taskId ?? card.key}`);
}

/** After a (re)connect: the client's stored tasks whose end no tab has seen yet. @param {McpTaskClient} c */
async function resumeTasks(c) {
  /** @type {ToolHandle[]} */
  const handles = await c.resume();
  if (handles.length === 0) return;
  log("info", `resuming ${handles.length} task(s) from before the reload`);
  for (const h of handles) attach(newCard({ taskId: h.id, tool: "resumed", restored: true }), h);
}

// ---------------------------------------------------------------- input requests
function updateInputCount() {
  replace(ui.inputCount, String(pendingInputs.size));
  ui.inputCount.dataset.count = String(pendingInputs.size);
  if (pendingInputs.size === 0 && !ui.inputs.querySelector(".empty")) {
    replace(ui.inputs, el("p", { className: "muted empty" }, "No task is waiting for input."));
  }
}

/** @param {string} taskId */
function dropInputsFor(taskId) {
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
 * `onInput` for the client: answers roots at once, shows a form for the rest and resolves with the
 * answer, or rejects (the client then answers with a JSON-RPC error).
 * @param {InputRequestEvent} req
 * @returns {Promise<InputResult>}
 */
function onInput(req) {
  const id = `in${++localSeq}`;
  log("input", `${req.method} requested${req.taskId ? ` by ${req.taskId}` : ""}`, req.params);
  if (req.method === "roots/list") {
    log("input", "roots/list answered with no roots");
    return Promise.resolve({ roots: [] });
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    /** @param {InputResult | null} value @param {Error} [error] */
    const settle = (value, error) => {
      if (settled) return;
      settled = true;
      node.remove();
      pendingInputs.delete(id);
      updateInputCount();
      if (error || value === null) reject(error ?? new Error("no answer"));
      else resolve(value);
    };
    const node = inputForm(id, req, settle);
    ui.inputs.querySelector(".empty")?.remove();
    ui.inputs.append(node);
    pendingInputs.set(id, { node, settle, taskId: req.taskId });
    updateInputCount();
    /** @type {HTMLElement | null} */ (node.querySelector("input, textarea, select, button"))?.focus();
  });
}

/**
 * @param {string} id
 * @param {InputRequestEvent} req
 * @param {(value: InputResult | null, error?: Error) => void} settle
 */
function inputForm(id, req, settle) {
  const { method, taskId } = req;
  const err = el("p", { className: "error" });
  const head = el("header", {},
    el("span", { className: "badge method" }, method),
    taskId ? el("code", { className: "task-id" }, taskId) : null);
  const form = el("form", { className: "input-request", dataset: { inputId: id, method, taskId: taskId ?? "" } }, head);
  form.addEventListener("submit", (e) => e.preventDefault());
  /** @param {string} label @param {string} cls @param {() => void} fn */
  const button = (label, cls, fn) => el("button", { type: "button", className: cls, on: { click: fn } }, label);

  if (req.method === "elicitation/create" && req.params.mode !== "url") {
    form.append(el("p", { className: "prompt" }, req.params.message));
    const fields = schemaFields(req.params.requestedSchema, id);
    form.append(fields.node, err, el("div", { className: "actions" },
      button("Accept", "accept primary", () => {
        const r = fields.read();
        if (!r.ok) return replace(err, r.error);
        log("input", `answered ${method} (accept)`, r.content);
        settle({ action: "accept", content: /** @type {Record<string, string | number | boolean | string[]>} */ (r.content) });
      }),
      button("Decline", "decline", () => { log("input", `answered ${method} (decline)`); settle({ action: "decline" }); }),
      button("Cancel", "cancel-input", () => { log("input", `answered ${method} (cancel)`); settle({ action: "cancel" }); }),
    ));
  } else if (req.method === "elicitation/create") {
    // URL mode: show the URL as text only (never a live link to a server-chosen address).
    form.append(el("p", { className: "prompt" }, req.params.message), el("p", {}, "The server asks you to visit: ", el("code", {}, req.params.url ?? "")), el("div", { className: "actions" },
      button("Done", "accept primary", () => settle({ action: "accept" })),
      button("Decline", "decline", () => settle({ action: "decline" })),
    ));
  } else if (req.method === "sampling/createMessage") {
    const convo = el("div", { className: "conversation" }, req.params.messages.map((m) =>
      el("p", {}, el("strong", {}, `${m.role}: `), !Array.isArray(m.content) && m.content.type === "text" ? m.content.text : pretty(m.content))));
    const text = /** @type {HTMLTextAreaElement} */ (el("textarea", { className: "sample-text", rows: 3, id: `${id}-text`, placeholder: "Reply as the model" }));
    form.append(convo, el("label", { htmlFor: text.id }, "Reply"), text, err, el("div", { className: "actions" },
      button("Send", "accept primary", () => {
        log("input", `answered ${method}`, { text: text.value });
        settle({ role: "assistant", content: { type: "text", text: text.value }, model: "dashboard-user", stopReason: "endTurn" });
      }),
      button("Reject", "decline", () => { log("input", `rejected ${method}`); settle(null, new Error("the user rejected the sampling request")); }),
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
  ui.watchId.value = "";
  watchCard(existing ?? newCard({ taskId: id, restored: true }));
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
  replace(ui.role, "—");
  log("info", `dashboard ready; package at ${PKG_URL}`);
  if (auto && ui.server.value) connect();
}

init();
