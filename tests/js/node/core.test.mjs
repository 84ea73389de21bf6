// The core build (pkg/core: no tab coordination / persistence, no OAuth, no task receiver, no
// draft dialect): every scenario against the TypeScript SDK server over HTTP and the Python SDK
// server over WebSocket, and the options it leaves out refused with a typed error naming the full
// build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { serverSuite } from "./harness.mjs";
import * as core from "../../../pkg/core/node.js";
import * as full from "../../../pkg/node.js";

serverSuite("ts-sdk", { build: "core" });
serverSuite("python-ws", { build: "core", connectOptions: { WebSocket } });

for (const [option, value] of [
  ["persist", true],
  ["auth", { redirectUri: "http://127.0.0.1/cb", openAuthorization: async () => "" }],
  ["dialect", "draft"],
]) {
  test(`core build: \`${option}\` is refused before any request, naming the full build`, async () => {
    // No server: the options are read before the client connects.
    const err = await core.McpTaskClient.connect("http://127.0.0.1:9/mcp", { [option]: value }).then(
      () => assert.fail("connect resolved"),
      (e) => e,
    );
    assert.ok(err instanceof full.McpTaskError, "the one McpTaskError class of the package");
    assert.equal(err.kind, "invalidInput");
    assert.match(err.message, /full build.*"mcp-task-client"/);
  });
}
