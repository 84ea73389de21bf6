// OAuth in Node with the loopback helper (mcp-task-client/auth/node) against the TS SDK's
// authorization server pieces (tests/servers/ts-sdk/oauth.mjs, 2 s tokens): the "browser" is a
// fetch that follows the authorization server's redirect to the loopback listener.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../servers/launch.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";
import { loopbackAuthorization } from "../../../pkg/auth-node.js";

let server;
before(async () => {
  server = await startServer("ts-sdk", { port: 0, args: ["--oauth", "--token-ttl-s", "2"], timeoutMs: 30_000 });
});
after(async () => {
  await server?.stop();
});

const stats = async () => (await fetch(server.url.replace(/\/mcp$/, "/oauth-stats"))).json();

test("loopback redirect, a task outliving its token, a refresh before the next request, the grant in the host's store", { timeout: 60_000 }, async () => {
  const opened = [];
  const loop = await loopbackAuthorization({ open: (url) => (opened.push(url), fetch(url)) });
  assert.match(loop.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  let stored;
  const store = { load: () => stored, save: (g) => void (stored = g) };
  const client = await McpTaskClient.connect(server.url, {
    auth: { redirectUri: loop.redirectUri, openAuthorization: loop.openAuthorization, store },
  });
  try {
    const before = await stats();
    // In Node the running task's tasks/result is held open: the answer comes on it after the
    // token expired; the next request goes out with a token refreshed beforehand.
    const r = await (await client.callTool("slow_job", { ms: 3000 })).result();
    assert.equal(r.content[0].text, "slow_job done after 3000 ms");
    const again = await (await client.callTool("slow_job", { ms: 10 })).result();
    assert.equal(again.content[0].text, "slow_job done after 10 ms");
    const after = await stats();
    assert.equal(opened.length, 1, "one authorization");
    const q = new URL(opened[0]).searchParams;
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.equal(q.get("resource"), server.url);
    assert.equal(q.get("redirect_uri"), loop.redirectUri);
    assert.ok(after.refreshes > before.refreshes, `refreshed: ${JSON.stringify(after)}`);
    assert.equal(after.rejected, 0, "refreshed before expiry, never refused");
    assert.ok(stored.refreshToken, "the store holds the rotated grant");
  } finally {
    await client.close();
    await loop.close();
  }
});

test("a user who never comes back fails the connect with a typed error", { timeout: 60_000 }, async () => {
  const openAuthorization = () => Promise.reject(new Error("the user closed the window"));
  const e = await McpTaskClient.connect(server.url, {
    auth: { redirectUri: "http://127.0.0.1:9/callback", openAuthorization },
  }).then(() => null, (e) => e);
  assert.ok(e instanceof McpTaskError, String(e));
  assert.match(e.message, /authorization failed: openAuthorization rejected: the user closed the window/);
});
