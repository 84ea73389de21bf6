// The client the conformance suite spawns: `node client.mjs <server-url>`, scenario in
// MCP_CONFORMANCE_SCENARIO. Uses the built package's public API only, with default options
// (`dialect: "auto"`, HTTP), as a new user would. Exits non-zero when the scenario's call fails.
import { McpTaskClient } from "../../pkg/node.js";

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;

/** What each scenario asks of a client. */
const scenarios = {
  initialize: async (client) => client.session,
  tools_call: async (client) => (await client.callTool("add_numbers", { a: 5, b: 3 })).result(),
  "elicitation-sep1034-client-defaults": async (client) =>
    (await client.callTool("test_client_elicitation_defaults", {})).result(),
  "sse-retry": async (client) => (await client.callTool("test_reconnection", {})).result(),
};

/** The host accepts every elicitation without filling anything in (the defaults are the client's job). */
const onInput = async (request) =>
  request.method === "elicitation/create" ? { action: "accept", content: {} } : {};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario: ${scenario}`);
  process.exit(2);
}
let client;
try {
  client = await McpTaskClient.connect(url, { onInput, onWarning: (w) => console.error("warning:", w.error.message) });
  const out = await run(client);
  console.log(JSON.stringify({ scenario, dialect: client.dialect, out }));
} catch (e) {
  console.error(`${scenario} failed:`, e?.kind ?? "", e?.message ?? e);
  process.exitCode = 1;
} finally {
  await client?.close();
}
