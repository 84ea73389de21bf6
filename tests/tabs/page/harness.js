// Page side of tests/tabs: a thin layer over the package so the Node test can drive several tabs.
// Everything a tab observes is reported to the test through the `report` binding (it survives reloads).
import init, { McpTaskClient } from "/pkg/index.js";

const report = (ev) => {
  try {
    window.report?.({ ...ev, at: Date.now() });
  } catch {
    // the test went away
  }
};

window.T = {
  clients: [],
  handles: [],

  /** Connects with persistence on (tabs shared); `answer`: answer elicitations with it. */
  async connect(url, { answer, ...opts } = {}) {
    const ci = this.clients.length;
    const onInput =
      answer === undefined
        ? undefined
        : async (req) => {
            report({ type: "input", client: ci, taskId: req.taskId ?? null, method: req.method });
            return { action: "accept", content: { answer } };
          };
    const c = await McpTaskClient.connect(url, {
      persist: true,
      onInput,
      ...opts,
      onWarning: (w) => report({ type: "warning", taskId: w.taskId ?? null, message: w.error?.message }),
    });
    c.onTransition((t) => report({ type: "transition", client: ci, taskId: t.taskId, to: t.to }));
    // "done": the once-across-tabs-and-reloads report; "handleDone": each handle's own onDone.
    c.onTaskDoneOnce((d) => report({ type: "done", client: ci, taskId: d.taskId, kind: d.kind, status: d.status ?? null }));
    this.clients[ci] = c;
    return ci;
  },

  role(ci = 0) {
    return this.clients[ci].role;
  },

  storage(ci = 0) {
    return this.clients[ci].storage;
  },

  track(h, ci) {
    this.handles.push(h);
    h.onStatus((t) => report({ type: "status", client: ci, taskId: t.taskId, status: t.status }));
    h.onDone((d) => report({ type: "handleDone", client: ci, taskId: d.taskId, kind: d.kind, status: d.status ?? null }));
    return h.id;
  },

  async call(ci, tool, args = {}, opts = {}) {
    const h = await this.clients[ci].callTool(tool, args, opts);
    return this.track(h, ci);
  },

  async callMany(ci, n, tool, args = {}, opts = {}) {
    const ids = [];
    for (let i = 0; i < n; i++) ids.push(await this.call(ci, tool, args, opts));
    return ids;
  },

  watch(ci, id) {
    return this.track(this.clients[ci].watch(id), ci);
  },

  watchMany(ci, ids) {
    return ids.map((id) => this.watch(ci, id));
  },

  async resume(ci = 0) {
    const hs = await this.clients[ci].resume();
    return hs.map((h) => this.track(h, ci));
  },

  /** Resolves when every handle of this page is done (or after `ms`); returns how many are done. */
  async settle(ms) {
    const end = Date.now() + ms;
    while (Date.now() < end && this.handles.some((h) => !h.isDone)) await new Promise((r) => setTimeout(r, 50));
    return this.handles.filter((h) => h.isDone).length;
  },

  async results() {
    return Promise.all(this.handles.map((h) => h.result().then((r) => JSON.stringify(r), (e) => `error: ${e.message}`)));
  },

  /** Every row of every IndexedDB database and every localStorage item of this origin, as text. */
  async dumpStorage() {
    const out = { indexedDB: [], localStorage: [] };
    const dbs = (await indexedDB.databases?.()) ?? [];
    for (const { name } of dbs) {
      const db = await new Promise((res, rej) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      for (const store of db.objectStoreNames) {
        const rows = await new Promise((res, rej) => {
          const r = db.transaction(store, "readonly").objectStore(store).getAll();
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
        for (const row of rows) out.indexedDB.push({ db: name, store, row: JSON.stringify(row) });
      }
      db.close();
    }
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      out.localStorage.push({ key: k, value: localStorage.getItem(k) });
    }
    return out;
  },

  /** Pretends the page became hidden or visible (headless pages are always visible). */
  setVisible(visible) {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (visible ? "visible" : "hidden") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => !visible });
    document.dispatchEvent(new Event("visibilitychange"));
  },

  async closeAll() {
    for (const c of this.clients) await c.close();
  },
};

await init();
window.ready = true;
