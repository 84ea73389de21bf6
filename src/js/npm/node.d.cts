/**
 * CommonJS entry (`require("mcp-task-client")`): the package is an ES module loaded by `load()`.
 * `const { McpTaskClient, McpTaskError } = await load();`
 */
export declare function load(): Promise<typeof import("./index.js")>;
/** `McpTaskClient.connect(url, options)` after `load()`. */
export declare function connect(
  url: string,
  options?: import("./index.js").ConnectOptions,
): Promise<import("./index.js").McpTaskClient>;
