// The React 19 app of react.test.mjs (bundled by esbuild, development build, under StrictMode):
// one <McpClientProvider> that the test can unmount and mount again, two components reading its
// client, and tool runners (useCallTool) the test mounts, drives and unmounts through `window.app`.
// The client is told its link is HTTP/2 (as on an HTTP/2 server, or in Node) so that it holds each
// task's `tasks/result` open, and to forget a task nobody follows after 1 s (default 5 min): what
// releases the held request after an unmount.
import { StrictMode, createElement as h, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { McpClientProvider, useCallTool, useMcpClient, useTask } from "mcp-task-client/react";

const url = new URLSearchParams(location.search).get("server");
window.mounts = 0;
window.runners = {};

const text = (r) => (r ? r.content.map((c) => (c.type === "text" ? c.text : "")).join(" ") : "");

function Status({ id }) {
  const { status, client } = useMcpClient();
  return h("p", { id }, status + (client ? " " + client.dialect : ""));
}

function Runner({ name, tool, cancelOnUnmount }) {
  const call = useCallTool(tool, { cancelOnUnmount });
  window.runners[name] = call;
  const line = [call.status ?? "idle", call.isPending ? "pending" : "settled", text(call.result), call.error ? "error " + call.error.kind : ""];
  return h("p", { id: "run-" + name, "data-task": call.handle?.id ?? "" }, line.join("|"));
}

function Watcher({ id }) {
  const { client } = useMcpClient();
  const s = useTask(id, { client });
  return h("p", { id: "watch-" + id }, (s.status ?? "none") + "|" + text(s.result));
}

function Outside() {
  try {
    useMcpClient();
    return h("p", { id: "outside" }, "no error");
  } catch (e) {
    return h("p", { id: "outside" }, e.kind + ": " + e.message);
  }
}

function App() {
  const [provided, setProvided] = useState(true);
  const [runners, setRunners] = useState([]);
  const [watched, setWatched] = useState([]);
  useEffect(() => {
    window.mounts++;
  }, []);
  window.app = {
    provide: setProvided,
    mount: (name, tool, cancelOnUnmount = false) => setRunners((rs) => [...rs, { name, tool, cancelOnUnmount }]),
    unmount: (name) => setRunners((rs) => rs.filter((r) => r.name !== name)),
    watch: (id) => setWatched((ws) => [...ws, id]),
    unwatch: (id) => setWatched((ws) => ws.filter((w) => w !== id)),
  };
  return h("div", null,
    h(Outside),
    provided && h(McpClientProvider, { url, options: { clientName: "react-provider-test", link: "http2" } },
      h(Status, { id: "conn" }),
      h(Status, { id: "conn2" }),
      runners.map((r) => h(Runner, { key: r.name, ...r })),
      watched.map((id) => h(Watcher, { key: id, id }))));
}

createRoot(document.getElementById("root")).render(h(StrictMode, null, h(App)));
