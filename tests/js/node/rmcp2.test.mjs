// rmcp 2.0.0 (legacy tasks, `tasks: {}` capability) over Streamable HTTP.
import { serverSuite } from "./harness.mjs";

serverSuite("rmcp2");
