// Remembers the tasks this page tracks, per server URL, so a reload can `watch` them again.
// Only ids and what the page itself showed are kept (tool name, arguments, last status) — never results.

const PREFIX = "mcp-task-dashboard:v1:";
const MAX = 50;

function key(serverUrl) {
  return PREFIX + serverUrl;
}

/** @returns {Array<{taskId: string, tool: string, args: any, startedAt: number, status?: string, statusMessage?: string}>} */
export function loadTracked(serverUrl) {
  try {
    const raw = localStorage.getItem(key(serverUrl));
    const list = raw ? JSON.parse(raw) : [];
    return Array.isArray(list) ? list.filter((t) => t && typeof t.taskId === "string") : [];
  } catch {
    return [];
  }
}

function save(serverUrl, list) {
  try {
    localStorage.setItem(key(serverUrl), JSON.stringify(list.slice(-MAX)));
  } catch {
    // storage full or disabled: the dashboard still works, it just forgets on reload
  }
}

export function track(serverUrl, entry) {
  const list = loadTracked(serverUrl).filter((t) => t.taskId !== entry.taskId);
  list.push(entry);
  save(serverUrl, list);
}

export function updateTracked(serverUrl, taskId, patch) {
  const list = loadTracked(serverUrl);
  const t = list.find((x) => x.taskId === taskId);
  if (!t) return;
  Object.assign(t, patch);
  save(serverUrl, list);
}

export function forget(serverUrl, taskId) {
  save(serverUrl, loadTracked(serverUrl).filter((t) => t.taskId !== taskId));
}

export function lastServer() {
  try {
    return localStorage.getItem(PREFIX + "last-server") ?? "";
  } catch {
    return "";
  }
}

export function rememberServer(url) {
  try {
    localStorage.setItem(PREFIX + "last-server", url);
  } catch {
    // ignore
  }
}
