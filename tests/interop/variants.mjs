// Server configurations the matrix runs besides the launcher's kinds: a registered kind started with
// other arguments or environment (tests/servers/README.md lists the options), for deviations seen in
// the wild that no registered kind shows. Each joins the matrix as a kind of its own; a variant whose
// base kind is not registered is left out.

/** name → { base: a launcher kind, args?, env?, what: how it differs from its base } */
export const VARIANTS = {
  // No listening stream (GET → 405): no status notifications, so ends are learned by polls and results only.
  "ts-sdk-no-get": { base: "ts-sdk", args: ["--no-get"], what: "no GET stream (405)" },
  "python-http-no-get": { base: "python-http", args: ["--no-get"], what: "no GET stream (405)" },
  // SSE event ids and resumption (GET + Last-Event-ID); priming events.
  "ts-sdk-event-store": { base: "ts-sdk", args: ["--event-store"], what: "SSE event ids + resumption" },
  // `server/discover` answered as 2026-07-28 without the tasks extension; tasks only through `initialize`.
  "ts-sdk-discover-notasks": { base: "ts-sdk", args: ["--discover-without-tasks"], what: "discover without the tasks extension" },
  // A CORS allow-list of the 2025-11-25 headers only: a browser cannot send a 2026-07-28 request.
  "rmcp3-strict-cors": { base: "rmcp3", env: { STRICT_CORS: "1" }, what: "CORS allows the 2025-11-25 headers only" },
  "rmcp3-modern-strict-cors": { base: "rmcp3-modern", env: { STRICT_CORS: "1" }, what: "CORS allows the 2025-11-25 headers only" },
};
