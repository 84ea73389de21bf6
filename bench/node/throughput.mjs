// Throughput in Node 20 for one stack. argv[2] = JSON {stack, dialect, url, base, K, M}
import { setMaxListeners } from "node:events";
import { loadStack } from "../lib/stacks.mjs";
import { runThroughput } from "../lib/throughput-core.mjs";

setMaxListeners(0);
const a = JSON.parse(process.argv[2]);
const r = await runThroughput(await loadStack(a.stack), a);
process.stdout.write(JSON.stringify(r) + "\n");
setTimeout(() => process.exit(0), 100);
