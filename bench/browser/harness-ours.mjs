// Our pkg/ in the page: pkg/index.js (browser entry) bundled, the wasm fetched from /pkg/.
import init, * as pkg from "../../pkg/index.js";
import initGlue from "../../pkg/mcp_task_client.js";
import * as stack from "../stacks/ours.mjs";
import { installHarness } from "./harness.mjs";

const wasmUrl = new URL("/pkg/mcp_task_client_bg.wasm", location.href);
await init(wasmUrl);
const exports = await initGlue({ module_or_path: wasmUrl }); // returns the already-initialised instance
stack.setModule(pkg);
installHarness(stack, { wasmBytes: () => exports.memory.buffer.byteLength });
