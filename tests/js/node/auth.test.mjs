// HTTP 401/403 against the real TS SDK server behind a small bearer-token gate: a 401 asks the
// header provider again and retries once (a host refreshing its token there just works); a token
// refused again is an `unauthorized` McpTaskError with `httpStatus` and the parsed
// `WWW-Authenticate`; without a provider there is nothing to refresh, so the first 401 is final;
// HTTP statuses are in `httpStatus`, never in `code`.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";

const CHALLENGE =
  'Bearer realm="mcp", error="invalid_token", error_description="the token \\"nope\\" expired, sorry", ' +
  'scope="tasks:read, tasks:write", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';

let server;
let gate;

/** Forwards requests carrying `Bearer fresh` to `target`; refuses the others with 401 + CHALLENGE. */
async function startGate(target) {
  const upstream = new URL(target);
  const stats = { refused: 0, passed: 0, refusedMethods: [] };
  const srv = http.createServer((req, res) => {
    if (req.headers.authorization !== "Bearer fresh") {
      stats.refused++;
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        let method = req.method;
        try {
          method = JSON.parse(body).method;
        } catch {}
        stats.refusedMethods.push(method);
        res.writeHead(401, {
          "www-authenticate": CHALLENGE,
          "content-type": "application/json",
          "access-control-expose-headers": "WWW-Authenticate",
        });
        res.end(JSON.stringify({ error: "invalid_token" }));
      });
      return;
    }
    stats.passed++;
    const headers = { ...req.headers, host: upstream.host };
    const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    origin: `http://127.0.0.1:${port}`,
    stats,
    stop: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }),
  };
}

before(async () => {
  server = await startServer("ts-sdk", { port: 0, timeoutMs: 30_000 });
  gate = await startGate(server.url);
});

after(async () => {
  await gate?.stop();
  await server?.stop();
});

test("a 401 asks the header provider again and retries once: a refreshed token just works", async () => {
  const before = { ...gate.stats };
  let asked = 0;
  const client = await McpTaskClient.connect(gate.url, {
    headers: async () => ({ Authorization: asked++ === 0 ? "Bearer stale" : "Bearer fresh" }),
  });
  const h = await client.callTool("long_job", { steps: 2, stepMs: 100 });
  const result = await h.result();
  await client.close();
  assert.ok(Array.isArray(result.content), JSON.stringify(result));
  assert.equal(gate.stats.refused - before.refused, 1, "exactly the first request was refused");
  assert.ok(gate.stats.passed - before.passed >= 3, "the rest went through");
  assert.ok(asked >= 2, `the provider was asked again (${asked})`);
});

test("a token refused twice is `unauthorized` with httpStatus and the parsed WWW-Authenticate", async () => {
  gate.stats.refusedMethods.length = 0;
  let asked = 0;
  const err = await McpTaskClient.connect(gate.url, {
    headers: () => {
      asked++;
      return { Authorization: "Bearer nope" };
    },
  }).then(
    () => assert.fail("connect resolved"),
    (e) => e,
  );
  assert.ok(err instanceof McpTaskError, String(err));
  assert.equal(err.kind, "unauthorized", err.message);
  assert.equal(err.httpStatus, 401);
  assert.equal(err.code, undefined, "an HTTP status is never a JSON-RPC code");
  assert.equal(err.auth.wwwAuthenticate, CHALLENGE);
  assert.equal(err.auth.error, "invalid_token");
  assert.equal(err.auth.errorDescription, 'the token "nope" expired, sorry');
  assert.equal(err.auth.scope, "tasks:read, tasks:write");
  assert.equal(err.auth.resourceMetadata, "http://127.0.0.1/.well-known/oauth-protected-resource/mcp");
  // The first request was sent twice, asking the provider each time, and connecting stopped there
  // (no other handshake tried with the same refused credentials).
  const methods = gate.stats.refusedMethods;
  assert.equal(methods.length, 2, JSON.stringify(methods));
  assert.equal(methods[0], methods[1], JSON.stringify(methods));
  assert.equal(asked, 2, "the provider was asked before each attempt, twice in all");
});

test("without a header provider (fixed headers, or none) a 401 fails after one request: nothing to refresh", async () => {
  for (const headers of [{ Authorization: "Bearer stale" }, undefined]) {
    gate.stats.refusedMethods.length = 0;
    const before = gate.stats.passed;
    const err = await McpTaskClient.connect(gate.url, headers ? { headers } : {}).then(
      () => assert.fail("connect resolved"),
      (e) => e,
    );
    assert.ok(err instanceof McpTaskError, String(err));
    assert.equal(err.kind, "unauthorized", err.message);
    assert.equal(err.httpStatus, 401);
    assert.equal(err.auth.error, "invalid_token");
    assert.equal(gate.stats.refusedMethods.length, 1, `one request, not retried: ${JSON.stringify(gate.stats.refusedMethods)}`);
    assert.equal(gate.stats.passed, before, "nothing went through");
  }
});

test("HTTP failures carry the status in httpStatus, never in code", async () => {
  const err = await McpTaskClient.connect(`${new URL(server.url).origin}/no-such-endpoint`, {}).then(
    () => assert.fail("connect resolved"),
    (e) => e,
  );
  assert.ok(err instanceof McpTaskError, String(err));
  assert.equal(err.kind, "transport", err.message);
  assert.equal(err.httpStatus, 404, err.message);
  assert.equal(err.code, undefined);
});
