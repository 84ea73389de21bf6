// Loaded with `--import` into the conformance runner: its scenario servers call `listen(0)` (every
// interface); this makes a listen without a host bind to 127.0.0.1 only.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if (typeof first === "object" && first !== null && !("fd" in first) && !("path" in first) && !("_handle" in first)) {
    if (first.host === undefined) args[0] = { ...first, host: "127.0.0.1" };
  } else if ((typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first)) || first === undefined) && typeof second !== "string") {
    args.splice(1, 0, "127.0.0.1");
    if (first === undefined) args[0] = 0;
  }
  return listen.apply(this, args);
};
