// Bundle entry: TS SDK v1 requester stack (client + Streamable HTTP transport; tasks live on client.experimental.tasks).
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
