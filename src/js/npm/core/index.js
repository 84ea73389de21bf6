// Entry of the core build alone (no tab coordination / persistence, OAuth, task receiver or draft
// dialect) for browsers, workers, bundlers and Electron renderers: the module is fetched from next
// to this file on first use (or pass the wasm bytes / URL / Response to `init`).
import initWasm, * as wasm from "./mcp_task_client.js";
import { clientClass } from "../client.js";
import { McpTaskError } from "../extras.js";

let ready;

/** Loads the WebAssembly module once; `McpTaskClient.connect` calls it for you. */
export default function init(input) {
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {});
  return ready;
}

// The public classes only (not wasm-bindgen's `initSync` or the WebAssembly side's own exports).
export const McpTaskClient = clientClass(() => init().then(() => wasm));
export { McpTaskError };
export { TaskHandle, TaskUpdates } from "../handle.js";
