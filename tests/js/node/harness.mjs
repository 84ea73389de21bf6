// Runs the scenarios of ../scenarios.mjs against one real server kind with the built pkg/ in Node
// (the full build at the package root, or the core build in pkg/core/).
import { after, before, describe, test } from "node:test";
import { startServer } from "../../servers/launch.mjs";
import * as full from "../../../pkg/node.js";
import * as core from "../../../pkg/core/node.js";
import { ALL, PROFILES } from "../scenarios.mjs";

/** One `describe` per server kind: the server starts once; scenarios run one after another. */
export function serverSuite(kind, { connectOptions = {}, only, build = "full" } = {}) {
  const profile = PROFILES[kind];
  const { McpTaskClient, McpTaskError } = build === "core" ? core : full;
  describe(`${kind}, ${build} build (Node ${process.versions.node})`, () => {
    let server;
    before(async () => {
      server = await startServer(kind, { port: 0, timeoutMs: 30_000 });
    });
    after(async () => {
      await server?.stop();
    });
    for (const [name, scenario] of Object.entries(ALL)) {
      if (only && !only.includes(name)) continue;
      test(name, { timeout: 90_000 }, async (t) => {
        let s = server;
        if (name === "expires" && profile.expiresArgs) {
          s = await startServer(kind, { port: 0, args: profile.expiresArgs, timeoutMs: 30_000 });
        }
        try {
          const ctx = { McpTaskClient, McpTaskError, kind, url: s.url, statsUrl: s.statsUrl, connectOptions, profile };
          const note = await scenario(ctx);
          if (typeof note === "string") t.diagnostic(note);
        } finally {
          if (s !== server) await s.stop();
        }
      });
    }
  });
}
