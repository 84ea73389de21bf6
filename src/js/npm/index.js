// Entry for browsers, workers, bundlers and Electron renderers: the module is fetched from next to
// this file on first use (or pass the wasm bytes / URL / Response to `init`).
import initWasm, * as wasm from "./mcp_task_client.js";
import { McpTaskError, install, patch } from "./extras.js";

let ready;

/** Loads the WebAssembly module once; `McpTaskClient.connect` calls it for you. */
export default function init(input) {
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => install(wasm));
  return ready;
}

patch(wasm);
const connect = wasm.McpTaskClient.connect;
wasm.McpTaskClient.connect = async function (url, options) {
  await init();
  return connect.call(this, url, options);
};

// The public classes only (not wasm-bindgen's `initSync` or the error-class hook).
export { McpTaskClient } from "./mcp_task_client.js";
export { McpTaskError };
export { TaskHandle, TaskUpdates } from "./handle.js";
