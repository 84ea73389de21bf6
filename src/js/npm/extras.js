// Idioms wasm-bindgen cannot express, shared by both entry points: the McpTaskError class, the
// TaskHandle class's registration, and the client's disposal. Wiring only: no logic lives here.
import { TaskHandle } from "./handle.js";

/** The error every rejected promise of this package carries. */
export class McpTaskError extends Error {
  constructor(message, details, options) {
    super(message, options);
    this.name = "McpTaskError";
    this.kind = details?.kind;
    this.code = details?.code;
    this.data = details?.data;
    this.taskId = details?.taskId;
    this.httpStatus = details?.httpStatus;
    this.auth = details?.auth;
  }
}

/** Wires the classes above into the freshly initialized module. */
export function install(wasm) {
  wasm.__registerErrorClass(McpTaskError);
  wasm.__registerHandleClass(TaskHandle);
}

/** Prototype patches that need no initialized module. `free()` and `Symbol.dispose` close the
 *  client and leave releasing its memory to the garbage collector, so a disposed client never
 *  throws "null pointer passed to rust". */
export function patch(wasm) {
  const { McpTaskClient } = wasm;
  const close = function () {
    void this.close();
  };
  McpTaskClient.prototype.free = close;
  if (Symbol.dispose) McpTaskClient.prototype[Symbol.dispose] = close;
  if (Symbol.asyncDispose) McpTaskClient.prototype[Symbol.asyncDispose] = McpTaskClient.prototype.close;
}
