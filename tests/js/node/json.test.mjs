// A caller's values (callTool arguments, request params, capabilities, onInput answers) as the JSON
// text the client hands to WebAssembly (`json` in src/js/npm/client.js): exact integers, left-out
// `undefined` members, `Map`s in their order, and a typed error for what is not JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { json } from "../../../pkg/client.js";

test("JS values are written as JSON", () => {
  const plain = { a: 1, b: "x", c: [true, null, undefined, -0, 1.5, 2 ** 53, NaN, Infinity], d: undefined };
  assert.equal(json(plain), '{"a":1,"b":"x","c":[true,null,null,0,1.5,9007199254740992,null,null]}');
  const map = new Map([["k", { n: 1n }], ["big", 18446744073709551615n], ["1", -9223372036854775808n]]);
  assert.equal(json(map), '{"k":{"n":1},"big":18446744073709551615,"1":-9223372036854775808}');
  assert.equal(json(new Date(0)), "{}", "own enumerable properties only (no toJSON)");
  assert.equal(json([1, , 3]), "[1,null,3]");
  assert.equal(json(2 ** 64 - 2 ** 11), "18446744073709549568", "an integral double's exact digits");
  assert.equal(json(1e21), "1000000000000000000000");
  assert.equal(json(JSON.parse('{"__proto__":1,"s":"\\ud800\\""}')), '{"__proto__":1,"s":"\\ud800\\""}');
  assert.equal(json(undefined), "null");
  let deep = [];
  for (let i = 0; i < 512; i++) deep = [deep];
  assert.equal(json(deep).length, 2 * 513);
});

test("what is not JSON is an invalidInput error", () => {
  const cyclic = {};
  cyclic.self = cyclic;
  const bad = [() => 1, Symbol("s"), new Set([1]), new Uint8Array(2), new ArrayBuffer(1), 2n ** 64n, -(2n ** 63n) - 1n, new Map([[1, 2]]), cyclic];
  for (const v of bad) {
    assert.throws(
      () => json({ v }),
      (e) => e.kind === "invalidInput" && e.message.startsWith("not JSON-serializable: "),
      String(typeof v),
    );
  }
});
