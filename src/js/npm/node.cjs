// Entry for CommonJS in Node (`require("mcp-task-client")`): the package is an ES module (the core
// entry with top-level await: it instantiates the wasm at import), which `require` cannot load in
// Node 20, so this entry hands out the module through one dynamic import:
// `const { McpTaskClient } = await load()`.
"use strict";

let loading;

/** Loads the package once; resolves with its exports (`McpTaskClient`, `McpTaskError`, …). */
function load() {
  loading ??= import("./node.js");
  return loading;
}

/** `McpTaskClient.connect(url, options)` after `load()`. */
async function connect(url, options) {
  const { McpTaskClient } = await load();
  return McpTaskClient.connect(url, options);
}

module.exports = { load, connect };
