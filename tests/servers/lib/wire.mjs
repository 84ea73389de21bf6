// A deliberately raw MCP requestor for recording and checking the test servers: JSON-RPC written by hand,
// Streamable HTTP via fetch with SSE parsed by hand, or one WebSocket (subprotocol "mcp"). Every message
// sent and received is appended to `log` as {t, dir: "send"|"recv", via: "post"|"get"|"ws"|"delete", http?, sse?, ws?, body}
// (t = ms since the connection was opened; `ws` marks the socket's open/close, with body null).
// No dependencies; Node >= 20 (WebSocket needs Node 22, or Node 20 with --experimental-websocket).

export const LEGACY_VERSION = '2025-11-25';
export const RELATED = 'io.modelcontextprotocol/related-task';
const ORIGIN = 'http://127.0.0.1:9';

const HEADER_SUBSET = [
    'accept',
    'origin',
    'content-type',
    'mcp-session-id',
    'mcp-protocol-version',
    'allow',
    'access-control-allow-origin',
    'access-control-expose-headers',
    'last-event-id'
];

function subset(headers) {
    const out = {};
    for (const name of HEADER_SUBSET) {
        const v = headers.get ? headers.get(name) : headers[name];
        if (v !== null && v !== undefined) out[name] = v;
    }
    return out;
}

/** Splits an SSE byte stream into events, by hand (LF, CRLF or CR line ends). */
export async function* sseEvents(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let ev = { data: [], event: undefined, id: undefined, retry: undefined, eol: undefined };
    const flush = function* () {
        if (ev.data.length || ev.event !== undefined || ev.id !== undefined || ev.retry !== undefined) {
            yield { event: ev.event, id: ev.id, retry: ev.retry, eol: ev.eol, data: ev.data.join('\n') };
        }
        ev = { data: [], event: undefined, id: undefined, retry: undefined, eol: undefined };
    };
    for (;;) {
        const { value, done } = await reader.read();
        buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
        for (;;) {
            const m = /\r\n|\n|\r/.exec(buf);
            if (!m) break;
            // a lone CR at the end of the buffer may be the first half of CRLF
            if (m[0] === '\r' && m.index === buf.length - 1 && !done) break;
            const line = buf.slice(0, m.index);
            ev.eol ??= m[0] === '\r\n' ? 'crlf' : m[0] === '\n' ? 'lf' : 'cr';
            buf = buf.slice(m.index + m[0].length);
            if (line === '') {
                yield* flush();
                continue;
            }
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            let value = colon < 0 ? '' : line.slice(colon + 1);
            if (value.startsWith(' ')) value = value.slice(1);
            if (field === 'data') ev.data.push(value);
            else if (field === 'event') ev.event = value;
            else if (field === 'id') ev.id = value;
            else if (field === 'retry') ev.retry = value;
        }
        if (done) {
            yield* flush();
            return;
        }
    }
}

function parseJson(text) {
    try {
        return JSON.parse(text);
    } catch {
        return { unparsed: text };
    }
}

/** Shared part of both transports: id allocation, response matching, server→client request handling. */
class Conn {
    constructor(log) {
        const t0 = Date.now();
        this.log = { push: entry => log.push({ t: Date.now() - t0, ...entry }) };
        this.seq = 0;
        this.waiting = new Map(); // id -> resolve
        this.onServerRequest = undefined; // async (msg) => result | {error}
        this.seen = []; // every received message, in order
    }

    nextId() {
        return ++this.seq;
    }

    /** Every received JSON-RPC message passes here. */
    async incoming(msg) {
        if (!msg || typeof msg !== 'object') return;
        this.seen.push(msg);
        if (Array.isArray(msg)) {
            for (const m of msg) await this.incoming(m);
            return;
        }
        if (msg.method && msg.id !== undefined && this.onServerRequest) {
            const answer = await this.onServerRequest(msg);
            if (answer?.error) await this.respondError(msg.id, answer.error);
            else await this.respond(msg.id, answer);
            return;
        }
        if (!msg.method && msg.id !== undefined && this.waiting.has(msg.id)) {
            const { resolve } = this.waiting.get(msg.id);
            this.waiting.delete(msg.id);
            resolve(msg);
        }
    }

    /** Resolves with the response to request `id` (whatever stream it arrives on). */
    responseTo(id, timeoutMs) {
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiting.delete(id);
                reject(new Error(`no response to request ${id} within ${timeoutMs} ms`));
            }, timeoutMs);
            this.waiting.set(id, {
                timer,
                resolve: m => {
                    clearTimeout(timer);
                    resolve(m);
                }
            });
        });
    }

    /** Stops waiting for the response to `id` (the promise from responseTo then never settles). */
    forget(id) {
        clearTimeout(this.waiting.get(id)?.timer);
        this.waiting.delete(id);
    }

    async initialize(capabilities = { elicitation: { form: {} }, sampling: {} }) {
        const r = await this.request('initialize', {
            protocolVersion: LEGACY_VERSION,
            capabilities,
            clientInfo: { name: 'mcp-task-client-recorder', version: '0.0.0' }
        });
        this.protocolVersion = r.result?.protocolVersion;
        await this.notify('notifications/initialized');
        return r;
    }

    async respond(id, result) {
        await this.sendMessage({ jsonrpc: '2.0', id, result });
    }

    async respondError(id, error) {
        await this.sendMessage({ jsonrpc: '2.0', id, error });
    }

    async notify(method, params) {
        await this.sendMessage(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    }
}

/** Streamable HTTP (legacy): one POST per message, SSE or JSON answers, an optional GET listening stream. */
export class HttpConn extends Conn {
    constructor(url, log, { timeoutMs = 30_000 } = {}) {
        super(log);
        this.url = url;
        this.timeoutMs = timeoutMs;
        this.sessionId = undefined;
        this.protocolVersion = undefined;
        this.getAbort = undefined;
        this.pending = new Set();
    }

    headers(accept = 'application/json, text/event-stream') {
        const h = { accept, origin: ORIGIN };
        if (this.sessionId) h['mcp-session-id'] = this.sessionId;
        if (this.protocolVersion) h['mcp-protocol-version'] = this.protocolVersion;
        return h;
    }

    /** POSTs one message; the answer (JSON or SSE) is read in the background and dispatched. */
    async sendMessage(body) {
        const headers = { ...this.headers(), 'content-type': 'application/json' };
        this.log.push({ dir: 'send', via: 'post', http: { method: 'POST', headers: subset(headers) }, body });
        const res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body) });
        const sid = res.headers.get('mcp-session-id');
        if (sid && !this.sessionId) this.sessionId = sid;
        const reading = this.readAnswer(res, 'post');
        this.pending.add(reading);
        reading.finally(() => this.pending.delete(reading));
        // A JSON or empty answer is complete at once; an SSE answer streams on (it may carry requests to us).
        const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
        const answer = sse ? undefined : await reading;
        return { status: res.status, sse, body: answer };
    }

    async readAnswer(res, via) {
        const http = { status: res.status, headers: subset(res.headers) };
        const type = res.headers.get('content-type') ?? '';
        if (type.includes('text/event-stream') && res.body) {
            try {
                for await (const ev of sseEvents(res.body)) {
                    const body = ev.data === '' ? null : parseJson(ev.data);
                    const sse = Object.fromEntries(Object.entries({ event: ev.event, id: ev.id, retry: ev.retry, eol: ev.eol }).filter(([, v]) => v !== undefined));
                    this.log.push({ dir: 'recv', via, http, sse, body });
                    if (body) await this.incoming(body);
                }
            } catch (e) {
                if (e.name !== 'AbortError') this.log.push({ dir: 'recv', via, http, error: String(e) });
            }
            return;
        }
        const text = await res.text();
        const body = text === '' ? null : parseJson(text);
        this.log.push({ dir: 'recv', via, http, body });
        if (body) await this.incoming(body);
        return body;
    }

    async request(method, params, { timeoutMs } = {}) {
        const id = this.nextId();
        const msg = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
        const answer = this.responseTo(id, timeoutMs ?? this.timeoutMs);
        answer.catch(() => {}); // observed below; a timeout must not become an unhandled rejection
        // A JSON answer is read before sendMessage returns: a server that never answers hits the timeout.
        const sent = await Promise.race([this.sendMessage(msg), answer.then(() => null)]);
        if (sent === null || sent.sse || !this.waiting.has(id)) return answer;
        // A JSON/empty answer that is not the response to `id` (e.g. an HTTP error with id null).
        this.forget(id);
        return { httpStatus: sent.status, ...(sent.body && typeof sent.body === 'object' ? sent.body : {}) };
    }

    /** Opens the GET listening stream; messages on it are logged with via "get". */
    async listen() {
        this.getAbort = new AbortController();
        const headers = this.headers('text/event-stream');
        this.log.push({ dir: 'send', via: 'get', http: { method: 'GET', headers: subset(headers) }, body: null });
        const res = await fetch(this.url, { method: 'GET', headers, signal: this.getAbort.signal });
        if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
            await this.readAnswer(res, 'get');
            return res.status;
        }
        this.getReading = this.readAnswer(res, 'get');
        return res.status;
    }

    async close() {
        this.getAbort?.abort();
        await this.getReading;
        if (this.sessionId) {
            const headers = this.headers();
            this.log.push({ dir: 'send', via: 'delete', http: { method: 'DELETE', headers: subset(headers) }, body: null });
            const res = await fetch(this.url, { method: 'DELETE', headers });
            const text = await res.text();
            this.log.push({ dir: 'recv', via: 'delete', http: { status: res.status, headers: subset(res.headers) }, body: text ? parseJson(text) : null });
        }
    }
}

/** One WebSocket (subprotocol "mcp"), one JSON-RPC message per text frame. */
export class WsConn extends Conn {
    constructor(url, log, { timeoutMs = 30_000 } = {}) {
        super(log);
        this.url = url;
        this.timeoutMs = timeoutMs;
    }

    async open() {
        if (typeof WebSocket === 'undefined') throw new Error('no global WebSocket: use Node 22, or Node 20 with --experimental-websocket');
        this.ws = new WebSocket(this.url, 'mcp');
        await new Promise((resolve, reject) => {
            this.ws.addEventListener('open', resolve, { once: true });
            this.ws.addEventListener('error', () => reject(new Error(`WebSocket ${this.url} failed`)), { once: true });
        });
        this.subprotocol = this.ws.protocol;
        this.log.push({ dir: 'recv', via: 'ws', ws: { event: 'open', protocol: this.ws.protocol }, body: null });
        this.ws.addEventListener('message', ev => {
            const body = parseJson(String(ev.data));
            this.log.push({ dir: 'recv', via: 'ws', body });
            this.incoming(body).catch(() => {});
        });
        this.closed = new Promise(resolve =>
            this.ws.addEventListener(
                'close',
                ev => {
                    this.log.push({ dir: 'recv', via: 'ws', ws: { event: 'close', code: ev.code }, body: null });
                    resolve();
                },
                { once: true }
            )
        );
    }

    async sendMessage(body) {
        if (this.ws.readyState !== WebSocket.OPEN) throw new Error('WebSocket is closed');
        this.log.push({ dir: 'send', via: 'ws', body });
        this.ws.send(JSON.stringify(body));
    }

    async request(method, params, { timeoutMs } = {}) {
        if (this.ws.readyState !== WebSocket.OPEN) return { closed: true };
        const id = this.nextId();
        const answer = this.responseTo(id, timeoutMs ?? this.timeoutMs);
        await this.sendMessage(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
        return answer;
    }

    async listen() {
        return 0; // everything already arrives on the socket
    }

    async close() {
        if (this.ws.readyState === WebSocket.OPEN) this.ws.close();
        await this.closed;
    }
}

/** Opens a connection of the right transport for `url` (http(s) or ws(s)). */
export async function connect(url, log, opts) {
    if (url.startsWith('ws')) {
        const c = new WsConn(url, log, opts);
        await c.open();
        return c;
    }
    return new HttpConn(url, log, opts);
}
