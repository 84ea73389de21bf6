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
  "auth/offline-access-scope", "auth/offline-access-not-supported",
];
/** The 2026-07-28 additions of the 0.2 line. */
const MODERN = [
  "request-metadata", "sep-2322-client-request-state", "http-standard-headers",
  "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref",
  "json-schema-2020-12-preservation", "auth/authorization-server-migration",
  "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
  "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
];

/** Why a listed scenario is not run. */
export const NOT_APPLICABLE = {
  "auth/client-credentials-jwt": "client_credentials grant (machine clients without a user): not implemented",
  "auth/client-credentials-basic": "client_credentials grant (machine clients without a user): not implemented",
  "auth/cross-app-access-complete-flow": "enterprise IdP token exchange (SEP-990 extension): not implemented",
  "auth/enterprise-managed-authorization": "enterprise IdP token exchange (SEP-990 extension): not implemented",
  "auth/dpop": "DPoP-bound tokens (extension): not implemented",
  "auth/dpop-nonce": "DPoP-bound tokens (extension): not implemented",
  "auth/wif-jwt-bearer": "workload identity federation JWT bearer grant (extension): no workload identity in a browser or Node library client",
  "sep-2640-client-no-prefetch": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-digest": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-size": "Skills (extension): not a client-library feature",
  "sep-2640-client-verify-frontmatter": "Skills (extension): not a client-library feature",
};

/** Check ids that must succeed for a scenario to pass: they show the client acted. */
export const PROOF = {};

export const SUITES = [
  {
    version: "0.1.16",
    module: "@modelcontextprotocol/conformance",
    scenarios: [...CORE, ...AUTH],
    listed: ["auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow"],
  },
  {
    version: "0.2.0-alpha.12",
    module: "conformance-0.2",
    scenarios: [...CORE, ...AUTH, ...MODERN],
    listed: Object.keys(NOT_APPLICABLE).filter((s) => s !== "auth/cross-app-access-complete-flow"),
  },
];
