// The Python SDK server over Streamable HTTP.
import { serverSuite } from "./harness.mjs";

serverSuite("python-http");
