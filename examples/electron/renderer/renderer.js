// Renderer of the Electron example: the mcp-task-client package (web target) in a sandboxed page, served
// from app://bundle/ or loaded as a file:// page (`--file`). Server text only ever reaches the page as
// text (textContent / text nodes).
import init, { McpTaskClient } from "../pkg/index.js";

const $ = (id) => document.getElementById(id);
const text = (tag, s, cls) => {
  const n = document.createElement(tag);
  n.textContent = s;
  if (cls) n.className = cls;
  return n;
};
let client = null;

/** The wasm for `init`: bytes from the preload bridge (a file:// page cannot fetch them), else fetched. */
async function wasm() {
  return window.mcpDemo?.wasm ? window.mcpDemo.wasm() : undefined;
}

/** Main-process config through the preload bridge; a plain browser (no bridge) reads ?server=. */
async function config() {
  if (window.mcpDemo) return window.mcpDemo.config();
  const q = new URLSearchParams(location.search);
  return { serverUrl: q.get("server") ?? "http://127.0.0.1:3000/mcp", dialect: q.get("dialect") ?? "auto", versions: {} };
}

function setState(state, label) {
  $("state").dataset.state = state;
  $("state").textContent = label;
}

/** Answers elicitation with a small form (string/number/boolean fields) and sampling with one text box. */
function onInput(req) {
  return new Promise((resolve, reject) => {
    const form = document.createElement("form");
    form.className = "ask";
    form.append(text("strong", `${req.method}${req.taskId ? ` (task ${req.taskId})` : ""}`));
    if (typeof req.params?.message === "string") form.append(text("p", req.params.message));
    const fields = [];
    if (req.method === "elicitation/create") {
      for (const [key, prop] of Object.entries(req.params?.requestedSchema?.properties ?? {})) {
        const label = text("label", `${prop?.title ?? key} `);
        const input = document.createElement("input");
        input.type = prop?.type === "boolean" ? "checkbox" : prop?.type === "number" || prop?.type === "integer" ? "number" : "text";
        label.append(input);
        form.append(label);
        fields.push([key, prop?.type, input]);
      }
    } else if (req.method === "sampling/createMessage") {
      const input = document.createElement("input");
      input.type = "text";
      input.placeholder = "reply as the model";
      form.append(input);
      fields.push(["text", "string", input]);
    } else if (req.method === "roots/list") {
      return resolve({ roots: [] });
    }
    const ok = text("button", "Send");
    const no = text("button", "Decline");
    no.type = "button";
    form.append(ok, no);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      form.remove();
      if (req.method === "sampling/createMessage") {
        resolve({ role: "assistant", content: { type: "text", text: fields[0][2].value }, model: "electron-user", stopReason: "endTurn" });
        return;
      }
      const content = {};
      for (const [key, type, input] of fields) {
        if (type === "boolean") content[key] = input.checked;
        else if (input.value !== "") content[key] = type === "number" || type === "integer" ? Number(input.value) : input.value;
      }
      resolve({ action: "accept", content });
    });
    no.addEventListener("click", () => {
      form.remove();
      if (req.method === "elicitation/create") resolve({ action: "decline" });
      else reject(new Error("declined by the user"));
    });
    $("inputs").append(form);
  });
}

function track(name, handle) {
  const li = document.createElement("li");
  const id = text("code", handle.id ?? "(no task)");
  const status = text("span", handle.status ?? "working", "status");
  const msg = text("div", "", "msg");
  const out = text("div", "", "out");
  const cancel = text("button", "Cancel");
  cancel.addEventListener("click", () => handle.cancel().catch((e) => (out.textContent = `cancel failed: ${e.message}`)));
  li.append(text("strong", name), " ", id, status, cancel, msg, out);
  $("tasks").prepend(li);
  handle.onStatus((t) => {
    id.textContent = t.taskId;
    status.textContent = t.status;
    msg.textContent = t.statusMessage ?? "";
  });
  handle.onDone((done) => {
    cancel.disabled = true;
    status.textContent = done.status ?? done.kind;
    const result = done.outcome?.kind === "result" ? done.outcome.result : null;
    const body = result
      ? (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(" ")
      : done.outcome?.error?.message ?? done.error?.message ?? done.kind;
    out.textContent = body;
    // A desktop notification: body is plain text by definition.
    if (Notification.permission === "granted") new Notification(`${name}: ${status.textContent}`, { body });
  });
}

async function connect(url, dialect) {
  setState("connecting", "connecting…");
  try {
    await client?.close();
    // `persist` keeps tasks across reloads where the origin has storage; on a file:// page (an opaque
    // origin) it keeps them in memory for this window, and `onWarning` says so.
    client = await McpTaskClient.connect(url, { dialect, onInput, persist: true, onWarning: (w) => ($("notice").textContent = w.error.message) });
    setState("connected", `connected (${client.dialect}, tasks in ${client.storage})`);
    const tools = await client.listTools();
    const list = tools.tools;
    $("tool").replaceChildren(...list.map((t) => text("option", t.name)));
    $("start").hidden = false;
  } catch (e) {
    setState("error", `failed: ${e?.message ?? e}`);
  }
}

await init(await wasm());
const cfg = await config();
$("server").value = cfg.serverUrl;
$("foot").textContent = cfg.versions?.electron ? `Electron ${cfg.versions.electron}, Chrome ${cfg.versions.chrome}` : "plain browser";
if (Notification.permission === "default") Notification.requestPermission().catch(() => {});
$("connect").addEventListener("submit", (e) => {
  e.preventDefault();
  connect($("server").value, cfg.dialect);
});
$("start").addEventListener("submit", async (e) => {
  e.preventDefault();
  let args;
  try {
    args = JSON.parse($("args").value || "{}");
  } catch (err) {
    $("foot").textContent = `bad JSON: ${err.message}`;
    return;
  }
  try {
    track($("tool").value, await client.callTool($("tool").value, args, { ttlMs: 60_000 }));
  } catch (err) {
    $("foot").textContent = `call failed: ${err?.message ?? err}`;
  }
});
connect(cfg.serverUrl, cfg.dialect);
