// Idioms wasm-bindgen cannot express, shared by both entry points: the McpTaskError class, the
// async-iterator protocol of TaskUpdates, and disposal. Wiring only: no logic lives here.

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
}

/** Prototype patches that need no initialized module. `free()` and `Symbol.dispose` end what the
 *  object stands for (the client closes, a handle stops) and leave releasing its memory to the
 *  garbage collector, so a disposed object never throws "null pointer passed to rust". */
export function patch(wasm) {
  const { McpTaskClient, TaskHandle, TaskUpdates } = wasm;
  TaskUpdates.prototype[Symbol.asyncIterator] = function () {
    return this;
  };
  const dispose = (cls, end) => {
    cls.prototype.free = end;
    if (Symbol.dispose) cls.prototype[Symbol.dispose] = end;
  };
  dispose(McpTaskClient, function () {
    void this.close();
  });
  if (Symbol.asyncDispose) McpTaskClient.prototype[Symbol.asyncDispose] = McpTaskClient.prototype.close;
  dispose(TaskHandle, TaskHandle.prototype.stop);
  dispose(TaskUpdates, function () {
    void this.return();
  });
}
