// What the docs' code blocks leave to the reader: the app's own values and functions, and the client
// a block continues from. A block that declares or imports one of these names shadows it.
import type { InputHandler as Handler, McpTaskClient as Client } from "mcp-task-client";

declare global {
  /** The MCP server's URL. */
  const url: string;
  /** Blocks that continue from an earlier one use its client. */
  const client: Client;
  const McpTaskClient: typeof Client;
  type InputHandler = Handler;
  const onInput: Handler;
  const signal: AbortSignal;
  const headers: Record<string, string>;
  const savedTaskId: string;
  const redirectUri: string;
  function token(): Promise<string>;
  function openAuthorization(url: string): Promise<string>;
  function render(...values: unknown[]): void;
  function show(text: string): void;
  function notify(done: unknown): void;
  function llm(params: unknown): Promise<string>;
  function readGrant(): Promise<Buffer | null> | undefined;
  function writeGrant(bytes: Buffer): Promise<void>;
  interface Window {
    bridge: { wasmBytes(): Promise<ArrayBuffer> };
  }
  interface Buffer extends Uint8Array {}
}
