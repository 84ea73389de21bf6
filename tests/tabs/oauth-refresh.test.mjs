// One OAuth refresh across tabs: two tabs of an origin share a grant through localStorage, the
// authorization server rotates refresh tokens (each works once; a reused one is refused with
// invalid_grant), and the shared access token expires for both at once. Exactly one refresh reaches
// the server and no refresh token is spent twice (the tabs take turns under a Web Lock; the second
// takes the grant the first stored, waiting for it when the store shows it late), and both tabs
// keep working. Headless Chromium + the ts-sdk test server's OAuth mode. And the DPoP
// key a persisted grant is bound to is one key for the origin's tabs (IndexedDB).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "../servers/launch.mjs";
import { browser, servePage, until } from "./harness.mjs";

servePage();

const PKG_DIR = process.env.MCP_TASK_CLIENT_PKG ?? new URL("../../pkg", import.meta.url).pathname;

const oauthStats = async (server) => (await fetch(server.url.replace(/\/mcp$/, "/oauth-stats"))).json();

test("two tabs whose tokens expire together: one refresh reaches the rotating server, both keep working", { timeout: 90_000 }, async () => {
  const server = await startServer("ts-sdk", { args: ["--oauth", "--token-ttl-s", "4"], timeoutMs: 30_000 });
  const b = await browser();
  try {
    const [one, two] = [await b.page("/oauth.html"), await b.page("/oauth.html")];
    await one.evaluate((u) => window.connect(u), server.url);
    await two.evaluate((u) => window.connect(u), server.url);
    const first = await one.evaluate(() => window.grant());
    assert.ok(first?.refreshToken && first.expiresAt, "the first tab authorized and stored the grant");
    assert.deepEqual(await oauthStats(server), { codes: 1, refreshes: 0, refusedRefreshes: 0, spentAgain: 0, rejected: 0 }, "the second tab took the stored grant");

    // Both tabs hold the same access token: once it has expired, both need a refresh at once.
    await until(() => Date.now() > first.expiresAt + 100, 10_000);
    const answers = await Promise.all([one.evaluate(() => window.call(200)), two.evaluate(() => window.call(200))]);
    for (const r of answers) assert.ok(r.ok, r.error);
    const stats = await oauthStats(server);
    assert.equal(stats.refreshes, 1, `one refresh for both tabs: ${JSON.stringify(stats)}`);
    assert.equal(stats.spentAgain, 0, `each refresh token spent at most once: ${JSON.stringify(stats)}`);
    assert.equal(stats.refusedRefreshes, 0, "no tab refreshed with the consumed refresh token");
    assert.equal(stats.codes, 1, "no tab lost its session to a new authorization");
    const second = await two.evaluate(() => window.grant());
    assert.notEqual(second.refreshToken, first.refreshToken, "the store holds the rotated grant");

    // Both tabs still work with the one new grant.
    const again = await Promise.all([one.evaluate(() => window.call(100)), two.evaluate(() => window.call(100))]);
    for (const r of again) assert.ok(r.ok, r.error);
    assert.equal((await oauthStats(server)).codes, 1);
    await Promise.all([one.evaluate(() => window.disconnect()), two.evaluate(() => window.disconnect())]);
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
    await server.stop();
  }
});

test("a persisted DPoP key is one key for the origin's tabs, non-extractable, one per name", { timeout: 60_000 }, async () => {
  const snippets = join(PKG_DIR, "snippets");
  const dir = readdirSync(snippets).find((d) => existsSync(join(snippets, d, "src/driver/full.js")));
  assert.ok(dir, "the package carries full.js (Web Crypto)");
  const module = `/pkg/snippets/${dir}/src/driver/full.js`;
  const b = await browser();
  try {
    const [one, two] = [await b.page("/oauth.html"), await b.page("/oauth.html")];
    const key = (p, name) =>
      p.evaluate(async ([m, name]) => {
        const [privateKey, x, y] = await (await import(m)).dpopKey(name);
        return { x, y, extractable: privateKey.extractable, type: privateKey.type };
      }, [module, name]);
    const [a, b2] = await Promise.all([key(one, "k1"), key(two, "k1")]);
    assert.deepEqual(a, b2, "both tabs sign with the key stored first");
    assert.deepEqual([a.type, a.extractable], ["private", false]);
    assert.deepEqual(await key(one, "k1"), a, "kept across calls");
    assert.notEqual((await key(two, "k2")).x, a.x, "another name, another key");
    assert.notEqual((await key(two, undefined)).x, a.x, "no name: a key in memory only");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});
