// Entry for Node (>= 20) and Electron's main process. Each client runs on the build its options
// need, read from disk and instantiated when the first such client connects: the base build
// (everything but tab coordination / persistence and OAuth) by default, the full build for
// `persist` or `auth`.
import { readFile } from "node:fs/promises";
import * as base from "./mcp_task_client_base.js";
import * as full from "./mcp_task_client.js";
import { clientClass, needsFull } from "./client.js";
import { McpTaskError } from "./extras.js";

/** Each build's module once instantiated (a promise), by name. */
const loaded = {};

/** Instantiates wasm-bindgen module `m` once from its wasm file `file`. */
function load(m, file) {
  loaded[file] ??= readFile(new URL(file, import.meta.url)).then((bytes) => {
    m.initSync({ module: bytes });
    return m;
  });
  return loaded[file];
}

const baseBuild = () => load(base, "./mcp_task_client_base_bg.wasm");

/** Loads the base build; `McpTaskClient.connect` loads what each client needs for you. */
export default async function init() {
  await baseBuild();
}

// The public classes only (not wasm-bindgen's `initSync` or the WebAssembly side's own exports).
// `persist: { redis }` loads the Redis host on first use.
export const McpTaskClient = clientClass(
  (options) => (needsFull(options) ? load(full, "./mcp_task_client_bg.wasm") : baseBuild()),
  async (persist, warn) => (await import("./redis.js")).redisHost(persist, warn),
);
export { McpTaskError };
export { TaskHandle, TaskUpdates } from "./handle.js";
