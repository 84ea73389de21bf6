// Entry of the core build alone for Node (>= 20) and Electron's main process: the module is read
// from disk and instantiated synchronously at import.
import { readFile } from "node:fs/promises";
import * as wasm from "./mcp_task_client.js";
import { clientClass } from "../client.js";
import { McpTaskError } from "../extras.js";

wasm.initSync({ module: await readFile(new URL("./mcp_task_client_bg.wasm", import.meta.url)) });

/** Already done at import in Node; kept so the same code runs everywhere. */
export default async function init() {}

// The public classes only (not wasm-bindgen's `initSync` or the WebAssembly side's own exports).
// `persist: { redis }` loads the Redis host on first use.
export const McpTaskClient = clientClass(async () => wasm, async (persist, warn) => (await import("../redis.js")).redisHost(persist, warn));
export { McpTaskError };
export { TaskHandle, TaskUpdates } from "../handle.js";
