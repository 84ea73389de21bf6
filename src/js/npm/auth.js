// Host helpers for the `auth` option in pages and Electron renderers: a popup with its return
// page, and grant stores. Wiring only: every OAuth decision is in the package itself.

const MESSAGE = "mcp-task-client:oauth-callback";

/**
 * `openAuthorization` through a popup: opens `url`, resolves with the URL the return page
 * reports (call `completeAuthorization()` there). Rejects when the popup is blocked or closed.
 * Call the client's `connect` from a user gesture (a click) so the popup is allowed.
 */
export function popupAuthorization({ features = "popup,width=520,height=720", name = "mcp-oauth" } = {}) {
  return (url) =>
    new Promise((resolve, reject) => {
      const popup = window.open(url, name, features);
      if (!popup) return reject(new Error("the authorization popup was blocked"));
      const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(MESSAGE) : null;
      const done = (fn, value) => {
        window.removeEventListener("message", onMessage);
        channel?.close();
        clearInterval(watch);
        fn(value);
      };
      const take = (data) => {
        if (data?.type === MESSAGE && typeof data.url === "string") done(resolve, data.url);
      };
      // Only this origin's return page is listened to.
      const onMessage = (e) => e.origin === window.location.origin && take(e.data);
      window.addEventListener("message", onMessage);
      if (channel) channel.onmessage = (e) => take(e.data);
      const watch = setInterval(() => {
        if (popup.closed) setTimeout(() => done(reject, new Error("the authorization window was closed")), 500);
      }, 500);
    });
}

/**
 * For the return page (the redirect URI): hands this page's URL to the window that opened the
 * popup (or any tab of this origin, when the authorization server cut the opener), then closes.
 */
export function completeAuthorization() {
  const data = { type: MESSAGE, url: window.location.href };
  window.opener?.postMessage(data, window.location.origin);
  if (typeof BroadcastChannel === "function") {
    const c = new BroadcastChannel(MESSAGE);
    c.postMessage(data);
    c.close();
  }
  window.close();
}

/** A store in memory (the default behaviour, as an object to share between clients). */
export function memoryStore() {
  let grant;
  return { load: () => grant, save: (g) => void (grant = g) };
}

/**
 * A store in Web Storage under `key`: `localStorage` keeps the grant across reloads and shares
 * it between tabs (one tab refreshes, the others adopt the new tokens); `sessionStorage` keeps
 * it for this tab only. Anything readable by scripts of the origin: mind XSS.
 */
export function webStorageStore(storage, key = "mcp-task-client:oauth") {
  return {
    load: () => {
      try {
        return JSON.parse(storage.getItem(key) ?? "null") ?? undefined;
      } catch {
        return undefined;
      }
    },
    save: (g) => storage.setItem(key, JSON.stringify(g)),
  };
}
