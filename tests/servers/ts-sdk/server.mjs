// Task-capable MCP test server on the TypeScript SDK (legacy 2025-11-25 tasks), Streamable HTTP.
//
//   node server.mjs [--port N] [--poll-ms N] [--no-get] [--event-store] [--json]
//
// Env equivalents: PORT, POLL_MS, NO_GET=1, EVENT_STORE=1, JSON_RESPONSE=1. Port 0 (default) = any free port.
// Binds 127.0.0.1 only. Prints one line `READY http://127.0.0.1:<port>/mcp` once listening.
// Extra endpoints: GET /stats, POST /stats/reset (counts of the JSON-RPC messages received).
import { randomUUID } from 'node:crypto';
import express from 'express';
import cors from 'cors';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
    isInitializeRequest,
    CreateTaskResultSchema,
    ElicitResultSchema,
    CreateMessageResultSchema
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import { Stats } from './stats.mjs';
import { MemoryEventStore } from './event-store.mjs';
import { installOAuth } from './oauth.mjs';

const RELATED = 'io.modelcontextprotocol/related-task';
/** Long timeout for server→client requests made from task work (the SDK default is 60 s). */
const INPUT_TIMEOUT_MS = 10 * 60_000;

function option(name, envName) {
    const i = process.argv.indexOf(name);
    if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
    return process.env[envName];
}
const flag = (name, envName) => process.argv.includes(name) || process.env[envName] === '1';

const PORT = Number.parseInt(option('--port', 'PORT') ?? '0', 10) || 0;
const POLL_MS = option('--poll-ms', 'POLL_MS') ? Number.parseInt(option('--poll-ms', 'POLL_MS'), 10) : undefined;
const NO_GET = flag('--no-get', 'NO_GET');
const EVENT_STORE = flag('--event-store', 'EVENT_STORE');
const JSON_RESPONSE = flag('--json', 'JSON_RESPONSE');
const DISCOVER_WITHOUT_TASKS = flag('--discover-without-tasks', 'DISCOVER_WITHOUT_TASKS');
// STRICT_CORS=1 / --strict-cors: only the 2025-11-25 request headers are allowed (a common configuration).
const STRICT_CORS = flag('--strict-cors', 'STRICT_CORS');
// OAUTH=1 / --oauth: /mcp needs a bearer token from the built-in authorization server (oauth.mjs),
// whose access tokens live TOKEN_TTL_S / --token-ttl-s seconds (default 3).
const OAUTH = flag('--oauth', 'OAUTH');
const TOKEN_TTL_S = Number.parseInt(option('--token-ttl-s', 'TOKEN_TTL_S') ?? '3', 10) || 3;

const taskStore = new InMemoryTaskStore();
const taskMessageQueue = new InMemoryTaskMessageQueue();
const stats = new Stats();
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const text = t => ({ content: [{ type: 'text', text: t }] });

/** True once the task is terminal (e.g. cancelled by `tasks/cancel`) or gone (ttl). */
async function finished(store, taskId) {
    try {
        const t = await store.getTask(taskId);
        return ['completed', 'failed', 'cancelled'].includes(t.status);
    } catch {
        return true;
    }
}

/** Sleeps `ms` in slices, returning early (true) when the task was ended from outside. */
async function sleepUnlessEnded(store, taskId, ms) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
        await sleep(Math.min(50, end - Date.now()));
        if (await finished(store, taskId)) return true;
    }
    return finished(store, taskId);
}

/** Stores the outcome unless the task already ended (cancelled) or vanished (ttl). */
async function settle(store, taskId, status, result) {
    try {
        await store.storeTaskResult(taskId, status, result);
    } catch {
        // cancelled or expired meanwhile: nothing to store
    }
}

/** Registers a task tool whose background work is `work(args, {store, taskId, extra})`. */
function taskTool(mcp, name, description, inputSchema, taskSupport, work) {
    mcp.experimental.tasks.registerToolTask(
        name,
        { description, inputSchema, execution: { taskSupport } },
        {
            async createTask(args, extra) {
                const store = extra.taskStore;
                const task = await store.createTask({ ttl: extra.taskRequestedTtl, pollInterval: POLL_MS });
                const progressToken = extra._meta?.progressToken;
                const ctx = { store, taskId: task.taskId, progressToken, mcp };
                (async () => {
                    try {
                        const out = await work(args ?? {}, ctx);
                        if (out) await settle(store, task.taskId, out.status, out.result);
                    } catch (e) {
                        await settle(store, task.taskId, 'failed', {
                            ...text(`${name} failed: ${e instanceof Error ? e.message : String(e)}`),
                            isError: true
                        });
                    }
                })();
                return { task };
            },
            async getTask(_args, extra) {
                return await extra.taskStore.getTask(extra.taskId);
            },
            async getTaskResult(_args, extra) {
                return await extra.taskStore.getTaskResult(extra.taskId);
            }
        }
    );
}

/** Progress for a task goes on the GET stream (the tools/call stream is closed by then). */
async function progress(ctx, value, total, message) {
    if (ctx.progressToken === undefined) return;
    try {
        await ctx.mcp.server.notification({
            method: 'notifications/progress',
            params: { progressToken: ctx.progressToken, progress: value, total, message, _meta: { [RELATED]: { taskId: ctx.taskId } } }
        });
    } catch {
        // session gone
    }
}

/** Asks the client from task work: status input_required, request queued for the tasks/result stream. */
async function askClient(ctx, capability, send) {
    // The SDK checks elicitation support itself but would send sampling to a client that never declared it.
    if (!ctx.mcp.server.getClientCapabilities()?.[capability]) throw new Error(`Client does not support ${capability}`);
    await ctx.store.updateTaskStatus(ctx.taskId, 'input_required', 'Waiting for the client');
    const answer = await send({ relatedTask: { taskId: ctx.taskId }, timeout: INPUT_TIMEOUT_MS });
    if (!(await finished(ctx.store, ctx.taskId))) await ctx.store.updateTaskStatus(ctx.taskId, 'working', 'Answer received');
    return answer;
}

/** An SDK error as plain data. */
const errorData = e => ({ code: e?.code ?? null, message: e instanceof Error ? e.message : String(e) });

/**
 * The server as a task requestor toward the client (2025-11-25): sends `elicitation/create` or
 * `sampling/createMessage` with `params.task` through the SDK's request API, each request to the
 * client with a `timeoutMs` timeout, then `then`:
 *  - `result`: the SDK's `requestStream` polls `tasks/get` and fetches `tasks/result` once completed;
 *  - `cancel`: `tasks/cancel` after `waitMs`, then `tasks/get`, `tasks/list` and `tasks/result`;
 *  - `expire`: `tasks/get` and `tasks/result` after `waitMs` (past a short `ttl`).
 * `stream: "call"` sends on this tools/call's response stream, `"get"` on the GET listening stream.
 */
async function clientTask(mcp, args, extra) {
    const { kind, ttl, timeoutMs, then, waitMs, stream } = args;
    const server = mcp.server;
    // A client may call this before its listening stream is up (connect does not wait for it), and
    // the SDK drops a message meant for a GET stream that does not exist yet.
    if (stream === 'get') await listeningStreamOf(extra.sessionId);
    const base = { timeout: timeoutMs, ...(stream === 'call' ? { relatedRequestId: extra.requestId } : {}) };
    const request =
        kind === 'sample'
            ? { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 } }
            : {
                  method: 'elicitation/create',
                  params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }
              };
    const schema = kind === 'sample' ? CreateMessageResultSchema : ElicitResultSchema;
    const started = Date.now();
    const out = { statuses: [] };
    if (then === 'result') {
        for await (const m of server.experimental.tasks.requestStream(request, schema, { ...base, task: { ttl } })) {
            if (m.type === 'taskCreated') out.taskId = m.task.taskId;
            if (m.type === 'taskCreated' || m.type === 'taskStatus') out.statuses.push(m.task.status);
            if (m.type === 'result') out.result = m.result;
            if (m.type === 'error') out.error = errorData(m.error);
        }
        out.elapsedMs = Date.now() - started;
        return text(JSON.stringify(out));
    }
    const created = await server.request(request, CreateTaskResultSchema, { ...base, task: { ttl } });
    out.created = created.task;
    const taskId = created.task.taskId;
    await sleep(waitMs);
    const attempt = async (name, f) => {
        try {
            out[name] = await f();
        } catch (e) {
            out[name] = { error: errorData(e) };
        }
    };
    if (then === 'cancel') await attempt('cancel', () => server.experimental.tasks.cancelTask(taskId, base));
    await attempt('get', () => server.experimental.tasks.getTask(taskId, base));
    if (then === 'cancel') await attempt('list', () => server.experimental.tasks.listTasks(undefined, base));
    await attempt('result', () => server.experimental.tasks.getTaskResult(taskId, schema, base));
    out.elapsedMs = Date.now() - started;
    return text(JSON.stringify(out));
}

function createServer() {
    const mcp = new McpServer(
        { name: 'mcp-task-client-test-ts-sdk', version: '1.0.0' },
        {
            capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
            taskStore,
            taskMessageQueue
        }
    );

    taskTool(
        mcp,
        'long_job',
        'Works `steps` steps of `stepMs` ms each (status message + progress per step), then returns a text.',
        { steps: z.number().int().min(0).max(1000).default(3), stepMs: z.number().int().min(0).default(200) },
        'required',
        async ({ steps, stepMs }, ctx) => {
            for (let i = 1; i <= steps; i++) {
                if (await sleepUnlessEnded(ctx.store, ctx.taskId, stepMs)) return undefined;
                await ctx.store.updateTaskStatus(ctx.taskId, 'working', `step ${i}/${steps}`);
                await progress(ctx, i, steps, `step ${i}/${steps}`);
            }
            return { status: 'completed', result: text(`long_job done: ${steps} steps`) };
        }
    );

    taskTool(
        mcp,
        'fail_job',
        'Fails after `ms` ms. how="failed" (default): status failed + isError result; how="iserror": status completed + isError result.',
        { ms: z.number().int().min(0).default(100), how: z.enum(['failed', 'iserror']).default('failed') },
        'required',
        async ({ ms, how }, ctx) => {
            if (await sleepUnlessEnded(ctx.store, ctx.taskId, ms)) return undefined;
            return { status: how === 'iserror' ? 'completed' : 'failed', result: { ...text('fail_job: failed on purpose'), isError: true } };
        }
    );

    taskTool(
        mcp,
        'ask_input',
        'Asks the client a form elicitation mid-task ({answer: string}); the result echoes the answer.',
        { message: z.string().default('What is your answer?') },
        'required',
        async ({ message }, ctx) => {
            const requestedSchema = { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] };
            const r = await askClient(ctx, 'elicitation', opts => ctx.mcp.server.elicitInput({ mode: 'form', message, requestedSchema }, opts));
            if (await finished(ctx.store, ctx.taskId)) return undefined;
            const reply = r.action === 'accept' ? `answer: ${r.content?.answer}` : `action: ${r.action}`;
            return { status: 'completed', result: text(`ask_input got ${reply}`) };
        }
    );

    taskTool(
        mcp,
        'sample_job',
        'Asks the client sampling/createMessage mid-task; the result echoes the sampled text.',
        { prompt: z.string().default('Say hello') },
        'required',
        async ({ prompt }, ctx) => {
            const r = await askClient(ctx, 'sampling', opts =>
                ctx.mcp.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 }, opts)
            );
            if (await finished(ctx.store, ctx.taskId)) return undefined;
            const sampled = r.content?.type === 'text' ? r.content.text : JSON.stringify(r.content);
            return { status: 'completed', result: text(`sample_job got: ${sampled}`) };
        }
    );

    mcp.registerTool(
        'client_task',
        {
            description: 'Asks the client to run an elicitation or sampling request as a task and reports what the SDK saw (JSON text).',
            inputSchema: {
                kind: z.enum(['elicit', 'sample']).default('elicit'),
                ttl: z.number().int().min(1).default(60_000),
                timeoutMs: z.number().int().min(1).default(1000),
                then: z.enum(['result', 'cancel', 'expire']).default('result'),
                waitMs: z.number().int().min(0).default(300),
                stream: z.enum(['call', 'get']).default('call')
            }
        },
        (args, extra) => clientTask(mcp, args, extra)
    );

    mcp.registerTool(
        'quick',
        { description: 'Plain tool (taskSupport forbidden): echoes `text`.', inputSchema: { text: z.string().default('hi') } },
        async ({ text: t }) => text(`quick: ${t}`)
    );

    taskTool(
        mcp,
        'needs_task',
        'taskSupport required: finishes after `ms` ms.',
        { ms: z.number().int().min(0).default(100) },
        'required',
        async ({ ms }, ctx) => {
            if (await sleepUnlessEnded(ctx.store, ctx.taskId, ms)) return undefined;
            return { status: 'completed', result: text('needs_task done') };
        }
    );

    taskTool(
        mcp,
        'maybe_task',
        'taskSupport optional: finishes after `ms` ms (without `task` the SDK polls its own task, then answers).',
        { ms: z.number().int().min(0).default(100) },
        'optional',
        async ({ ms }, ctx) => {
            if (await sleepUnlessEnded(ctx.store, ctx.taskId, ms)) return undefined;
            return { status: 'completed', result: text('maybe_task done') };
        }
    );

    taskTool(
        mcp,
        'slow_job',
        'Sleeps `ms` ms (default 5000), to outlive a short ttl; cancellable.',
        { ms: z.number().int().min(0).default(5000) },
        'required',
        async ({ ms }, ctx) => {
            if (await sleepUnlessEnded(ctx.store, ctx.taskId, ms)) return undefined;
            return { status: 'completed', result: text(`slow_job done after ${ms} ms`) };
        }
    );

    return mcp;
}

const sessions = new Map();

/** Resolves once the session's GET listening stream is open (answered 200, not ended), or after 5 s. */
async function listeningStreamOf(sid) {
    const open = res => res?.headersSent && res.statusCode === 200 && !res.writableEnded;
    for (let waited = 0; waited < 5_000 && !open(sessions.get(sid)?.listeningResponse); waited += 20) await sleep(20);
}
const app = express();
app.use(
    cors({
        origin: true,
        methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        allowedHeaders: STRICT_CORS
            ? ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID']
            : ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
        exposedHeaders: STRICT_CORS ? ['Mcp-Session-Id'] : ['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate'],
        maxAge: 600
    })
);
app.use(express.json({ limit: '4mb' }));
const oauthListening = OAUTH ? installOAuth(app, { ttlS: TOKEN_TTL_S }) : null;

app.get('/stats', (_req, res) => res.json(stats.snapshot()));
app.post('/stats/reset', (_req, res) => {
    stats.reset();
    res.json({ ok: true });
});

const noSession = (res, status, message) => res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

app.post('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    stats.record(req.body, 'post', sid);
    try {
        const session = sid ? sessions.get(sid) : undefined;
        if (session) {
            await session.transport.handleRequest(req, res, req.body);
            return;
        }
        if (sid) {
            res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
            return;
        }
        if (DISCOVER_WITHOUT_TASKS && req.body?.method === 'server/discover') {
            // A dual-era server whose modern side lacks the tasks extension (tasks only via initialize).
            const result = {
                supportedVersions: ['2026-07-28', '2025-11-25'],
                capabilities: { tools: { listChanged: true } },
                _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ts-sdk-task-server', version: '1.32.2' } }
            };
            res.json({ jsonrpc: '2.0', id: req.body.id, result });
            return;
        }
        if (!isInitializeRequest(req.body)) {
            noSession(res, 400, 'Bad Request: No valid session ID provided');
            return;
        }
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            enableJsonResponse: JSON_RESPONSE,
            eventStore: EVENT_STORE ? new MemoryEventStore() : undefined,
            onsessioninitialized: id => sessions.set(id, { transport })
        });
        transport.onclose = () => {
            if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await createServer().connect(transport);
        await transport.handleRequest(req, res, req.body);
    } catch (e) {
        console.error('error handling POST /mcp:', e);
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
});

async function sessionRequest(req, res) {
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET') stats.recordGet(sid);
    if (req.method === 'GET' && NO_GET) {
        res.status(405).set('Allow', 'POST, DELETE').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null });
        return;
    }
    if (!sid) {
        noSession(res, 400, 'Bad Request: Missing session ID');
        return;
    }
    const session = sessions.get(sid);
    if (!session) {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
        return;
    }
    if (req.method === 'GET') session.listeningResponse = res;
    await session.transport.handleRequest(req, res);
}
app.get('/mcp', sessionRequest);
app.delete('/mcp', sessionRequest);
// A body that is not JSON: a JSON-RPC parse error instead of express's HTML page.
app.use((err, _req, res, next) => {
    if (err?.type !== 'entity.parse.failed') return next(err);
    res.status(400).json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
});

const httpServer = app.listen(PORT, '127.0.0.1', err => {
    if (err) {
        console.error('listen failed:', err);
        process.exit(1);
    }
    const { port } = httpServer.address();
    oauthListening?.(`http://127.0.0.1:${port}`);
    process.stdout.write(`READY http://127.0.0.1:${port}/mcp\n`);
});

function shutdown() {
    for (const { transport } of sessions.values()) transport.close().catch(() => {});
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
