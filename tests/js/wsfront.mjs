// A WebSocket server that completes the handshake without selecting a subprotocol (the `ws`
// package's server, `handleProtocols` choosing none) in front of a real MCP WebSocket server on
// 127.0.0.1, frames piped both ways. Records the subprotocols each client connection asked for.
import { WebSocket, WebSocketServer } from "ws";

/** Starts the front for `upstream` (a ws:// URL): `{ url, asked, stop() }`. */
export async function startNoSubprotocolFront(upstream) {
  const asked = [];
  const front = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => false });
  front.on("connection", (sock, req) => {
    asked.push(req.headers["sec-websocket-protocol"] ?? null);
    const up = new WebSocket(upstream, "mcp");
    const early = [];
    up.on("open", () => early.splice(0).forEach((m) => up.send(m.data, { binary: m.binary })));
    sock.on("message", (data, binary) =>
      up.readyState === WebSocket.OPEN ? up.send(data, { binary }) : early.push({ data, binary }),
    );
    up.on("message", (data, binary) => sock.send(data, { binary }));
    sock.on("close", () => up.close());
    up.on("close", () => sock.close());
    up.on("error", () => sock.terminate());
  });
  await new Promise((r) => front.on("listening", r));
  return {
    url: `ws://127.0.0.1:${front.address().port}`,
    asked,
    stop: () =>
      new Promise((r) => {
        for (const c of front.clients) c.terminate();
        front.close(r);
      }),
  };
}
