// The client the conformance suite spawns: `node client.mjs <server-url>`, scenario in
// MCP_CONFORMANCE_SCENARIO. Uses the built package's public API only, with default options
// (`dialect: "auto"`, HTTP), as a new user would. Exits non-zero when the scenario's call fails.
import { McpTaskClient } from "../../pkg/node.js";

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");

/** A plain request's result (`request` resolves with a handle, like `callTool`). */
const ask = async (client, method, params) => (await client.request(method, params)).result();
const call = async (client, name, args) => (await client.callTool(name, args)).result();
/** The tool calls the scenario hands over in its context (e.g. values to mirror into headers). */
const contextCalls = async (client) => {
  const out = [];
  for (const { name, arguments: args } of context.toolCalls ?? []) out.push(await call(client, name, args));
  return out;
};

/** What each scenario asks of a client. */
const scenarios = {
  initialize: async (client) => client.session,
  tools_call: async (client) => call(client, "add_numbers", { a: 5, b: 3 }),
  "elicitation-sep1034-client-defaults": async (client) => call(client, "test_client_elicitation_defaults", {}),
  "sse-retry": async (client) => call(client, "test_reconnection", {}),
  "request-metadata": async (client) => client.listTools(),
  "json-schema-ref-no-deref": async (client) => client.listTools(),
  "json-schema-2020-12-preservation": async (client) => {
    const { tools } = await client.listTools();
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("json_schema_2020_12_tool is not listed");
    return call(client, "json_schema_echo", { schema: focal.inputSchema });
  },
  "http-standard-headers": async (client) => {
    await client.listTools();
    await call(client, "test_headers", {});
    await call(client, "my-hyphenated-tool", {});
    const { resources } = await ask(client, "resources/list", {});
    for (const { uri } of resources ?? []) await ask(client, "resources/read", { uri });
    const { prompts } = await ask(client, "prompts/list", {});
    for (const { name } of prompts ?? []) await ask(client, "prompts/get", { name });
  },
  "http-custom-headers": async (client) => (await client.listTools(), contextCalls(client)),
  "http-invalid-tool-headers": async (client) => {
    await client.listTools();
    return call(client, "valid_tool", { region: "us-west1" });
  },
  "sep-2322-client-request-state": async (client) => {
    await client.listTools();
    // A call waiting for input and an unrelated one at once: the input round's state stays its own.
    const out = await Promise.all([
      call(client, "test_mrtr_echo_state", {}),
      call(client, "test_mrtr_unrelated", {}),
    ]);
    out.push(await call(client, "test_mrtr_no_state", {}));
    out.push(await call(client, "test_mrtr_no_result_type", {}));
    return out;
  },
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
async function authOption() {
  if (scenario === "auth/client-credentials-jwt") {
    // The suite hands a PKCS#8 PEM; the host imports it as a non-extractable CryptoKey.
    const der = Buffer.from(context.private_key_pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
    const privateKey = await crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
    return { grant: "client_credentials", clientId: context.client_id, privateKey };
  }
  if (scenario.startsWith("auth/client-credentials-")) {
    return { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret };
  }
  return {
    redirectUri: "http://localhost:3000/callback",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    clientId: context.client_id,
    clientSecret: context.client_secret,
    dpop: scenario.startsWith("auth/dpop"),
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
  const auth = scenario.startsWith("auth/") ? await authOption() : undefined;
  client = await McpTaskClient.connect(url, { onInput, auth, onWarning: (w) => console.error("warning:", w.error.message) });
  const out = await run(client);
  console.log(JSON.stringify({ scenario, dialect: client.dialect, out }));
} catch (e) {
  console.error(`${scenario} failed:`, e?.kind ?? "", e?.message ?? e);
  process.exitCode = 1;
} finally {
  await client?.close();
}
