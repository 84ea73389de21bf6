#!/usr/bin/env node
// Records raw wire transcripts of the rmcp test servers, by hand-written JSON-RPC over fetch (no
// dependencies; Node >= 20). Each flow starts its own server (port 0, waits for `READY <url>`) and writes
// tests/fixtures/transcripts/<rmcp2|rmcp3>-<flow>.json: an array of
//   {dir: "send"|"recv", via: "post"|"get"|"delete", t, http: {method?|status, headers (subset)}, sse?, body}
// (t = ms since the flow started; an SSE answer gives one "recv" entry per event, `sse` = {id, event, retry, eol}).
//
//   node tests/servers/rust/record.mjs [flow-or-prefix ...]     e.g. `rmcp2`, `rmcp3-input`; none = all
// Build the servers first (tests/servers/rust/build.sh); SERVERS_TARGET_DIR overrides the cargo target dir.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', '..', 'fixtures', 'transcripts');
const TARGET = process.env.SERVERS_TARGET_DIR || join(homedir(), '.cache', 'mcp-task-client', 'servers-target');
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const HEADERS_KEPT = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'accept', 'last-event-id', 'allow', 'access-control-allow-origin', 'access-control-expose-headers'];
const sleep = ms => new Promise(r => setTimeout(r, ms));

function subset(h) {
    const out = {};
    for (const k of HEADERS_KEPT) {
        const v = typeof h.get === 'function' ? h.get(k) : h[k];
        if (v !== null && v !== undefined) out[k] = v;
    }
    return out;
}

function parse(text) {
    try {
        return JSON.parse(text);
    } catch {
        return { unparsed: text };
    }
}

/** SSE events from a fetch body (LF / CRLF / CR); yields {id, event, retry, data}. */
async function* sse(body) {
    const reader = body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let ev = { data: [] };
    for (;;) {
        const { value, done } = await reader.read();
        buf += done ? dec.decode() : dec.decode(value, { stream: true });
        let m;
        while ((m = /\r\n|\n|\r(?!$)/.exec(buf))) {
            const line = buf.slice(0, m.index);
            ev.eol ??= m[0] === '\r\n' ? 'crlf' : m[0] === '\n' ? 'lf' : 'cr';
            buf = buf.slice(m.index + m[0].length);
            if (line === '') {
                if (ev.data.length || ev.id !== undefined || ev.event !== undefined || ev.retry !== undefined) yield { ...ev, data: ev.data.join('\n') };
                ev = { data: [] };
                continue;
            }
            if (line.startsWith(':')) continue;
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'data') ev.data.push(val);
            else if (['id', 'event', 'retry'].includes(field)) ev[field] = val;
        }
        if (done) {
            if (ev.data.length) yield { ...ev, data: ev.data.join('\n') };
            return;
        }
    }
}

/** One recorded conversation with one server (legacy session or modern stateless). */
class Wire {
    constructor(url, { modern = false, capabilities } = {}) {
        this.url = url;
        this.modern = modern;
        this.capabilities = capabilities ?? (modern ? { extensions: { [TASKS_EXT]: {} } } : { elicitation: { form: {} } });
        this.log = [];
        this.t0 = Date.now();
        this.seq = 0;
        this.sessionId = undefined;
        this.protocolVersion = undefined;
        this.seen = []; // every received message
        this.waiters = [];
    }

    entry(e) {
        this.log.push({ dir: e.dir, via: e.via, t: Date.now() - this.t0, ...e });
    }

    received(msg) {
        this.seen.push(msg);
        this.waiters = this.waiters.filter(w => !(w.pred(msg) && (w.resolve(msg), true)));
    }

    /** Resolves with the first received message (past or future) matching `pred`. */
    waitFor(pred, ms = 10_000) {
        const hit = this.seen.find(pred);
        if (hit) return Promise.resolve(hit);
        return new Promise((resolve, reject) => {
            const w = { pred, resolve };
            this.waiters.push(w);
            setTimeout(() => {
                this.waiters = this.waiters.filter(x => x !== w);
                reject(new Error(`waitFor: nothing matched within ${ms} ms`));
            }, ms);
        });
    }

    headers(extra = {}) {
        const h = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', origin: 'http://127.0.0.1:9' };
        if (this.sessionId) h['mcp-session-id'] = this.sessionId;
        if (this.protocolVersion) h['mcp-protocol-version'] = this.protocolVersion;
        return { ...h, ...extra };
    }

    /** Reads a whole answer (JSON, or SSE until the server ends it or `signal` aborts), logging it. */
    async read(res, via, signal) {
        const http = { status: res.status, headers: subset(res.headers) };
        const type = res.headers.get('content-type') ?? '';
        const out = [];
        if (type.includes('text/event-stream') && res.body) {
            try {
                for await (const ev of sse(res.body)) {
                    const body = ev.data === '' ? null : parse(ev.data);
                    const meta = Object.fromEntries(['id', 'event', 'retry', 'eol'].filter(k => ev[k] !== undefined).map(k => [k, ev[k]]));
                    this.entry({ dir: 'recv', via, http, sse: meta, body });
                    if (body) {
                        out.push(body);
                        this.received(body);
                    }
                }
            } catch (e) {
                if (!signal?.aborted) this.entry({ dir: 'recv', via, http, error: String(e) });
            }
            return { status: res.status, messages: out };
        }
        const text = await res.text();
        const body = text === '' ? null : parse(text);
        this.entry({ dir: 'recv', via, http, body });
        if (body) {
            out.push(body);
            this.received(body);
        }
        return { status: res.status, messages: out };
    }

    /** POSTs one JSON-RPC message (object) with optional header overrides; returns {status, messages}. */
    async post(body, { headers = {}, timeoutMs = 15_000, background = false } = {}) {
        const h = this.headers(headers);
        for (const [k, v] of Object.entries(h)) if (v === undefined) delete h[k];
        this.entry({ dir: 'send', via: 'post', http: { method: 'POST', headers: subset(h) }, body });
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(), timeoutMs);
        const res = await fetch(this.url, { method: 'POST', headers: h, body: JSON.stringify(body), signal: ctl.signal });
        const sid = res.headers.get('mcp-session-id');
        if (sid && !this.sessionId && !this.modern) this.sessionId = sid;
        const reading = this.read(res, 'post', ctl.signal).finally(() => clearTimeout(timer));
        if (background) return { abort: () => ctl.abort(), done: reading };
        return reading;
    }

    /** A request; modern requests get the per-request `_meta` and the Mcp-Method / Mcp-Name headers. */
    async request(method, params = {}, opts = {}) {
        const id = opts.id ?? ++this.seq;
        let p = params;
        let headers = opts.headers ?? {};
        if (this.modern) {
            p = {
                ...params,
                _meta: {
                    'io.modelcontextprotocol/protocolVersion': MODERN,
                    'io.modelcontextprotocol/clientCapabilities': this.capabilities,
                    'io.modelcontextprotocol/clientInfo': { name: 'rmcp-recorder', version: '0.0.0' },
                    ...(params._meta ?? {})
                }
            };
            const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
            headers = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}), ...headers };
        }
        const r = await this.post({ jsonrpc: '2.0', id, method, params: p }, { ...opts, headers });
        if (opts.background) return r;
        return { ...r, response: r.messages.find(m => m.id === id && !m.method) };
    }

    async notify(method, params) {
        return this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    }

    async respond(id, result) {
        return this.post({ jsonrpc: '2.0', id, result });
    }

    async initialize(capabilities = this.capabilities, protocolVersion = LEGACY) {
        const r = await this.request('initialize', { protocolVersion, capabilities, clientInfo: { name: 'rmcp-recorder', version: '0.0.0' } });
        this.protocolVersion = r.response?.result?.protocolVersion;
        if (r.response?.result) await this.notify('notifications/initialized');
        return r;
    }

    /** Opens the GET listening stream (legacy); returns {close()}. */
    async listen() {
        const ctl = new AbortController();
        const h = this.headers({ accept: 'text/event-stream' });
        delete h['content-type'];
        this.entry({ dir: 'send', via: 'get', http: { method: 'GET', headers: subset(h) }, body: null });
        const res = await fetch(this.url, { method: 'GET', headers: h, signal: ctl.signal });
        const reading = this.read(res, 'get', ctl.signal);
        return {
            close: async () => {
                ctl.abort();
                await reading;
            }
        };
    }

    async delete() {
        const h = this.headers();
        delete h['content-type'];
        this.entry({ dir: 'send', via: 'delete', http: { method: 'DELETE', headers: subset(h) }, body: null });
        const res = await fetch(this.url, { method: 'DELETE', headers: h });
        return this.read(res, 'delete');
    }

    /** Polls tasks/get until `done(result)` (default: a terminal status); returns the last response. */
    async pollUntil(taskId, done = r => ['completed', 'failed', 'cancelled'].includes(r?.result?.status), { everyMs = 300, maxMs = 10_000 } = {}) {
        const end = Date.now() + maxMs;
        for (;;) {
            const { response } = await this.request('tasks/get', { taskId });
            if (done(response) || response?.error || Date.now() > end) return response;
            await sleep(everyMs);
        }
    }
}

/** Starts a server binary on port 0 and resolves {url, stop()} once it printed READY. */
async function start(bin, args = [], env = {}) {
    const path = join(TARGET, 'release', bin);
    if (!existsSync(path)) throw new Error(`${path} missing: run tests/servers/rust/build.sh`);
    const child = spawn(path, ['--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', d => (stderr = (stderr + d).slice(-4000)));
    const url = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`${bin}: no READY in 10 s\n${stderr}`)), 10_000);
        child.stdout.setEncoding('utf8').on('data', d => {
            out += d;
            const m = /^READY (\S+)/m.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve(m[1]);
            }
        });
        child.once('exit', code => reject(new Error(`${bin} exited (${code}) before READY\n${stderr}`)));
    });
    return {
        url,
        stop: async () => {
            child.kill('SIGTERM');
            await new Promise(r => (child.exitCode !== null ? r() : child.once('exit', r)));
        }
    };
}

const taskIdOf = r => r?.result?.task?.taskId ?? r?.result?.taskId;

// ---------------------------------------------------------------- rmcp2 (legacy 2025-11-25) flows
const rmcp2 = {
    async completed(w) {
        await w.initialize();
        await w.request('tools/list');
        const { response } = await w.request('tools/call', { name: 'long_job', arguments: { steps: 2, stepMs: 400 }, task: { ttl: 60000 } });
        const id = taskIdOf(response);
        await w.request('tasks/get', { taskId: id });
        await w.request('tasks/result', { taskId: id }); // blocks until the task ends
        await w.request('tasks/get', { taskId: id }); // consumed: -32002
        await w.request('tasks/result', { taskId: id });
        await w.delete();
    },
    async failed(w) {
        await w.initialize();
        const id = taskIdOf((await w.request('tools/call', { name: 'fail_job', arguments: {}, task: {} })).response);
        await w.pollUntil(id);
        await w.request('tasks/result', { taskId: id });
    },
    async 'failed-iserror'(w) {
        await w.initialize();
        const id = taskIdOf((await w.request('tools/call', { name: 'fail_job', arguments: { isError: true }, task: {} })).response);
        await w.pollUntil(id); // an isError result ends "completed"
        await w.request('tasks/result', { taskId: id });
    },
    async cancelled(w) {
        await w.initialize();
        const { response } = await w.request('tools/call', { name: 'slow_job', arguments: { ms: 5000 }, task: {} });
        const id = taskIdOf(response);
        await w.request('tasks/cancel', { taskId: id });
        await w.request('tasks/get', { taskId: id });
        await w.request('tasks/cancel', { taskId: id });
        await w.request('tasks/result', { taskId: id });
        await w.request('tasks/get', { taskId: id });
    },
    async 'input-required'(w) {
        await w.initialize({ elicitation: { form: {} } });
        const get = await w.listen();
        const { response } = await w.request('tools/call', { name: 'ask_input', arguments: { question: 'Your name?' }, task: {} });
        const id = taskIdOf(response);
        const ask = await w.waitFor(m => m.method === 'elicitation/create');
        await w.request('tasks/get', { taskId: id }); // still "working": rmcp 2 never says input_required
        await w.respond(ask.id, { action: 'accept', content: { answer: 'Ada' }, _meta: { 'io.modelcontextprotocol/related-task': { taskId: id } } });
        await w.pollUntil(id);
        await w.request('tasks/result', { taskId: id });
        await get.close();
    },
    async 'input-required-result-stream'(w) {
        // tasks/result while input is pending: the elicitation goes to the GET stream, not this one.
        await w.initialize({ elicitation: { form: {} } });
        const { response } = await w.request('tools/call', { name: 'ask_input', arguments: { question: 'Color?' }, task: {} });
        const id = taskIdOf(response);
        const pending = await w.request('tasks/result', { taskId: id }, { background: true });
        await sleep(1000);
        const get = await w.listen(); // replays the queued elicitation
        const ask = await w.waitFor(m => m.method === 'elicitation/create');
        await w.respond(ask.id, { action: 'accept', content: { answer: 'blue' } });
        await pending.done;
        await w.request('tasks/get', { taskId: id });
        await get.close();
    },
    async list(w) {
        await w.initialize();
        const ids = [];
        for (const ms of [1500, 1500]) ids.push(taskIdOf((await w.request('tools/call', { name: 'slow_job', arguments: { ms }, task: {} })).response));
        const quick = taskIdOf((await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'x' }, task: {} })).response);
        await sleep(600);
        await w.request('tasks/list'); // running tasks only; the finished maybe_task is missing
        await w.request('tasks/get', { taskId: quick });
        for (const id of ids) await w.pollUntil(id);
        await w.request('tasks/list');
    },
    async 'unknown-task'(w) {
        await w.initialize();
        for (const m of ['tasks/get', 'tasks/result', 'tasks/cancel']) await w.request(m, { taskId: 'no-such-task' });
        await w.request('tasks/get', {});
    },
    async notifications(w) {
        await w.initialize();
        const { response } = await w.request('tools/call', { name: 'long_job', arguments: { steps: 2, stepMs: 200 }, task: {}, _meta: { progressToken: 'p-task' } });
        const id = taskIdOf(response);
        await sleep(700);
        let get = await w.listen(); // a late GET still gets the task's notifications (replayed)
        await w.request('tools/call', { name: 'long_job', arguments: { steps: 2, stepMs: 200 }, _meta: { progressToken: 'p-inline' } });
        await sleep(300);
        await get.close();
        get = await w.listen(); // reopening without Last-Event-ID replays everything again
        await sleep(300);
        await get.close();
        await w.request('tasks/get', { taskId: id });
    },
    async 'task-support'(w) {
        await w.initialize();
        await w.request('tools/call', { name: 'needs_task', arguments: {} });
        await w.request('tools/call', { name: 'quick', arguments: { text: 'x' }, task: {} });
        await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'inline' } });
        await w.request('tools/call', { name: 'quick', arguments: { text: 'x' } });
        await w.request('tools/call', { name: 'needs_task', arguments: { text: 'a' }, task: {} }, { id: 'dup-1' });
        await w.request('tools/call', { name: 'needs_task', arguments: { text: 'b' }, task: {} }, { id: 'dup-1' }); // same id while running
    }
};

// ---------------------------------------------------------------- rmcp3 (2026-07-28 + tasks extension) flows
const rmcp3 = {
    async discover(w) {
        await w.request('server/discover');
        await w.request('tools/list');
    },
    async completed(w) {
        const { response } = await w.request('tools/call', { name: 'long_job', arguments: { steps: 3, stepMs: 300 } });
        const id = taskIdOf(response);
        await w.request('tasks/get', { taskId: id });
        await sleep(450);
        await w.request('tasks/get', { taskId: id });
        await w.pollUntil(id);
        await w.request('tasks/get', { taskId: id });
        await w.request('tasks/result', { taskId: id });
    },
    async failed(w) {
        const id = taskIdOf((await w.request('tools/call', { name: 'fail_job', arguments: {} })).response);
        await w.pollUntil(id);
    },
    async 'failed-iserror'(w) {
        const id = taskIdOf((await w.request('tools/call', { name: 'fail_job', arguments: { isError: true } })).response);
        await w.pollUntil(id);
    },
    async cancelled(w) {
        const id = taskIdOf((await w.request('tools/call', { name: 'slow_job', arguments: { ms: 5000 } })).response);
        await w.request('tasks/cancel', { taskId: id });
        await w.pollUntil(id);
        await w.request('tasks/cancel', { taskId: id }); // terminal: still an empty ack
        const ask = taskIdOf((await w.request('tools/call', { name: 'ask_input', arguments: {} })).response);
        await w.pollUntil(ask, r => r?.result?.status === 'input_required');
        await w.request('tasks/cancel', { taskId: ask });
        await w.pollUntil(ask);
    },
    async 'input-required'(w) {
        const id = taskIdOf((await w.request('tools/call', { name: 'ask_input', arguments: { question: 'Name?', rounds: 2 } })).response);
        await w.pollUntil(id, r => r?.result?.inputRequests?.q1);
        await w.request('tasks/update', { taskId: id, inputResponses: { q1: { action: 'accept', content: { answer: 'Ada' } } } });
        await w.pollUntil(id, r => r?.result?.inputRequests?.q2);
        // q1 again (already answered: ignored) together with q2
        await w.request('tasks/update', { taskId: id, inputResponses: { q1: { action: 'accept', content: { answer: 'again' } }, q2: { action: 'decline' } } });
        await w.pollUntil(id);
    },
    async mrtr(w) {
        const first = await w.request('tools/call', { name: 'ask_input', arguments: { mrtrFirst: true } });
        const state = first.response?.result?.requestState;
        const retry = await w.request('tools/call', {
            name: 'ask_input',
            arguments: { mrtrFirst: true },
            inputResponses: { confirm: { action: 'accept', content: { answer: 'yes' } } },
            ...(state ? { requestState: state } : {})
        });
        const id = taskIdOf(retry.response);
        await w.pollUntil(id, r => r?.result?.status === 'input_required');
        await w.request('tasks/update', { taskId: id, inputResponses: { q1: { action: 'accept', content: { answer: 'Bob' } } } });
        await w.pollUntil(id);
        // without the tasks extension, ask_input is MRTR only
        w.capabilities = {};
        await w.request('tools/call', { name: 'ask_input', arguments: {} });
        await w.request('tools/call', { name: 'ask_input', arguments: {}, inputResponses: { q1: { action: 'accept', content: { answer: 'Cy' } } } });
    },
    async 'unknown-task'(w) {
        for (const m of ['tasks/get', 'tasks/cancel']) await w.request(m, { taskId: 'no-such-task' });
        await w.request('tasks/update', { taskId: 'no-such-task', inputResponses: {} });
        await w.request('tasks/get', {});
        await w.request('tasks/result', { taskId: 'no-such-task' });
        await w.request('tasks/list', {});
    },
    async nocap(w) {
        w.capabilities = {};
        await w.request('tools/call', { name: 'needs_task', arguments: {} });
        await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'inline' } });
        await w.request('tools/call', { name: 'long_job', arguments: { steps: 2, stepMs: 100 }, _meta: { progressToken: 'p1' } });
        await w.request('tasks/get', { taskId: 'whatever' });
    },
    async headers(w) {
        const body = name => ({ name, arguments: {} });
        await w.request('tools/call', body('quick'), { headers: { 'mcp-method': undefined, 'mcp-name': undefined } });
        await w.request('tools/call', body('quick'), { headers: { 'mcp-name': 'not-quick' } });
        await w.request('tools/call', body('quick'), { headers: { 'mcp-protocol-version': undefined } });
        await w.request('tools/call', body('quick'), { headers: { accept: 'application/json' } });
        await w.request('tools/call', body('quick'), { headers: { 'mcp-protocol-version': '2025-11-25' } });
        const id = taskIdOf((await w.request('tools/call', body('maybe_task'))).response);
        await w.request('tasks/get', { taskId: id }, { headers: { 'mcp-name': undefined } });
        await w.request('tasks/get', { taskId: id }, { headers: { 'mcp-name': 'other-id' } });
    },
    async legacy(w) {
        // dual-era server, legacy session without the extension: the `task` param is ignored
        w.modern = false;
        await w.initialize({ elicitation: { form: {} } });
        await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'x' }, task: { ttl: 60000 } });
        await w.request('tools/call', { name: 'needs_task', arguments: {}, task: {} });
        await w.request('tasks/list');
        await w.request('tasks/get', { taskId: 'no-such-task' });
        await w.delete();
        // a legacy session that declares the extension gets modern task shapes
        w.sessionId = undefined;
        w.protocolVersion = undefined;
        await w.initialize({ extensions: { [TASKS_EXT]: {} } });
        const id = taskIdOf((await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'hybrid' }, task: {} })).response);
        await w.pollUntil(id);
        await w.request('tasks/result', { taskId: id });
        await w.delete();
    },
    async listen(w) {
        const id = taskIdOf((await w.request('tools/call', { name: 'long_job', arguments: { steps: 3, stepMs: 300 } })).response);
        const stream = await w.request('subscriptions/listen', { notifications: { taskIds: [id] } }, { background: true, timeoutMs: 2000 });
        await stream.done; // no notifications/tasks arrive; the stream is cut after 2 s
        await w.pollUntil(id);
    }
};

/** rmcp3 flows that need the server in another mode. */
const rmcp3Modes = {
    'modern-only': {
        args: ['--modern-only'],
        async run(w) {
            w.modern = false;
            await w.initialize({ elicitation: { form: {} } });
            w.modern = true;
            w.sessionId = undefined;
            w.protocolVersion = undefined;
            await w.request('server/discover');
            const id = taskIdOf((await w.request('tools/call', { name: 'maybe_task', arguments: { text: 'x' } })).response);
            await w.pollUntil(id);
        }
    },
    sse: {
        args: ['--sse'],
        async run(w) {
            const id = taskIdOf((await w.request('tools/call', { name: 'long_job', arguments: { steps: 2, stepMs: 200 } })).response);
            await w.request('tasks/get', { taskId: id });
            await w.pollUntil(id);
            await w.request('tools/call', { name: 'quick', arguments: { text: 'x' } });
        }
    },
    'ttl-expired': {
        args: ['--ttl-ms=1000', '--poll-ms=250'],
        async run(w) {
            const id = taskIdOf((await w.request('tools/call', { name: 'slow_job', arguments: { ms: 3000 } })).response);
            await w.pollUntil(id, undefined, { everyMs: 400 }); // hard-failed at the TTL
            await sleep(1100); // evicted one TTL after it ended
            await w.request('tasks/get', { taskId: id });
        }
    }
};

function flows() {
    const all = [];
    for (const [name, run] of Object.entries(rmcp2)) all.push({ file: `rmcp2-${name}`, bin: 'rmcp2-server', args: [], modern: false, run });
    for (const [name, run] of Object.entries(rmcp3)) all.push({ file: `rmcp3-${name}`, bin: 'rmcp3-server', args: [], modern: true, run });
    for (const [name, m] of Object.entries(rmcp3Modes)) all.push({ file: `rmcp3-${name}`, bin: 'rmcp3-server', args: m.args, modern: true, run: m.run });
    return all;
}

async function main() {
    const want = process.argv.slice(2);
    const chosen = flows().filter(f => want.length === 0 || want.some(w => f.file === w || f.file.startsWith(`${w}-`)));
    if (chosen.length === 0) throw new Error(`no flow matches ${want.join(' ')}; flows: ${flows().map(f => f.file).join(' ')}`);
    mkdirSync(OUT, { recursive: true });
    let failed = 0;
    for (const f of chosen) {
        const server = await start(f.bin, f.args);
        const w = new Wire(server.url, { modern: f.modern });
        try {
            await f.run(w);
            process.stdout.write(`recorded ${f.file} (${w.log.length} entries)\n`);
        } catch (e) {
            failed++;
            process.stderr.write(`FAILED ${f.file}: ${e.stack ?? e}\n`);
        } finally {
            await server.stop();
        }
        writeFileSync(join(OUT, `${f.file}.json`), `${JSON.stringify(w.log, null, 1)}\n`);
    }
    process.exit(failed ? 1 : 0);
}

await main();
