// The TypeScript SDK server over Streamable HTTP, with Node's own fetch.
import { serverSuite } from "./harness.mjs";

serverSuite("ts-sdk");
