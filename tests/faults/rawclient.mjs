// A minimal raw-fetch MCP client (legacy 2025-11-25 and modern 2026-07-28 task calls), used only to
// self-test the fault proxy against the real servers before/without the wasm client.
import { SseSplitter, parseEvent } from "./proxy.mjs";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const EXT = "io.modelcontextprotocol/tasks";

/** Reads a response body (JSON or SSE) into {status, headers, messages, text, error}. */
export async function readMessages(res) {
  const ct = res.headers.get("content-type") || "";
  const out = { status: res.status, headers: res.headers, messages: [], text: "", error: null };
  try {
    const text = await res.text();
    out.text = text;
    if (ct.includes("text/event-stream")) {
      const sp = new SseSplitter();
      for (const raw of sp.push(text)) {
        const ev = parseEvent(raw);
        if (ev.data == null || ev.data === "") continue;
        try { out.messages.push(JSON.parse(ev.data)); } catch { out.messages.push({ __unparsed: ev.data }); }
      }
      out.rest = sp.rest();
    } else if (ct.includes("application/json") && text) {
      try {
        const v = JSON.parse(text);
        out.messages = Array.isArray(v) ? v : [v];
      } catch { out.messages.push({ __unparsed: text }); }
    }
  } catch (e) {
    out.error = e;
  }
  return out;
}

export class RawClient {
  constructor(url, { dialect = "legacy", timeoutMs = 5000 } = {}) {
    this.url = url;
    this.dialect = dialect;
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.session = null;
  }

  headers(method, name) {
    const h = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.dialect === "modern") {
      h["mcp-protocol-version"] = MODERN;
      h["mcp-method"] = method;
      if (name !== undefined) h["mcp-name"] = name;
    } else {
      if (this.session) h["mcp-session-id"] = this.session;
      if (this.session) h["mcp-protocol-version"] = LEGACY;
    }
    return h;
  }

  /** Sends one request; resolves to readMessages() plus `response` (the message with our id). */
  async request(method, params = {}, { name, timeoutMs } = {}) {
    const id = this.nextId++;
    if (this.dialect === "modern") {
      params = {
        ...params,
        _meta: {
          ...(params._meta || {}),
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } },
          "io.modelcontextprotocol/clientInfo": { name: "fault-selftest", version: "0" },
        },
      };
    }
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.headers(method, name),
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      signal: AbortSignal.timeout(timeoutMs ?? this.timeoutMs),
    });
    const out = await readMessages(res);
    out.id = id;
    out.response = out.messages.find((m) => m && m.id === id && ("result" in m || "error" in m));
    return out;
  }

  async notify(method, params = {}) {
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.headers(method),
      body: JSON.stringify({ jsonrpc: "2.0", method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await res.arrayBuffer().catch(() => {});
    return res.status;
  }

  async connect() {
    if (this.dialect === "modern") return this;
    this.session = null;
    const r = await this.request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "fault-selftest", version: "0" },
    });
    if (!r.response || r.response.error) throw new Error(`initialize failed: ${r.status} ${r.text.slice(0, 200)}`);
    this.session = r.headers.get("mcp-session-id");
    await this.notify("notifications/initialized");
    return this;
  }

  /** Calls a tool as a task; returns {out, task} where task is the created task snapshot (or null). */
  async callTask(tool, args, ttl = 60000) {
    const params = this.dialect === "modern" ? { name: tool, arguments: args } : { name: tool, arguments: args, task: { ttl } };
    const out = await this.request("tools/call", params, { name: tool });
    const r = out.response?.result;
    const task = r?.task ?? (r && typeof r.taskId === "string" ? r : null);
    return { out, task };
  }

  async getTask(taskId, opts = {}) {
    const out = await this.request("tasks/get", { taskId }, { name: taskId, ...opts });
    return { out, task: out.response?.result ?? null };
  }

  /** Polls until terminal (bounded); returns the final task snapshot. */
  async waitTask(taskId, { intervalMs = 300, deadlineMs = 20000 } = {}) {
    const end = Date.now() + deadlineMs;
    while (Date.now() < end) {
      const { task } = await this.getTask(taskId);
      if (task && ["completed", "failed", "cancelled"].includes(task.status)) return task;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    throw new Error(`task ${taskId} did not finish in ${deadlineMs} ms`);
  }
}
