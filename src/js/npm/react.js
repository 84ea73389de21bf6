// React bindings: `useMcpClient` and `useTask`. Safe under StrictMode's simulated unmount: a
// connect starts only once the mount survived (one session, not two), each mount watches with
// its own subscription and stops it on unmount, and `cancelOnUnmount` cancels only when the
// unmount is real (the cancel is deferred past StrictMode's immediate remount).
import { useEffect, useRef, useState } from "react";
import { McpTaskClient } from "mcp-task-client";

const CONNECTING = { client: null, error: null, status: "connecting" };

/** Connects to `url` while the component is mounted; reconnects when `url` changes. */
export function useMcpClient(url, options) {
  const opts = useRef(options);
  opts.current = options;
  const [state, setState] = useState(CONNECTING);
  useEffect(() => {
    if (!url) return undefined;
    const ac = new AbortController();
    let client = null;
    setState(CONNECTING);
    // Deferred: StrictMode's simulated unmount clears it before any request goes out.
    const start = setTimeout(() => {
      McpTaskClient.connect(url, { ...opts.current, signal: ac.signal }).then(
        (c) => {
          client = c;
          if (ac.signal.aborted) void c.close();
          else setState({ client: c, error: null, status: "connected" });
        },
        (error) => {
          if (!ac.signal.aborted) setState({ client: null, error, status: "error" });
        },
      );
    }, 0);
    return () => {
      clearTimeout(start);
      ac.abort();
      if (client) void client.close();
    };
  }, [url]);
  return state;
}

/** Cancels the remote task; a watcher made for it is stopped once the server acknowledged. */
function cancel(h, made) {
  h.cancel()
    .catch(() => {})
    .finally(() => made && h.stop());
}

const IDLE = { task: null, status: null, done: null, result: undefined, error: null };

/** Follows a task (a handle, or an id with `options.client`) while the component is mounted. */
export function useTask(handleOrId, options = {}) {
  const { client = null, cancelOnUnmount = false } = options;
  const [state, setState] = useState(IDLE);
  const pendingCancel = useRef(null);
  useEffect(() => {
    // A remount right after an unmount (StrictMode) keeps the task running.
    clearTimeout(pendingCancel.current);
    if (!handleOrId || (typeof handleOrId === "string" && !client)) return undefined;
    const own = typeof handleOrId === "string";
    const h = own ? client.watch(handleOrId) : handleOrId;
    let live = true;
    const set = (patch) => live && setState((s) => ({ ...s, ...patch }));
    setState({ ...IDLE, task: h.task, status: h.status });
    const offStatus = h.onStatus((task) => set({ task, status: task.status }));
    const offDone = h.onDone((done) => set({ done, task: done.task, status: done.status }));
    h.result().then(
      (result) => set({ result }),
      (error) => set({ error }),
    );
    return () => {
      live = false;
      offStatus();
      offDone();
      if (own) h.stop();
      if (cancelOnUnmount) pendingCancel.current = setTimeout(() => cancel(own ? client.watch(h.id ?? handleOrId) : h, own), 0);
    };
  }, [handleOrId, client, cancelOnUnmount]);
  return state;
}
