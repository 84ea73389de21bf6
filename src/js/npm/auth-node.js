// Host helper for the `auth` option in Node and Electron's main process: a loopback redirect
// (RFC 8252 §7.3) on 127.0.0.1. Wiring only: every OAuth decision is in the package itself.
import { createServer } from "node:http";

/**
 * Listens on `http://127.0.0.1:<port><path>` and gives `{ redirectUri, openAuthorization, close }`
 * for the `auth` option. `open(url)` shows the authorization page (Electron: `shell.openExternal`;
 * a CLI prints the URL or spawns the system browser). Each `openAuthorization` waits (up to
 * `timeoutMs`) for the browser to come back to the path, answers it with `page`, and resolves
 * with that URL.
 */
export async function loopbackAuthorization({
  open,
  port = 0,
  path = "/callback",
  timeoutMs = 5 * 60_000,
  page = "<!doctype html><title>Signed in</title><p>Signed in. You can close this window.</p>",
} = {}) {
  if (typeof open !== "function") throw new TypeError("loopbackAuthorization needs open(url)");
  let waiting = null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", redirectUri);
    if (url.pathname !== path || !waiting) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    waiting.resolve(url.href);
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${server.address().port}${path}`;
  const openAuthorization = (url) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(reject, new Error("no answer from the browser in time")), timeoutMs);
      const finish = (fn, v) => {
        clearTimeout(timer);
        waiting = null;
        fn(v);
      };
      waiting = { resolve: (v) => finish(resolve, v) };
      Promise.resolve()
        .then(() => open(url))
        .catch((e) => finish(reject, e));
    });
  return { redirectUri, openAuthorization, close: () => new Promise((r) => server.close(r)) };
}
