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

/** The `auth/*` scenarios: connect with OAuth, then call the protected server's tool. */
const authScenario = async (client) => (await client.callTool("test-tool", {})).result();

/**
 * The suite's authorization server redirects at once (no login page): the "user's visit" is one
 * request whose redirect is the callback. Pre-registered credentials come in the suite's context.
 */
function authOption() {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  return {
    redirectUri: "http://localhost:3000/callback",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    clientId: context.client_id,
    clientSecret: context.client_secret,
    openAuthorization: async (url) => {
      const response = await fetch(url, { redirect: "manual" });
      const back = response.headers.get("location");
      if (!back) throw new Error(`the authorization endpoint answered ${response.status}, no redirect`);
      return new URL(back, url).href;
    },
  };
}

const run = scenario?.startsWith("auth/") ? authScenario : scenarios[scenario];
if (!run) {
  console.error(`unknown scenario: ${scenario}`);
  process.exit(2);
}
let client;
try {
  const auth = scenario.startsWith("auth/") ? authOption() : undefined;
  client = await McpTaskClient.connect(url, { onInput, auth, onWarning: (w) => console.error("warning:", w.error.message) });
  const out = await run(client);
  console.log(JSON.stringify({ scenario, dialect: client.dialect, out }));
} catch (e) {
  console.error(`${scenario} failed:`, e?.kind ?? "", e?.message ?? e);
  process.exitCode = 1;
} finally {
  await client?.close();
}
