// Electron main process for the mcp-task-client example.
//
// The renderer is sandboxed (contextIsolation, no Node) and loads everything from a privileged `app://bundle/`
// scheme served here: /renderer/ (this example's page), /pkg/ (the built package, web target) and /www/ (the
// repo's dashboard, with --dashboard). Serving from a standard, secure scheme gives the page a real origin,
// `fetch` and `application/wasm` for the module. The MCP server is reached over plain HTTP(S) from the renderer
// (the server must allow the `app://bundle` origin through CORS; the project's test servers allow any origin).
//
// With --file the window loads renderer/index.html as a file:// page instead, as a packaged app that ships
// its files does: the package (copied to ./pkg, next to renderer/) is then initialized from wasm bytes the
// preload hands over, and `persist` has no storage to use (an opaque origin): the page says so.
//
//   npx electron . [--server=http://127.0.0.1:3000/mcp] [--dialect=auto] [--dashboard | --file]
//   env: MCP_SERVER_URL, MCP_TASK_CLIENT_PKG (directory of the built package; default: ../../pkg, or the
//   installed npm package `mcp-task-client`)
const { app, BrowserWindow, ipcMain, protocol, shell } = require("electron");
const fs = require("node:fs/promises");
const path = require("node:path");

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SERVER_URL = arg("server") ?? process.env.MCP_SERVER_URL ?? "http://127.0.0.1:3000/mcp";
const DIALECT = arg("dialect") ?? "auto";
const DASHBOARD = process.argv.includes("--dashboard");
const FILE = process.argv.includes("--file");

function packageDir() {
  if (process.env.MCP_TASK_CLIENT_PKG) return path.resolve(process.env.MCP_TASK_CLIENT_PKG);
  const inRepo = path.resolve(__dirname, "..", "..", "pkg");
  try {
    return path.dirname(require.resolve("mcp-task-client/package.json"));
  } catch {
    return inRepo;
  }
}

/** URL path prefix → directory served under app://bundle/. Nothing else is reachable. */
const ROOTS = [
  ["/renderer/", path.join(__dirname, "renderer")],
  ["/pkg/", packageDir()],
  ["/www/", path.resolve(__dirname, "..", "..", "www")],
];
const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json; charset=utf-8",
};

protocol.registerSchemesAsPrivileged([
  { scheme: "app", privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } },
]);

async function serve(request) {
  const url = new URL(request.url);
  if (url.host !== "bundle") return new Response("not found", { status: 404 });
  let pathname;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return new Response("bad path", { status: 400 });
  }
  for (const [prefix, dir] of ROOTS) {
    if (!pathname.startsWith(prefix)) continue;
    const file = path.resolve(dir, `.${pathname.slice(prefix.length - 1)}`);
    if (file !== dir && !file.startsWith(dir + path.sep)) break; // no escaping the root
    try {
      const target = (await fs.stat(file)).isDirectory() ? path.join(file, "index.html") : file;
      const body = await fs.readFile(target);
      return new Response(body, { headers: { "content-type": MIME[path.extname(target)] ?? "application/octet-stream" } });
    } catch {
      break;
    }
  }
  return new Response("not found", { status: 404 });
}

function createWindow() {
  const win = new BrowserWindow({
    width: 1100,
    height: 800,
    title: "MCP tasks (Electron)",
    webPreferences: {
      preload: path.join(__dirname, "preload.js"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  // The page never opens windows or navigates away; links to the outside go to the system browser.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:/.test(url)) shell.openExternal(url);
    return { action: "deny" };
  });
  win.webContents.on("will-navigate", (e, url) => {
    if (!url.startsWith("app://bundle/") && !(FILE && url.startsWith("file:"))) e.preventDefault();
  });
  if (FILE) return win.loadFile(path.join(__dirname, "renderer", "index.html"));
  const page = DASHBOARD
    ? `app://bundle/www/index.html?server=${encodeURIComponent(SERVER_URL)}&dialect=${encodeURIComponent(DIALECT)}`
    : "app://bundle/renderer/index.html";
  return win.loadURL(page);
}

/** The IPC handlers of the preload bridge. */
const handlers = {
  "demo:config": () => ({ serverUrl: SERVER_URL, dialect: DIALECT, versions: { electron: process.versions.electron, chrome: process.versions.chrome } }),
  "demo:wasm": () => fs.readFile(path.join(packageDir(), "mcp_task_client_bg.wasm")),
};

app.whenReady().then(() => {
  protocol.handle("app", serve);
  for (const [channel, handler] of Object.entries(handlers)) ipcMain.handle(channel, handler);
  createWindow();
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on("window-all-closed", () => {
  if (process.platform !== "darwin") app.quit();
});

// For tests of this file in plain Node (with a stand-in for the `electron` module).
module.exports = { serve, handlers, ROOTS };
