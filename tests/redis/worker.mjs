// One Node process of the multi-process tests: a client with `persist: { redis }` driven over IPC.
// In:  {cmd: "call", n, steps, stepMs} | {cmd: "watch", ids} | {cmd: "resume"} | {cmd: "close"}
// Out: {type: "ready"} | {type: "called", ids} | {type: "resumed", ids} | {type: "role", role, at}
//      | {type: "once", taskId, status, at} | {type: "done", taskId} | {type: "warning", message}
import { Redis } from "ioredis";
import { McpTaskClient } from "../../pkg/node.js";

const [url, port, identity] = process.argv.slice(2);
const send = (m) => process.send?.(m);
const redis = new Redis({ host: "127.0.0.1", port: Number(port), retryStrategy: () => 200 });
redis.on("error", () => {});

const client = await McpTaskClient.connect(url, {
  persist: { redis },
  identity,
  onWarning: (w) => send({ type: "warning", message: w.error.message, data: w.error.data ?? null }),
});
client.onTaskDoneOnce((d) => send({ type: "once", taskId: d.taskId, status: d.status, at: Date.now() }));

let role = null;
setInterval(() => {
  if (client.role !== role) send({ type: "role", role: (role = client.role), at: Date.now() });
}, 50);

const follow = (h) => h.onDone(() => send({ type: "done", taskId: h.id }));
const named = (h) =>
  new Promise((resolve) => {
    if (h.id) return resolve(h.id);
    const off = h.onStatus(() => h.id && (off(), resolve(h.id)));
  });

process.on("message", async (m) => {
  if (m.cmd === "call") {
    const handles = await Promise.all(
      Array.from({ length: m.n }, () => client.callTool("long_job", { steps: m.steps, stepMs: m.stepMs })),
    );
    handles.forEach(follow);
    send({ type: "called", ids: await Promise.all(handles.map(named)) });
  } else if (m.cmd === "watch") {
    for (const id of m.ids) follow(client.watch(id));
    send({ type: "watching" });
  } else if (m.cmd === "resume") {
    const handles = await client.resume();
    send({ type: "resumed", ids: handles.map((h) => h.id) });
  } else if (m.cmd === "close") {
    await client.close();
    redis.disconnect();
    process.exit(0);
  }
});
send({ type: "ready" });
