// Entry for browsers, workers, bundlers and Electron renderers. Each client runs on the build its
// options need, fetched from next to this file when the first such client connects: the base build
// (everything but tab coordination / persistence and OAuth) by default, the full build for
// `persist` or `auth`; a page whose clients need both holds both. `init(input)` instead loads the
// full build from the wasm bytes / URL / Response given (where fetching from next to the package
// does not work, e.g. `file://` pages), and every client runs on it.
import { clientClass, needsFull } from "./client.js";
import { McpTaskError } from "./extras.js";

/** Each build's module once loaded (a promise), by name. */
const loaded = {};
/** The full build, once `init` was given its wasm. */
let chosen;

/** Loads build `name` once: `glue()` resolves with its wasm-bindgen module, `wasm` is its module. */
function load(name, glue, wasm) {
  loaded[name] ??= glue().then(async (m) => {
    await m.default({ module_or_path: wasm });
    return m;
  });
  return loaded[name];
}

const baseBuild = () => load("base", () => import("./mcp_task_client_base.js"), new URL("./mcp_task_client_base_bg.wasm", import.meta.url));
const fullBuild = (wasm = new URL("./mcp_task_client_bg.wasm", import.meta.url)) => load("full", () => import("./mcp_task_client.js"), wasm);

/** Loads the base build (or, given `input`, the full build from it); `McpTaskClient.connect`
 *  loads what each client needs for you. */
export default function init(input) {
  if (input !== undefined) chosen ??= fullBuild(input);
  return (chosen ?? baseBuild()).then(() => {});
}

// The public classes only (not wasm-bindgen's `initSync` or the WebAssembly side's own exports).
export const McpTaskClient = clientClass((options) => chosen ?? (needsFull(options) ? fullBuild() : baseBuild()));
export { McpTaskError };
export { TaskHandle, TaskUpdates } from "./handle.js";
