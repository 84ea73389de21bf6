// rmcp 3.11.0, the modern dialect (2026-07-28 + io.modelcontextprotocol/tasks).
import { serverSuite } from "./harness.mjs";

serverSuite("rmcp3");
