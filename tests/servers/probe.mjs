#!/usr/bin/env node
// Walks one task server through the whole task flow with hand-written JSON-RPC (not our client) and prints the
// wire: each request, then the HTTP status, content type and an excerpt of each answer. For surveying a server
// library's behaviour; asserts nothing.
//
//   node tests/servers/probe.mjs <kind | url> [--era modern|legacy] [--excerpt N]
//
// modern: server/discover, tools/list, long_job / fail_job (failed, iserror) / ask_input (answered by tasks/update)
//         as tasks polled with tasks/get, tasks/cancel of slow_job, quick, tasks/get of an unknown id, tasks/result.
// legacy: initialize, tools/list, the same tools with params.task, tasks/get polls, tasks/result (the elicitation of
//         ask_input answered on whatever stream it arrives), tasks/cancel, tasks/list, an unknown id.
import { kindList, startServer } from './launch.mjs';
import { modernRequest } from './lib/modern.mjs';
import { HttpConn } from './lib/wire.mjs';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const target = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
const era = opt('--era', 'modern');
const excerpt = Number(opt('--excerpt', '420'));
const sleep = ms => new Promise(r => setTimeout(r, ms));
const renamed = kindList().find(k => k.kind === target)?.tools ?? {};
const tool = name => renamed[name] ?? name;
const cut = v => {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    return s.length > excerpt ? `${s.slice(0, excerpt)}…` : s;
};
const say = line => process.stdout.write(`${line}\n`);

/** One modern request, printed as sent and as answered. */
async function modern(url, id, method, params = {}) {
    say(`→ ${method} ${cut(params)}`);
    const { status, type, msg, others } = await modernRequest(url, id, method, params);
    for (const m of others) say(`  ← (sse, other) ${cut(m)}`);
    say(`  ← ${status} ${type || '-'} ${cut(msg)}`);
    return msg;
}

async function modernFlow(url) {
    let id = 0;
    const call = (method, params) => modern(url, ++id, method, params);
    const poll = async (taskId, { onInput } = {}) => {
        const seen = [];
        for (let i = 0; i < 60; i++) {
            const r = await call('tasks/get', { taskId });
            const t = r?.result;
            if (!t) return r;
            seen.push(`${t.status}${t.statusMessage ? `(${t.statusMessage})` : ''}`);
            if (t.status === 'input_required' && onInput) await onInput(t);
            if (TERMINAL.has(t.status)) {
                say(`  statuses seen: ${seen.join(' → ')}`);
                return r;
            }
            await sleep(Math.min(t.pollIntervalMs ?? 300, 300));
        }
        return null;
    };
    const asTask = async (name, args, opts) => {
        const r = await call('tools/call', { name: tool(name), arguments: args });
        const taskId = r?.result?.taskId;
        return taskId ? poll(taskId, opts) : r;
    };
    say('# connect');
    await call('server/discover');
    await call('tools/list');
    say('# long_job');
    await asTask('long_job', { steps: 3, stepMs: 400 });
    say('# fail_job failed / iserror');
    await asTask('fail_job', { how: 'failed' });
    await asTask('fail_job', { how: 'iserror' });
    say('# ask_input (answered by tasks/update)');
    let answered = false;
    await asTask('ask_input', { message: 'Your answer?' }, {
        onInput: async t => {
            if (answered) return;
            answered = true;
            const inputResponses = Object.fromEntries(Object.keys(t.inputRequests ?? {}).map(k => [k, { action: 'accept', content: { answer: '42' } }]));
            await call('tasks/update', { taskId: t.taskId, inputResponses });
        }
    });
    say('# cancel slow_job');
    const slow = await call('tools/call', { name: tool('slow_job'), arguments: { ms: 5000 } });
    if (slow?.result?.taskId) {
        await sleep(300);
        await call('tasks/cancel', { taskId: slow.result.taskId });
        await call('tasks/get', { taskId: slow.result.taskId });
        await sleep(600);
        await call('tasks/get', { taskId: slow.result.taskId });
    }
    say('# quick, maybe_task, unknown id, legacy methods');
    await call('tools/call', { name: tool('quick'), arguments: { text: 'hi' } });
    await call('tools/call', { name: tool('maybe_task'), arguments: {} });
    await call('tasks/get', { taskId: 'no-such-task' });
    await call('tasks/result', { taskId: 'no-such-task' });
    await call('tasks/list', {});
}

async function legacyFlow(url) {
    const log = [];
    const c = new HttpConn(url, log, { timeoutMs: 20_000 });
    let printed = 0;
    const flush = () => {
        for (; printed < log.length; printed++) {
            const e = log[printed];
            const http = e.http?.status !== undefined ? `${e.http.status} ` : '';
            const sse = e.sse ? 'sse ' : '';
            say(e.dir === 'send' ? `→ ${e.via} ${cut(e.body)}` : `  ← ${e.via} ${http}${sse}${cut(e.body ?? e.error ?? '')}`);
        }
    };
    c.onServerRequest = async msg => {
        say(`  (server request ${msg.method}, id ${JSON.stringify(msg.id)})`);
        if (msg.method === 'elicitation/create') return { action: 'accept', content: { answer: '42' }, _meta: msg.params?._meta };
        return { error: { code: -32601, message: 'not supported' } };
    };
    const req = async (method, params) => {
        const r = await c.request(method, params).catch(e => ({ probeError: String(e) }));
        flush();
        return r;
    };
    const poll = async taskId => {
        const seen = [];
        for (let i = 0; i < 30; i++) {
            const r = await req('tasks/get', { taskId });
            const t = r?.result;
            if (!t) return r;
            seen.push(`${t.status}${t.statusMessage ? `(${t.statusMessage})` : ''}`);
            if (TERMINAL.has(t.status) || t.status === 'input_required') {
                say(`  statuses seen: ${seen.join(' → ')}`);
                return r;
            }
            await sleep(Math.min(t.pollInterval ?? 300, 300));
        }
        return null;
    };
    const asTask = async (name, args) => {
        const r = await req('tools/call', { name: tool(name), arguments: args, task: { ttl: 60_000 } });
        const taskId = r?.result?.task?.taskId;
        if (!taskId) return;
        await poll(taskId);
        await req('tasks/result', { taskId });
    };
    say('# connect');
    await req('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'probe', version: '0' } });
    c.protocolVersion = '2025-11-25';
    await c.notify('notifications/initialized');
    say(`  (GET listening stream: HTTP ${await c.listen().catch(e => String(e))})`);
    flush();
    await req('tools/list', {});
    say('# long_job');
    await asTask('long_job', { steps: 3, stepMs: 400 });
    say('# fail_job failed / iserror');
    await asTask('fail_job', { how: 'failed' });
    await asTask('fail_job', { how: 'iserror' });
    say('# ask_input (tasks/result carries the elicitation)');
    await asTask('ask_input', { message: 'Your answer?' });
    say('# cancel slow_job');
    const slow = await req('tools/call', { name: tool('slow_job'), arguments: { ms: 5000 }, task: { ttl: 60_000 } });
    const slowId = slow?.result?.task?.taskId;
    if (slowId) {
        await sleep(300);
        await req('tasks/cancel', { taskId: slowId });
        await req('tasks/get', { taskId: slowId });
        await req('tasks/result', { taskId: slowId });
    }
    say('# quick, required without task, list, unknown id');
    await req('tools/call', { name: tool('quick'), arguments: { text: 'hi' } });
    await req('tools/call', { name: tool('needs_task'), arguments: {} });
    await req('tasks/list', {});
    await req('tasks/get', { taskId: 'no-such-task' });
    await c.close().catch(() => {});
    flush();
}

const server = /^https?:/.test(target ?? '') ? null : await startServer(target, { timeoutMs: 60_000 });
const url = server ? server.url : target;
say(`# ${target} ${url} era=${era}`);
try {
    await (era === 'legacy' ? legacyFlow(url) : modernFlow(url));
} finally {
    await server?.stop();
}
