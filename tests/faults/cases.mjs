// The fault matrix: one row per fault case. Each case runs a batch of tasks through the proxy with
// `rules` active (see proxy.mjs), then checks the four invariants (see matrix.mjs). `expect` says
// what every task's single end must be:
//   completed  the fault is recoverable (reads only): every task must still deliver its result
//   expired    the server forgot the task: the end must be `expired` (or an explicit error)
//   ended      anything terminal or an explicit error is acceptable, but exactly once
// `kinds` limits a case to some servers (session faults need sessions); `needs` lists client
// options the case depends on.

/** Builds the case list for a batch of `n` tasks whose client times requests out after `timeoutMs`. */
export function buildCases({ n, timeoutMs }) {
  const reads = ["tasks/get", "tasks/result"];
  return [
    { id: "baseline", title: "no fault (control)", rules: [], expect: "completed" },
    {
      id: "reset-mid-sse", title: "connection reset mid-SSE (reads + GET stream)", expect: "completed",
      rules: [{ fault: "reset", method: [...reads, "GET"], every: 2, midEvent: true }],
    },
    {
      id: "truncated-stream", title: "stream ends cleanly mid-message", expect: "completed",
      rules: [{ fault: "truncate", method: reads, every: 2, midEvent: true }],
    },
    {
      id: "stalled-stream", title: "tasks/get: head sent, then silence (client timeout)", expect: "completed",
      rules: [{ fault: "stall", method: "tasks/get", every: 2, count: n }],
    },
    {
      id: "stalled-result", title: "tasks/result: head sent, then silence", expect: "completed", kinds: ["ts-sdk", "python-http", "rmcp2"],
      rules: [{ fault: "stall", method: "tasks/result", count: n }],
    },
    {
      id: "http-5xx", title: "500 / 502 / 503 with HTML bodies", expect: "completed",
      rules: [{ fault: "status", statuses: [500, 502, 503], method: reads, every: 2 }],
    },
    {
      id: "http-400", title: "400 + JSON-RPC error, id null, on some polls", expect: "ended",
      rules: [{ fault: "status", status: 400, json: true, message: "Bad Request: invalid request", method: "tasks/get", every: 3 }],
    },
    {
      id: "429-retry-after", title: "429 + Retry-After: 2 (seconds)", expect: "completed", retryAfter: true,
      rules: [{ fault: "retry-after", status: 429, seconds: 2, method: reads, every: 2 }],
    },
    {
      id: "503-retry-after-ms", title: "503 + retry-after-ms: 1500", expect: "completed", retryAfter: true,
      rules: [{ fault: "retry-after", status: 503, ms: 1500, method: reads, every: 2 }],
    },
    {
      id: "slow-past-timeout", title: `response held ${Math.round(timeoutMs * 1.5)} ms (> client timeout)`, expect: "completed",
      rules: [{ fault: "delay", ms: Math.round(timeoutMs * 1.5), method: reads, every: 2, count: n }],
    },
    {
      id: "tools-list-503", title: "the connect-time tools/list fails once (503)", expect: "completed",
      rules: [{ fault: "status", status: 503, method: "tools/list", count: 1 }],
    },
    {
      id: "connect-5xx", title: "503 twice while connecting (discover / initialize)", expect: "completed", connectErrorOk: true,
      rules: [{ fault: "status", status: 503, method: ["server/discover", "initialize"], count: 2 }],
    },
    {
      id: "create-slow", title: `tools/call answered after ${Math.round(timeoutMs * 1.5)} ms (> timeout)`, expect: "ended",
      rules: [{ fault: "delay", ms: Math.round(timeoutMs * 1.5), method: "tools/call", every: 2 }],
    },
    {
      id: "create-lost", title: "tools/call acted on, answer lost (502)", expect: "ended",
      rules: [{ fault: "status", status: 502, forward: true, method: "tools/call", every: 2 }],
    },
    {
      id: "session-gone", title: "session ended at the server mid-task (404)", expect: "ended", kinds: ["ts-sdk", "python-http", "rmcp2"],
      rules: [{ fault: "session-gone", method: "tasks/get", count: 1, after: 1 }],
    },
    { id: "server-restart", title: "server killed, restarted 2 s later", expect: "ended", action: "restart", rules: [] },
    {
      id: "malformed-json", title: "garbage / cut JSON / not JSON-RPC / HTML bodies", expect: "completed",
      rules: [{ fault: "malformed", variants: ["garbage", "truncated", "not-rpc", "html"], method: reads, every: 2 }],
    },
    {
      id: "wrong-types", title: "fields of the wrong JSON type in status polls", expect: "completed",
      rules: [{ fault: "wrong-types", method: "tasks/get", every: 2 }],
    },
    {
      id: "wrong-types-create", title: "wrong types in every create answer", expect: "ended",
      rules: [{ fault: "wrong-types", method: "tools/call" }],
    },
    {
      id: "oversized", title: "4 MiB message (limit 1 MiB) in polls", expect: "completed", sizeError: true,
      rules: [{ fault: "oversized", bytes: 4 * 1024 * 1024, method: "tasks/get", count: n }],
    },
    {
      id: "endless-line", title: "SSE line that never ends (8 MiB)", expect: "completed", sizeError: true,
      rules: [{ fault: "oversized", variant: "endless-line", bytes: 8 * 1024 * 1024, method: "tasks/get", count: n }],
    },
    {
      id: "duplicate", title: "every message delivered twice", expect: "completed",
      rules: [{ fault: "duplicate", method: "*" }],
    },
    {
      id: "out-of-order", title: "responses overtaken + stale snapshots", expect: "completed",
      rules: [{ fault: "reorder", ms: 1500, method: "tasks/get", count: n }],
    },
    {
      id: "status-backwards", title: "completed, then pushed/polled as working", expect: "completed", noStatusAfterDone: true,
      rules: [{ fault: "backwards", method: "*" }],
    },
    {
      // Only tasks/get is faulted: a legacy task holding its tasks/result (as two do on a page's
      // HTTP/1.1 link) gets its true outcome through it, which the client keeps (see no_status).
      id: "unknown-task", title: "tasks/get says -32602 for a known task", expect: "expired", heldResultWins: true,
      rules: [{ fault: "unknown-task", method: "tasks/get" }],
    },
    {
      id: "result-unknown", title: "tasks/result says -32602 (task gone) after completed", expect: "ended", kinds: ["ts-sdk", "python-http", "rmcp2"],
      rules: [{ fault: "unknown-task", method: "tasks/result" }],
    },
    {
      id: "listen-retry-0", title: "GET stream says `retry: 0` and ends", expect: "completed", kinds: ["ts-sdk", "python-http", "rmcp2"],
      rules: [{ fault: "sse-retry", ms: 0, method: "GET" }],
    },
    {
      // no fault: many tasks asking for input at once; legacy servers answer tasks/result only at the
      // end and send the elicitation on that (blocking) stream, which holds one HTTP/1.1 connection
      id: "input-burst", title: "8 tasks ask for input at once (no fault; HTTP/1.1 pool)", expect: "completed",
      tool: { name: "ask_input", args: () => ({}), pattern: /ask_input|answer|42/ }, n: Math.max(n, 8), answer: true, rules: [],
    },
    {
      id: "phantom", title: "responses to ids never sent, ghost task pushes", expect: "completed",
      rules: [{ fault: "phantom", method: "*", every: 2 }],
    },
  ];
}
