// React bindings: one client per `<McpClientProvider>`, `useMcpClient`, `useCallTool` (start on
// demand, like a mutation) and `useTask`. Safe under StrictMode's simulated unmount: a connect
// starts only once the mount survived (one session, not two); each mount follows with its own
// callbacks and a hook stops what it started when it unmounts (nothing is sent: the task goes on);
// a remote cancel happens only when asked (`cancel()`, or `cancelOnUnmount` on a real unmount,
// deferred past StrictMode's immediate remount).
import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { McpTaskClient, McpTaskError } from "mcp-task-client";

const CONNECTING = { client: null, error: null, status: "connecting" };
const Shared = createContext(null);

/** Connects to `url` while mounted (closing on unmount); a falsy `url` connects nothing. */
function useConnection(url, options) {
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

/** Shares one client (one session) with every hook below it; reconnects when `url` changes. */
export function McpClientProvider({ url, options, children }) {
  const state = useConnection(url, options);
  const latest = useRef(state);
  latest.current = state;
  const waiters = useRef([]);
  useEffect(() => {
    if (state.status === "connecting") return;
    for (const w of waiters.current.splice(0)) w(state);
  }, [state]);
  const value = useMemo(() => {
    const ready = () => {
      const s = latest.current;
      if (s.status === "connecting") return new Promise((settle) => waiters.current.push(settle)).then(clientOf);
      return Promise.resolve(s).then(clientOf);
    };
    return { state, ready };
  }, [state]);
  return createElement(Shared.Provider, { value }, children);
}

const clientOf = (s) => {
  if (s.client) return s.client;
  throw s.error;
};

/** The provider's client state; called with a `url` (even a falsy one), a connection of this component's own. */
export function useMcpClient(url, options) {
  const shared = useContext(Shared);
  const own = useConnection(url, options);
  if (arguments.length > 0) return own;
  if (!shared) throw new McpTaskError("useMcpClient() needs an <McpClientProvider> above it, or a url", { kind: "invalidInput" });
  return shared.state;
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
    if (!handleOrId || (typeof handleOrId === "string" && !client)) {
      setState(IDLE);
      return undefined;
    }
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

/** Calls tool `name` on demand (`start`) and follows the task it made, like a mutation. */
export function useCallTool(name, options = {}) {
  const shared = useContext(Shared);
  const opts = useRef(options);
  opts.current = options;
  const [handle, setHandle] = useState(null);
  const [call, setCall] = useState({ starting: false, error: null });
  const current = useRef(null);
  const mounted = useRef(true);
  const followed = useTask(handle);
  // The handle this hook started is its own: stopped on unmount (or cancelled, if asked).
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      const h = current.current;
      current.current = null;
      if (h && opts.current.cancelOnUnmount && !h.isDone) cancel(h, true);
      else h?.stop();
    };
  }, []);
  const startAsync = useCallback(
    async (args, callOptions) => {
      const { client = null } = opts.current;
      setCall({ starting: true, error: null });
      try {
        const c = client ?? (await readyClient(shared));
        const h = await c.callTool(name, args, callOptions);
        if (!mounted.current) {
          h.stop();
          return h;
        }
        current.current?.stop();
        current.current = h;
        setHandle(h);
        setCall({ starting: false, error: null });
        return h;
      } catch (error) {
        if (mounted.current) setCall({ starting: false, error });
        throw error;
      }
    },
    [name, shared],
  );
  const start = useCallback((args, callOptions) => startAsync(args, callOptions).catch(() => null), [startAsync]);
  const reset = useCallback(() => {
    current.current?.stop();
    current.current = null;
    setHandle(null);
    setCall({ starting: false, error: null });
  }, []);
  const cancelTask = useCallback(() => current.current?.cancel() ?? Promise.resolve(), []);
  const error = call.error ?? followed.error;
  const isPending = call.starting || (handle !== null && followed.result === undefined && followed.error === null);
  return { ...followed, handle, error, isPending, start, startAsync, cancel: cancelTask, reset };
}

function readyClient(shared) {
  if (shared) return shared.ready();
  return Promise.reject(new McpTaskError("useCallTool needs an <McpClientProvider> above it, or options.client", { kind: "invalidInput" }));
}
