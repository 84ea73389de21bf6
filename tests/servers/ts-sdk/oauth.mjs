// OAuth for the test server (`--oauth`): the SDK's authorization server router (`mcpAuthRouter`:
// metadata, dynamic registration, authorize, token), its bearer middleware in front of /mcp, and
// its demo in-memory provider with short-lived access tokens and rotating refresh tokens
// (`--token-ttl-s N`, default 3). The authorize step approves at once (no login page).
import { randomUUID } from 'node:crypto';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** OAUTH_TRACE=1: each token issued, refresh asked and access token rejected on stderr, with the time (ms,
 *  modulo 100 s) and the tokens' first characters (with MCP_TEST_SERVER_LOG=1 a test shows it). */
const trace = process.env.OAUTH_TRACE ? (what) => console.error(`oauth ${Date.now() % 100_000} ${what}`) : () => {};

/** The demo provider, with access tokens living `ttlS` seconds and refresh tokens. */
class ShortLivedProvider extends DemoInMemoryAuthProvider {
    constructor(ttlS, counts) {
        super();
        this.ttlS = ttlS;
        this.counts = counts;
        this.refreshTokens = new Map();
        this.spent = new Set(); // the refresh tokens refreshes consumed
    }

    /** A new access token (and refresh token) for what `grant` describes. */
    issue(grant) {
        const token = randomUUID();
        this.tokens.set(token, { ...grant, token, expiresAt: Date.now() + this.ttlS * 1000, type: 'access' });
        const refresh = randomUUID();
        trace(`issued access ${token.slice(0, 6)} refresh ${refresh.slice(0, 6)}`);
        this.refreshTokens.set(refresh, grant);
        return { access_token: token, token_type: 'bearer', expires_in: this.ttlS, refresh_token: refresh, scope: grant.scopes.join(' ') };
    }

    async exchangeAuthorizationCode(client, code, verifier, redirectUri, resource) {
        const answer = await super.exchangeAuthorizationCode(client, code, verifier, redirectUri, resource);
        const granted = this.tokens.get(answer.access_token);
        this.tokens.delete(answer.access_token);
        this.counts.codes++;
        return this.issue({ clientId: granted.clientId, scopes: granted.scopes, resource: granted.resource });
    }

    async exchangeRefreshToken(client, refreshToken) {
        const grant = this.refreshTokens.get(refreshToken);
        trace(`refresh ${String(refreshToken).slice(0, 6)} ${grant ? "live" : "unknown"}`);
        if (!grant || grant.clientId !== client.client_id) {
            this.counts.refusedRefreshes++; // e.g. a refresh token another refresh already consumed
            if (this.spent.has(refreshToken)) this.counts.spentAgain++; // a server with reuse detection revokes the grant here
            throw new InvalidGrantError('unknown refresh token');
        }
        this.refreshTokens.delete(refreshToken); // rotation: each refresh token works once
        this.spent.add(refreshToken);
        this.counts.refreshes++;
        return this.issue(grant);
    }

    async verifyAccessToken(token) {
        try {
            return await super.verifyAccessToken(token);
        } catch (e) {
            trace(`rejected access ${String(token).slice(0, 6)}`);
            this.counts.rejected++;
            throw e;
        }
    }
}

/** Mounts OAuth on `app` (before the /mcp routes); call `listening(base)` once the port is known. */
export function installOAuth(app, { ttlS }) {
    const counts = { codes: 0, refreshes: 0, refusedRefreshes: 0, spentAgain: 0, rejected: 0 };
    let router = null;
    let bearer = null;
    app.get('/oauth-stats', (_req, res) => res.json(counts));
    app.use((req, res, next) => (router ? router(req, res, next) : next()));
    app.use('/mcp', (req, res, next) => (bearer ? bearer(req, res, next) : next()));
    return function listening(base) {
        const provider = new ShortLivedProvider(ttlS, counts);
        const mcpUrl = new URL(`${base}/mcp`);
        router = mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'] });
        bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp` });
    };
}
