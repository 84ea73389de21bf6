// Idioms wasm-bindgen cannot express, shared by both entry points: the McpTaskError class and
// the async-iterator protocol of TaskUpdates. No logic lives here.

/** The error every rejected promise of this package carries. */
export class McpTaskError extends Error {
  constructor(message, details) {
    super(message);
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
}

/** Prototype patches that need no initialized module. */
export function patch(wasm) {
  wasm.TaskUpdates.prototype[Symbol.asyncIterator] = function () {
    return this;
  };
}
