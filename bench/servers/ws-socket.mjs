// A minimal WebSocket server side on node:http's `upgrade` (RFC 6455): text frames only, no extensions,
// subprotocol "mcp" echoed when offered. Enough for the bench server to speak MCP over one socket.
import { createHash } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** Encodes one unmasked text frame (server → client). */
function frame(text) {
  const payload = Buffer.from(text, "utf8");
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n])
    : n < 65536 ? Buffer.from([0x81, 126, n >> 8, n & 255])
      : Buffer.concat([Buffer.from([0x81, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  return Buffer.concat([head, payload]);
}

/**
 * Completes the handshake of an `upgrade` request and returns {send(text), close()}; `onText(text)` gets each
 * text message, `onClose()` runs once the socket is gone. Fragmented messages are joined; pings are answered.
 */
export function acceptWebSocket(req, socket, { onText, onClose }) {
  const key = req.headers["sec-websocket-key"];
  const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((s) => s.trim());
  const accept = createHash("sha1").update(key + GUID).digest("base64");
  socket.write([
    "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", `Sec-WebSocket-Accept: ${accept}`,
    ...(offered.includes("mcp") ? ["Sec-WebSocket-Protocol: mcp"] : []), "", "",
  ].join("\r\n"));
  socket.setNoDelay(true);
  let buf = Buffer.alloc(0);
  let parts = [];
  socket.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const fin = buf[0] & 0x80;
      const op = buf[0] & 0x0f;
      let len = buf[1] & 0x7f;
      let at = 2;
      if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
      else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
      const masked = buf[1] & 0x80;
      const mask = masked ? buf.subarray(at, at + 4) : null;
      if (masked) at += 4;
      if (buf.length < at + len) return;
      const data = Buffer.from(buf.subarray(at, at + len));
      buf = buf.subarray(at + len);
      if (mask) for (let i = 0; i < data.length; i++) data[i] ^= mask[i & 3];
      if (op === 0x8) { socket.end(Buffer.from([0x88, 0])); return; }
      if (op === 0x9) { socket.write(Buffer.concat([Buffer.from([0x8a, data.length]), data])); continue; }
      if (op === 0x1 || op === 0x0) {
        parts.push(data);
        if (fin) { const text = Buffer.concat(parts).toString("utf8"); parts = []; onText(text); }
      }
    }
  });
  socket.on("close", onClose);
  socket.on("error", () => socket.destroy());
  return {
    send: (text) => { if (!socket.destroyed) socket.write(frame(text)); },
    close: () => socket.destroy(),
  };
}
