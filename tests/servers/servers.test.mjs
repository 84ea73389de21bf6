// node --test tests/servers/: every flow of tests/fixtures/transcripts/record.mjs (--check: nothing written)
// against each of our task servers, plus the launcher's contract. Needs tests/servers/install.sh to have run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './launch.mjs';
import { modernRequest } from './lib/modern.mjs';
import { HttpConn } from './lib/wire.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const RECORD = join(HERE, '..', 'fixtures', 'transcripts', 'record.mjs');

function runRecorder(server) {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [RECORD, '--check', '--servers', server], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', d => (out += d));
        child.stderr.on('data', d => (out += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.on('error', reject);
        child.on('exit', code => {
            clearTimeout(timer);
            resolve({ code, out });
        });
    });
}

for (const server of ['ts-sdk', 'python-http', 'python-ws']) {
    test(`${server}: every task flow behaves as recorded`, { timeout: 130_000 }, async () => {
        const { code, out } = await runRecorder(server);
        assert.equal(code, 0, out);
        assert.match(out, /\d+ passed, 0 failed/);
    });
}

for (const kind of ['ts-sdk', 'python-http']) {
    test(`${kind}: launcher contract, CORS, stats`, { timeout: 30_000 }, async () => {
        const s = await startServer(kind);
        try {
            assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
            const pre = await fetch(s.url, {
                method: 'OPTIONS',
                headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-session-id,mcp-protocol-version,authorization' }
            });
            assert.ok(pre.status === 200 || pre.status === 204, `preflight ${pre.status}`);
            assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:1234');
            assert.match(pre.headers.get('access-control-allow-headers') ?? '', /mcp-session-id/i);
            const init = await fetch(s.url, {
                method: 'POST',
                headers: { origin: 'http://localhost:1234', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
                body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } })
            });
            assert.equal(init.status, 200);
            assert.match(init.headers.get('access-control-expose-headers') ?? '', /mcp-session-id/i);
            assert.ok(init.headers.get('mcp-session-id'));
            await init.text();
            const stats = await (await fetch(s.statsUrl)).json();
            assert.equal(stats.byMethod.initialize, 1);
            assert.deepEqual(stats.tasksGetByTask, {});
            assert.equal(stats.requests[0].method, 'initialize');
            await fetch(s.statsUrl.replace(/\/stats$/, '/stats/reset'), { method: 'POST' });
            assert.deepEqual(await (await fetch(s.statsUrl)).json(), { byMethod: {}, tasksGetByTask: {}, requests: [] });
        } finally {
            await s.stop();
        }
        const { code } = await s.exited;
        assert.equal(code, 0, 'exits cleanly on SIGTERM');
    });
}

for (const kind of ['ts-sdk', 'python-http', 'rmcp2', 'rmcp3']) {
    test(`${kind}: STRICT_CORS=1 allows only the 2025-11-25 request headers`, { timeout: 30_000 }, async () => {
        const s = await startServer(kind, { env: { STRICT_CORS: '1' } });
        try {
            const preflight = (headers) => fetch(s.url, {
                method: 'OPTIONS',
                headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': headers }
            });
            const legacy = await preflight('content-type,mcp-session-id,mcp-protocol-version,last-event-id,authorization');
            const allowed = (legacy.headers.get('access-control-allow-headers') ?? '').toLowerCase();
            for (const h of ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'authorization']) {
                assert.ok(allowed.includes(h), `${h} allowed: ${allowed}`);
            }
            const modern = await preflight('content-type,mcp-method,mcp-name,mcp-protocol-version');
            const refused = (modern.headers.get('access-control-allow-headers') ?? '').toLowerCase();
            assert.ok(!modern.ok || !refused.includes('mcp-method'), `mcp-method refused: ${modern.status} ${refused}`);
        } finally {
            await s.stop();
        }
    });
}

/** Polls tasks/get (modern) until `until(task)` holds; returns the last task. Bounded by `tries`. */
async function pollModern(url, next, taskId, until, tries = 60) {
    for (let i = 0; i < tries; i++) {
        const { msg } = await modernRequest(url, next(), 'tasks/get', { taskId });
        assert.ok(msg?.result, `tasks/get ${taskId}: ${JSON.stringify(msg)}`);
        if (until(msg.result)) return msg.result;
        await new Promise(r => setTimeout(r, 150));
    }
    assert.fail(`task ${taskId} never reached the awaited state`);
}

for (const kind of ['fastmcp']) {
    test(`${kind}: modern task flows (complete, fail, input, cancel), CORS, SIGTERM`, { timeout: 60_000 }, async () => {
        const s = await startServer(kind, { timeoutMs: 40_000 });
        let id = 0;
        const next = () => ++id;
        const call = async (name, args) => (await modernRequest(s.url, next(), 'tools/call', { name, arguments: args })).msg?.result;
        try {
            const discover = (await modernRequest(s.url, next(), 'server/discover')).msg.result;
            assert.ok(discover.supportedVersions.includes('2026-07-28'));
            assert.ok(discover.capabilities.extensions['io.modelcontextprotocol/tasks']);

            const done = await call('long_job', { steps: 2, stepMs: 100 });
            assert.equal(done.resultType, 'task');
            const completed = await pollModern(s.url, next, done.taskId, t => t.status === 'completed');
            assert.equal(completed.result.content[0].text, 'long_job done: 2 steps');

            const failing = await call('fail_job', { how: 'failed' });
            const failed = await pollModern(s.url, next, failing.taskId, t => t.status !== 'working');
            assert.equal(failed.status, 'failed');
            assert.equal(failed.error.code, -32603);

            const asking = await call('ask_input', { message: 'answer?' });
            const waiting = await pollModern(s.url, next, asking.taskId, t => t.status === 'input_required');
            const [key] = Object.keys(waiting.inputRequests);
            assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
            const inputResponses = { [key]: { action: 'accept', content: { answer: '42' } } };
            const ack = await modernRequest(s.url, next(), 'tasks/update', { taskId: asking.taskId, inputResponses });
            assert.ok(ack.msg.result, JSON.stringify(ack.msg));
            const answered = await pollModern(s.url, next, asking.taskId, t => t.status === 'completed');
            assert.equal(answered.result.content[0].text, 'ask_input got answer: 42');

            const slow = await call('slow_job', { ms: 5000 });
            await modernRequest(s.url, next(), 'tasks/cancel', { taskId: slow.taskId });
            const cancelled = await pollModern(s.url, next, slow.taskId, t => t.status !== 'working', 20);
            assert.equal(cancelled.status, 'cancelled');

            const quick = await call('quick', { text: 'hi' });
            assert.equal(quick.content[0].text, 'quick: hi');

            const pre = await fetch(s.url, {
                method: 'OPTIONS',
                headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-method,mcp-name,mcp-protocol-version' }
            });
            assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:1234');
            assert.match(pre.headers.get('access-control-allow-headers') ?? '', /mcp-method/i);
        } finally {
            await s.stop();
        }
        assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
    });
}

/** Polls tasks/get (legacy) on `conn` until `until(task)` holds; returns the last task. Bounded by `tries`. */
async function pollLegacy(conn, taskId, until, tries = 60) {
    for (let i = 0; i < tries; i++) {
        const r = await conn.request('tasks/get', { taskId });
        assert.ok(r?.result, `tasks/get ${taskId}: ${JSON.stringify(r)}`);
        if (until(r.result)) return r.result;
        await new Promise(res => setTimeout(res, 150));
    }
    assert.fail(`task ${taskId} never reached the awaited state`);
}

test('mcp-framework: legacy task flows (complete, throw, input on GET, cancel), CORS defaults, SIGTERM', { timeout: 60_000 }, async () => {
    const s = await startServer('mcp-framework');
    const conn = new HttpConn(s.url, []);
    const asked = [];
    conn.onServerRequest = async msg => {
        asked.push(msg);
        return { action: 'accept', content: { answer: '42' } };
    };
    const task = async (name, args) => (await conn.request('tools/call', { name, arguments: args, task: { ttl: 60_000 } })).result.task;
    const text = async taskId => (await conn.request('tasks/result', { taskId })).result;
    try {
        const init = await conn.initialize({ elicitation: { form: {} } });
        assert.deepEqual(init.result.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
        assert.equal(await conn.listen(), 200);

        const done = await task('long_job', { steps: 2, stepMs: 100 });
        assert.equal((await pollLegacy(conn, done.taskId, t => t.status !== 'working')).status, 'completed');
        assert.equal((await text(done.taskId)).content[0].text, 'long_job done: 2 steps');

        const thrown = await task('fail_job', { how: 'failed' });
        assert.equal((await pollLegacy(conn, thrown.taskId, t => t.status !== 'working')).status, 'completed', 'a throw ends completed');
        const failure = await text(thrown.taskId);
        assert.equal(failure.isError, true);
        assert.match(failure.content[0].text, /failed on purpose/);

        const asking = await task('ask_input', { message: 'answer?' });
        assert.equal((await pollLegacy(conn, asking.taskId, t => t.status !== 'working')).status, 'completed');
        assert.equal(asked[0].method, 'elicitation/create', 'the elicitation came on the GET stream');
        assert.equal((await text(asking.taskId)).content[0].text, 'ask_input got answer: 42');

        const slow = await task('slow_job', { ms: 5000 });
        const cancelled = await conn.request('tasks/cancel', { taskId: slow.taskId });
        assert.equal(cancelled.result.status, 'cancelled');
        const early = await conn.request('tasks/result', { taskId: slow.taskId });
        assert.equal(early.error.code, -32603, 'tasks/result of a task not completed is an error at once');

        const pre = await fetch(s.url, {
            method: 'OPTIONS',
            headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-session-id,mcp-protocol-version' }
        });
        assert.equal(pre.headers.get('access-control-allow-origin'), '*');
        assert.doesNotMatch(pre.headers.get('access-control-allow-headers') ?? '', /mcp-protocol-version/i, 'framework default');
        await conn.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('mcp-framework-cors: the protocol headers pass the preflight', { timeout: 30_000 }, async () => {
    const s = await startServer('mcp-framework-cors');
    try {
        const pre = await fetch(s.url, {
            method: 'OPTIONS',
            headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-protocol-version,mcp-method' }
        });
        assert.match(pre.headers.get('access-control-allow-headers') ?? '', /MCP-Protocol-Version.*Mcp-Method/i);
        assert.match(pre.headers.get('access-control-expose-headers') ?? '', /MCP-Protocol-Version/i);
    } finally {
        await s.stop();
    }
});

test('arcade-cors: legacy task flows (complete, raise → failed, input on GET, cancel), renamed tools, SIGTERM', { timeout: 60_000 }, async () => {
    const s = await startServer('arcade-cors', { timeoutMs: 40_000 });
    const conn = new HttpConn(s.url, []);
    conn.onServerRequest = async () => ({ action: 'accept', content: { answer: '42' } });
    const task = async (name, args) => (await conn.request('tools/call', { name, arguments: args, task: { ttl: 60_000 } })).result.task;
    const result = async taskId => (await conn.request('tasks/result', { taskId })).result;
    try {
        const init = await conn.initialize({ elicitation: { form: {} } });
        assert.ok(init.result.capabilities.tasks.requests.tools.call);
        assert.equal(await conn.listen(), 200);

        const done = await task('Arcade_LongJob', { steps: 2, stepMs: 100 });
        assert.equal((await pollLegacy(conn, done.taskId, t => t.status !== 'working')).status, 'completed');
        const text = await result(done.taskId);
        assert.equal(text.content[0].text, 'long_job done: 2 steps');
        assert.equal(text._meta['io.modelcontextprotocol/related-task'].taskId, done.taskId);

        const raising = await task('Arcade_FailJob', {});
        assert.equal((await pollLegacy(conn, raising.taskId, t => t.status !== 'working')).status, 'failed');
        assert.equal((await result(raising.taskId)).isError, true);

        const asking = await task('Arcade_AskInput', { message: 'answer?' });
        assert.equal((await pollLegacy(conn, asking.taskId, t => t.status !== 'working')).status, 'completed');
        assert.equal((await result(asking.taskId)).content[0].text, 'ask_input got answer: 42');

        const slow = await task('Arcade_SlowJob', { ms: 5000 });
        assert.equal((await conn.request('tasks/cancel', { taskId: slow.taskId })).result.status, 'cancelled');
        const required = await conn.request('tools/call', { name: 'Arcade_NeedsTask', arguments: {} });
        assert.equal(required.error.code, -32601);
        await conn.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('arcade: by default every request with an Origin header is refused', { timeout: 60_000 }, async () => {
    const s = await startServer('arcade', { timeoutMs: 40_000 });
    try {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const browser = await fetch(s.url, { method: 'POST', headers: { ...headers, origin: 'http://localhost:1234' }, body });
        assert.equal(browser.status, 403);
        assert.equal((await browser.json()).error.message, 'Forbidden: Origin not allowed');
        const plain = await fetch(s.url, { method: 'POST', headers, body });
        assert.equal(plain.status, 200);
        await plain.text();
    } finally {
        await s.stop();
    }
});

test('pmcp: modern task flows (complete, fail, input, cancel), dual era, SIGTERM', { timeout: 60_000 }, async () => {
    const s = await startServer('pmcp');
    let id = 0;
    const next = () => ++id;
    const call = async (name, args) => (await modernRequest(s.url, next(), 'tools/call', { name, arguments: args })).msg?.result;
    try {
        const discover = (await modernRequest(s.url, next(), 'server/discover')).msg.result;
        assert.deepEqual(discover.supportedVersions, ['2025-11-25', '2026-07-28']);
        assert.ok(discover.capabilities.extensions['io.modelcontextprotocol/tasks']);

        const done = await call('long_job', { steps: 2, stepMs: 100 });
        assert.equal(done.resultType, 'task');
        assert.equal((await pollModern(s.url, next, done.taskId, t => t.status === 'completed')).result.content[0].text, 'long_job done: 2 steps');

        const failing = await call('fail_job', { how: 'failed' });
        const failed = await pollModern(s.url, next, failing.taskId, t => t.status !== 'working');
        assert.equal(failed.status, 'failed');
        assert.equal(failed.error.message, 'fail_job: failed on purpose');

        const asking = await call('ask_input', { message: 'answer?' });
        const waiting = await pollModern(s.url, next, asking.taskId, t => t.status === 'input_required');
        assert.equal(waiting.inputRequests.answer.method, 'elicitation/create');
        await modernRequest(s.url, next(), 'tasks/update', { taskId: asking.taskId, inputResponses: { answer: { action: 'accept', content: { answer: '42' } } } });
        assert.equal((await pollModern(s.url, next, asking.taskId, t => t.status === 'completed')).result.content[0].text, 'ask_input got answer: 42');

        const slow = await call('slow_job', { ms: 5000 });
        await modernRequest(s.url, next(), 'tasks/cancel', { taskId: slow.taskId });
        assert.equal((await pollModern(s.url, next, slow.taskId, t => t.status !== 'working', 20)).status, 'cancelled');
        assert.equal((await call('quick', { text: 'hi' })).content[0].text, 'quick: hi');

        const legacy = new HttpConn(s.url, []);
        const init = await legacy.initialize({});
        assert.deepEqual(init.result.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
        const created = (await legacy.request('tools/call', { name: 'needs_task', arguments: {}, task: { ttl: 60_000 } })).result.task;
        const got = await legacy.request('tasks/get', { taskId: created.taskId });
        assert.equal(got.result.task.taskId, created.taskId, 'legacy tasks/get nests the task under "task"');
        await legacy.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('fastmcp3: legacy task flows (complete, raise → failed, input on GET, cancel), SIGTERM', { timeout: 60_000 }, async () => {
    const s = await startServer('fastmcp3', { timeoutMs: 40_000 });
    const conn = new HttpConn(s.url, []);
    conn.onServerRequest = async () => ({ action: 'accept', content: { answer: '42' } });
    const task = async (name, args) => (await conn.request('tools/call', { name, arguments: args, task: { ttl: 60_000 } })).result.task;
    const result = async taskId => (await conn.request('tasks/result', { taskId })).result;
    try {
        await conn.initialize({ elicitation: { form: {} } });
        assert.equal(await conn.listen(), 200);
        const done = await task('long_job', { steps: 2, stepMs: 100 });
        assert.equal((await pollLegacy(conn, done.taskId, t => t.status !== 'working')).status, 'completed');
        assert.equal((await result(done.taskId)).content[0].text, 'long_job done: 2 steps');

        const raising = await task('fail_job', {});
        const failed = await pollLegacy(conn, raising.taskId, t => t.status !== 'working');
        assert.equal(failed.status, 'failed');
        assert.match(failed.statusMessage, /failed on purpose/);

        const asking = await task('ask_input', { message: 'answer?' });
        assert.equal((await pollLegacy(conn, asking.taskId, t => t.status === 'completed' || t.status === 'failed')).status, 'completed');
        assert.equal((await result(asking.taskId)).content[0].text, 'ask_input got answer: 42');

        const slow = await task('slow_job', { ms: 5000 });
        assert.equal((await conn.request('tasks/cancel', { taskId: slow.taskId })).result.status, 'cancelled');
        assert.deepEqual((await conn.request('tasks/list', {})).result.tasks, [], 'tasks/list is always empty');
        await conn.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('pmcp-ws: no subprotocol selected; many clients, one after another and at once; legacy tasks over a plain socket', { timeout: 30_000, skip: typeof WebSocket === 'undefined' && 'needs a global WebSocket (Node 22, or Node 20 with --experimental-websocket)' }, async () => {
    const s = await startServer('pmcp-ws');
    /** A plain socket to the server (no subprotocol) with `request(method, params)` → the response. */
    const connect = async () => {
        const ws = new WebSocket(s.url);
        const waiters = new Map();
        let id = 0;
        ws.onmessage = ev => {
            const msg = JSON.parse(String(ev.data));
            waiters.get(msg.id)?.(msg);
        };
        await new Promise((resolve, reject) => {
            ws.onopen = resolve;
            ws.onerror = reject;
        });
        const request = (method, params) =>
            new Promise(resolve => {
                waiters.set(++id, resolve);
                ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
            });
        const init = await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } });
        ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
        return { ws, request, init };
    };
    try {
        const outcome = await new Promise(resolve => {
            const ws = new WebSocket(s.url, 'mcp');
            ws.onopen = () => resolve('open');
            ws.onerror = () => resolve('error');
        });
        assert.equal(outcome, 'error', 'a client that asks for subprotocol "mcp" is refused by its own WebSocket');
        const [a, b] = await Promise.all([connect(), connect()]);
        assert.equal(a.ws.protocol, '', 'the same server then opens a plain socket');
        assert.ok(a.init.result.capabilities.tasks.requests.tools.call);
        assert.equal(b.init.result.serverInfo.name, a.init.result.serverInfo.name, 'a second client at once');
        const created = (await a.request('tools/call', { name: 'needs_task', arguments: {}, task: { ttl: 60_000 } })).result.task;
        let status = created.status;
        for (let i = 0; i < 60 && status === 'working'; i++) {
            await new Promise(r => setTimeout(r, 100));
            status = (await b.request('tasks/get', { taskId: created.taskId })).result.task.status;
        }
        assert.equal(status, 'completed', "the other client reads the task (one anonymous owner)");
        a.ws.close();
        b.ws.close();
        const later = await connect();
        assert.equal(later.init.result.serverInfo.name, a.init.result.serverInfo.name, 'a client after the others closed');
        later.ws.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('turbomcp: modern task flows (complete, error → completed isError, input, cancel), origin guard, SIGTERM', { timeout: 60_000 }, async () => {
    const guarded = await startServer('turbomcp');
    try {
        const refused = await modernRequest(guarded.url, 1, 'server/discover', {}, { origin: 'http://localhost:1234' });
        assert.equal(refused.status, 403, 'the SDK default refuses a browser origin');
    } finally {
        await guarded.stop();
    }
    const s = await startServer('turbomcp-cors');
    let id = 0;
    const next = () => ++id;
    const call = async (name, args) => (await modernRequest(s.url, next(), 'tools/call', { name, arguments: args })).msg?.result;
    try {
        const discover = (await modernRequest(s.url, next(), 'server/discover')).msg.result;
        assert.ok(discover.capabilities.extensions['io.modelcontextprotocol/tasks']);
        const done = await call('long_job', { steps: 2, stepMs: 100 });
        assert.equal(done.resultType, 'task');
        assert.equal((await pollModern(s.url, next, done.taskId, t => t.status === 'completed')).result.content[0].text, 'long_job done: 2 steps');
        const failing = await call('fail_job', {});
        const failed = await pollModern(s.url, next, failing.taskId, t => t.status !== 'working');
        assert.equal(failed.status, 'completed', 'a tool error ends completed');
        assert.equal(failed.result.isError, true);
        const asking = await call('ask_input', { message: 'answer?' });
        const waiting = await pollModern(s.url, next, asking.taskId, t => t.status === 'input_required');
        await modernRequest(s.url, next(), 'tasks/update', { taskId: asking.taskId, inputResponses: { answer: { action: 'accept', content: { answer: '42' } } } });
        assert.ok(waiting.inputRequests.answer);
        assert.equal((await pollModern(s.url, next, asking.taskId, t => t.status === 'completed')).result.content[0].text, 'ask_input got answer: 42');
        const slow = await call('slow_job', { ms: 5000 });
        await modernRequest(s.url, next(), 'tasks/cancel', { taskId: slow.taskId });
        assert.equal((await pollModern(s.url, next, slow.taskId, t => t.status !== 'working', 20)).status, 'cancelled');
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});

test('mcpkit: legacy task flows (complete, isError → failed, cancel), CORS off by default, SIGTERM', { timeout: 60_000 }, async () => {
    const s = await startServer('mcpkit');
    const conn = new HttpConn(s.url, []);
    const task = async (name, args) => (await conn.request('tools/call', { name, arguments: args, task: { ttl: 60_000 } })).result.task;
    try {
        const pre = await fetch(s.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST' } });
        assert.equal(pre.status, 405, 'no CORS by default');
        const init = await conn.initialize({});
        assert.deepEqual(init.result.capabilities.tasks, { cancel: {}, list: {}, requests: { tools: { call: {} } } });
        const done = await task('long_job', { steps: 2, stepMs: 100 });
        assert.equal((await pollLegacy(conn, done.taskId, t => t.status !== 'working')).status, 'completed');
        assert.equal((await conn.request('tasks/result', { taskId: done.taskId })).result.content[0].text, 'long_job done: 2 steps');
        const failing = await task('fail_job', {});
        const failed = await pollLegacy(conn, failing.taskId, t => t.status !== 'working');
        assert.equal(failed.status, 'failed', 'an isError result ends failed');
        assert.equal((await conn.request('tasks/result', { taskId: failing.taskId })).result.isError, true);
        const slow = await task('slow_job', { ms: 5000 });
        assert.equal((await conn.request('tasks/cancel', { taskId: slow.taskId })).result.status, 'cancelled');
        assert.equal((await conn.request('tasks/result', { taskId: slow.taskId })).error.code, -32602);
        await conn.close();
    } finally {
        await s.stop();
    }
    assert.equal((await s.exited).code, 0, 'exits cleanly on SIGTERM');
});
