// Bundle entry: ext-tasks requester stack on the TS client v2 (client + Streamable HTTP transport + tasks).
export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
export { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
export { contributeTaskFilterV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
