// The McpTaskError class, shared by both builds (one class for the whole package), and the helpers
// the client and its handles share.

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

/** The error an `ErrorInfo` from WebAssembly describes, with `cause` when there is one. */
export const failure = (info, cause) => new McpTaskError(info.message, info, cause === undefined ? {} : { cause });

/** Calls a user callback; a throwing callback must not disturb the client. */
export function call(f, v) {
  try {
    f(v);
  } catch {
    // the caller's error, not ours
  }
}
