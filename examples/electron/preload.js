// Preload (sandboxed): exposes only the example's configuration and the package's wasm bytes to the
// page, nothing of Node or Electron.
const { contextBridge, ipcRenderer } = require("electron");

contextBridge.exposeInMainWorld("mcpDemo", {
  /** @returns {Promise<{serverUrl: string, dialect: string, versions: {electron: string, chrome: string}}>} */
  config: () => ipcRenderer.invoke("demo:config"),
  /** The package's wasm bytes, for `init` (a `file://` page cannot fetch them). @returns {Promise<Uint8Array>} */
  wasm: () => ipcRenderer.invoke("demo:wasm"),
});
