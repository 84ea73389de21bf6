// Loaded with `--import` into the conformance runner: its scenario servers call `listen(0)` (every
// interface); here a listen without a host binds 127.0.0.1 only. Some scenarios read `address()`
// right after `listen()`, so the lookup of the literal 127.0.0.1 answers synchronously (as the
// host-less listen binds synchronously).
import dns from "node:dns";
import net from "node:net";

const HOST = "127.0.0.1";

const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  if (host !== HOST) return lookup.call(this, host, ...rest);
  const callback = rest[rest.length - 1];
  const all = typeof rest[0] === "object" && rest[0] !== null && rest[0].all;
  if (all) callback(null, [{ address: HOST, family: 4 }]);
  else callback(null, HOST, 4);
  return {};
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  const options = typeof first === "object" && first !== null && !Array.isArray(first);
  if (options && "port" in first && first.host === undefined) {
    args[0] = { ...first, host: HOST };
  } else if ((first === undefined || typeof first === "number" || /^\d+$/.test(String(first))) && typeof second !== "string") {
    args.splice(0, 1, first ?? 0, HOST);
  }
  return listen.apply(this, args);
};
