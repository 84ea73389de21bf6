// The client scenarios of each pinned conformance release: those that apply to this client are
// run; the others are listed with the reason they do not apply.

const CORE = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];
const AUTH = [
  "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
  "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
  "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
  "auth/offline-access-scope", "auth/offline-access-not-supported", "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
];
/** The 2026-07-28 additions of the 0.2 line. */
const MODERN = [
  "request-metadata", "sep-2322-client-request-state", "http-standard-headers",
  "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
  "json-schema-2020-12-preservation", "auth/authorization-server-migration",
  "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
  "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
  "auth/metadata-issuer-mismatch", "auth/dpop", "auth/dpop-nonce",
];

/** Why a listed scenario is not run. */
export const NOT_APPLICABLE = {
  "auth/cross-app-access-complete-flow": "enterprise IdP token exchange (SEP-990 extension): not implemented",
  "auth/enterprise-managed-authorization": "enterprise IdP token exchange (SEP-990 extension): not implemented",
  "auth/wif-jwt-bearer": "workload identity federation JWT bearer grant (extension): no workload identity in a browser or Node library client",
  "sep-2640-client-no-prefetch": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-digest": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-size": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-frontmatter": "Skills (extension): not a client-library feature",
};

/** The `auth/*` scenarios in which the client must refuse, each with what shows it acted. */
const REFUSALS = {
  "auth/resource-mismatch": ["prm-pathbased-requested", "resource-mismatch-rejected"],
  "auth/metadata-issuer-mismatch": ["authorization-server-metadata", "sep-2468-client-validate-metadata-issuer"],
  "auth/iss-supported-missing": ["authorization-request", "sep-2468-client-reject-missing-iss"],
  "auth/iss-wrong-issuer": ["authorization-request", "sep-2468-client-compare-iss-supported"],
  "auth/iss-unexpected": ["authorization-request", "sep-2468-client-compare-iss-unadvertised"],
  "auth/iss-normalized": ["authorization-request", "sep-2468-client-no-normalization"],
};

/** Scenarios where the client is meant to give up (its error exit is the expected end). */
export const MUST_REFUSE = new Set(Object.keys(REFUSALS));

/**
 * Check ids that must succeed for a scenario to pass: the suite records them only when the client
 * acted (a request seen, a value echoed). Every other `auth/*` scenario: the authorization and
 * token requests.
 */
export const PROOF = {
  ...Object.fromEntries(
    [...AUTH, ...MODERN].filter((s) => s.startsWith("auth/") && !REFUSALS[s])
      .map((s) => [s, ["authorization-request", "token-request"]]),
  ),
  ...REFUSALS,
  "auth/scope-retry-limit": ["authorization-request", "scope-retry-limit"],
  "auth/client-credentials-basic": ["token-request", "client-credentials-basic-auth", "valid-bearer-token"],
  "auth/client-credentials-jwt": ["token-request", "client-credentials-jwt-verified", "valid-bearer-token"],
  "auth/authorization-server-migration": ["token-request", "sep-2352-reregister-on-as-change"],
  "auth/iss-supported": ["token-request", "sep-2468-client-compare-iss-supported"],
  "auth/iss-not-advertised": ["token-request", "sep-2468-client-proceed-no-iss"],
  "auth/dpop": ["token-request", "sep-1932-client-token-request-proof", "sep-1932-client-dpop-auth-scheme", "sep-1932-client-fresh-proof"],
  "auth/dpop-nonce": [
    "token-request", "sep-1932-client-token-request-proof", "sep-1932-client-dpop-auth-scheme", "sep-1932-client-fresh-proof",
    "sep-1932-client-as-nonce", "sep-1932-client-rs-nonce",
  ],
  initialize: ["mcp-client-initialization"],
  tools_call: ["tool-add-numbers"],
  "elicitation-sep1034-client-defaults": ["client-elicitation-sep1034-string-default"],
  "sse-retry": ["client-sse-last-event-id", "client-sse-retry-timing"],
  "request-metadata": ["sep-2575-client-populates-meta", "sep-2575-http-client-sends-version-header"],
  "sep-2322-client-request-state": ["sep-2322-client-request-state-echoed", "sep-2322-client-parallel-isolation"],
  "http-standard-headers": ["sep-2243-client-includes-standard-headers"],
  "http-custom-headers": ["sep-2243-client-mirrors-designated-params", "sep-2243-client-omit-null"],
  "http-invalid-tool-headers": ["sep-2243-client-reject-invalid-tool"],
  "json-schema-ref-no-deref": ["sep-2106-no-network-ref-deref"],
  "json-schema-2020-12-preservation": ["json-schema-2020-12-client-echo-completed"],
};

export const SUITES = [
  {
    version: "0.1.16",
    module: "@modelcontextprotocol/conformance",
    scenarios: [...CORE, ...AUTH],
    listed: ["auth/cross-app-access-complete-flow"],
  },
  {
    version: "0.2.0-alpha.12",
    module: "conformance-0.2",
    scenarios: [...CORE, ...AUTH, ...MODERN],
    listed: Object.keys(NOT_APPLICABLE).filter((s) => s !== "auth/cross-app-access-complete-flow"),
  },
];
