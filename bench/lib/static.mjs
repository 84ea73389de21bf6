// Static file server for the Chromium page: / (page.html), /out/* (harness bundles), /pkg/* (our package).
import http from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { benchDir, outDir, pkgPath } from "./build.mjs";

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

export function startStatic() {
  const server = http.createServer(async (req, res) => {
    const p = new URL(req.url ?? "/", "http://x").pathname;
    let file;
    if (p === "/" || p === "/index.html") file = path.join(benchDir, "browser/page.html");
    else if (p.startsWith("/out/")) file = path.join(outDir, path.basename(p));
    else if (p.startsWith("/pkg/")) file = path.join(pkgPath(), path.basename(p));
    if (!file) { res.writeHead(404); return res.end(); }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch { res.writeHead(404); res.end(); }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`,
    stop: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}
