// Preload (sandboxed): exposes only the example's configuration to the page, nothing of Node or Electron.
const { contextBridge, ipcRenderer } = require("electron");

contextBridge.exposeInMainWorld("mcpDemo", {
  /** @returns {Promise<{serverUrl: string, dialect: string, versions: {electron: string, chrome: string}}>} */
  config: () => ipcRenderer.invoke("demo:config"),
});
