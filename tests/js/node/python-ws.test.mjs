// The Python SDK server over WebSocket; Node 20 has no global WebSocket, so the `ws` package's.
import { WebSocket } from "ws";
import { serverSuite } from "./harness.mjs";

serverSuite("python-ws", { connectOptions: { WebSocket } });
