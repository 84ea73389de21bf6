// The draft dialect (SEP-1686 as first written) with the built pkg/ in Node, against the draft FIXTURE
// server in its SSE mode and its JSON-only mode (no `notifications/tasks/created`): the scenarios of
// ../draft-scenarios.mjs, one server per mode plus one that declares no `tasks` capability.
import { after, before, describe, test } from "node:test";
import { registerKind, startServer } from "../../servers/launch.mjs";
import { draftKind } from "../../fixtures/draft-server/kind.mjs";
import { McpTaskClient, McpTaskError } from "../../../pkg/node.js";
import { DRAFT } from "../draft-scenarios.mjs";

registerKind("draft", draftKind);

for (const mode of ["sse", "json"]) {
  describe(`draft fixture, ${mode} (Node ${process.versions.node})`, () => {
    let server;
    let undeclared;
    before(async () => {
      const args = mode === "json" ? ["--json-only"] : [];
      server = await startServer("draft", { port: 0, args, timeoutMs: 30_000 });
      undeclared = await startServer("draft", { port: 0, args: [...args, "--undeclared"], timeoutMs: 30_000 });
    });
    after(async () => {
      await server?.stop();
      await undeclared?.stop();
    });
    for (const [name, scenario] of Object.entries(DRAFT)) {
      test(name, { timeout: 60_000 }, async (t) => {
        const ctx = { McpTaskClient, McpTaskError, mode, url: server.url, statsUrl: server.statsUrl, undeclaredUrl: undeclared.url, connectOptions: {} };
        const note = await scenario(ctx);
        if (typeof note === "string") t.diagnostic(note);
      });
    }
  });
}
