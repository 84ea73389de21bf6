#!/usr/bin/env node
// Starts one of the project's real MCP task test servers on 127.0.0.1 and reports its URL. Installs nothing
// (run tests/servers/install.sh first). No dependencies beyond Node >= 20.
//
// CLI:   node tests/servers/launch.mjs <kind> [--port N] [--timeout MS] [-- <extra server args>]
//        prints the server URL as one line on stdout once the server said READY, then stays in the
//        foreground until SIGTERM/SIGINT (which stop the server) or until the server exits.
// Code:  import { startServer } from './launch.mjs';
//        const s = await startServer('ts-sdk', { port: 0 });   // -> { kind, url, statsUrl, pid, stop() }
//        ... await s.stop();
//
// Kinds: ts-sdk, python-http, python-ws, and whatever tests/servers/rust/kinds.mjs (rmcp2, rmcp3) and
// tests/servers/kinds.mjs (the other libraries: fastmcp, …) export. kindList() adds each kind's era(s) and transport.
//
// Extension point — a kind is { describe, command({ port, args }) -> { cmd, args, cwd?, env? }, stats? }:
// the process it starts must bind 127.0.0.1:<port> (0 = any free port), print a line `READY <url>` on
// stdout once it accepts connections and exit on SIGTERM. `stats: false` means it has no GET /stats
// (statsUrl is then null). Add kinds from another module with registerKind(name, spec), or by exporting
// `kinds` (an object of specs) from tests/servers/rust/kinds.mjs or tests/servers/kinds.mjs, which this file loads
// when present (with `kindInfo`, { kind: { eras, transport, library } }).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

/** The Python venv made by install.sh (override with MCP_TASK_CLIENT_VENV). */
export function pythonVenv() {
    if (process.env.MCP_TASK_CLIENT_VENV) return process.env.MCP_TASK_CLIENT_VENV;
    const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    return join(cache, 'mcp-task-client', 'venv');
}

function pythonKind(transport) {
    return {
        describe: `Python mcp==1.30.0, ${transport === 'ws' ? 'WebSocket (subprotocol mcp)' : 'Streamable HTTP'}`,
        command({ port, args }) {
            const python = join(pythonVenv(), 'bin', 'python');
            if (!existsSync(python)) throw new Error(`no Python venv at ${pythonVenv()}: run tests/servers/install.sh`);
            return {
                cmd: python,
                args: [join(HERE, 'python', 'server.py'), '--port', String(port), '--transport', transport, ...args],
                cwd: join(HERE, 'python'),
                env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' }
            };
        }
    };
}

const KINDS = new Map([
    [
        'ts-sdk',
        {
            describe: '@modelcontextprotocol/sdk@1.32.2, Streamable HTTP',
            command({ port, args }) {
                if (!existsSync(join(HERE, 'ts-sdk', 'node_modules', '@modelcontextprotocol', 'sdk'))) {
                    throw new Error('tests/servers/ts-sdk has no node_modules: run tests/servers/install.sh');
                }
                return { cmd: process.execPath, args: [join(HERE, 'ts-sdk', 'server.mjs'), '--port', String(port), ...args], cwd: join(HERE, 'ts-sdk') };
            }
        }
    ],
    ['python-http', pythonKind('http')],
    ['python-ws', pythonKind('ws')]
]);

/** Adds (or replaces) a server kind; see the extension point above. */
export function registerKind(name, spec) {
    if (typeof spec?.command !== 'function') throw new Error(`kind ${name}: spec.command must be a function`);
    KINDS.set(name, spec);
}

let kindInfo = {};
for (const plugin of [join(HERE, 'rust', 'kinds.mjs'), join(HERE, 'kinds.mjs')]) {
    if (!existsSync(plugin)) continue;
    const mod = await import(pathToFileURL(plugin).href);
    for (const [name, spec] of Object.entries(mod.kinds ?? {})) registerKind(name, spec);
    kindInfo = { ...kindInfo, ...mod.kindInfo };
}

/**
 * The kinds known now with their tasks era(s) and transport, for the interop matrix:
 * [{ kind, eras: ('legacy'|'modern')[], transport: 'http'|'ws', library, describe, tools? }]
 * (`tools`: our tool name → the server's, where the library renames tools, e.g. arcade's `Arcade_LongJob`)
 * ("legacy" = 2025-11-25 core tasks, "modern" = 2026-07-28 + io.modelcontextprotocol/tasks; eras [] = no tasks).
 */
export function kindList() {
    return kinds().map(kind => ({ kind, eras: [], transport: 'http', library: '', ...kindInfo[kind], describe: KINDS.get(kind).describe ?? '' }));
}

/** Names of the kinds known now. */
export function kinds() {
    return [...KINDS.keys()];
}

/** A kind's one-line description (its spec's `describe`), or null for an unknown kind. */
export function describeKind(name) {
    return KINDS.get(name)?.describe ?? null;
}

const live = new Set();
process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts a server of `kind`; resolves once it printed READY (rejects after `timeoutMs`, killing it).
 * @param {string} kind
 * @param {{port?: number, args?: string[], timeoutMs?: number, log?: boolean, env?: Record<string, string>}} [opts]
 *   log: pass the server's output through to this process's stderr (also env MCP_TEST_SERVER_LOG=1).
 *   env: extra environment for the server (e.g. { STRICT_CORS: '1' }).
 * @returns {Promise<{kind: string, url: string, statsUrl: string|null, pid: number, stop: () => Promise<void>,
 *   exited: Promise<{code: number|null, signal: string|null}>}>}
 */
export function startServer(kind, opts = {}) {
    const spec = KINDS.get(kind);
    if (!spec) return Promise.reject(new Error(`unknown server kind ${kind} (known: ${kinds().join(', ')})`));
    const port = opts.port ?? 0;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const log = opts.log ?? process.env.MCP_TEST_SERVER_LOG === '1';
    let command;
    try {
        command = spec.command({ port, args: opts.args ?? [] });
    } catch (e) {
        return Promise.reject(e);
    }
    const child = spawn(command.cmd, command.args, {
        cwd: command.cwd,
        env: { ...process.env, ...command.env, ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe']
    });
    live.add(child);
    const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
    exited.then(() => live.delete(child));

    const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
    };

    return new Promise((resolve, reject) => {
        let tail = '';
        let out = '';
        let ready = false;
        const keep = chunk => {
            tail = (tail + chunk).slice(-4000);
            if (log) process.stderr.write(`[${kind}] ${chunk}`);
        };
        child.stderr.setEncoding('utf8').on('data', keep);
        child.stdout.setEncoding('utf8').on('data', chunk => {
            if (ready) return keep(chunk);
            out += chunk;
            const m = /^READY (\S+)\s*$/m.exec(out);
            if (!m) return keep(chunk);
            ready = true;
            clearTimeout(timer);
            const url = m[1];
            const statsUrl = spec.stats === false ? null : statsUrlFor(url);
            resolve({ kind, url, statsUrl, pid: child.pid, stop, exited });
        });
        const fail = why => {
            clearTimeout(timer);
            stop().finally(() => reject(new Error(`${kind}: ${why}\n--- server output (tail) ---\n${tail}`)));
        };
        const timer = setTimeout(() => fail(`no READY line within ${timeoutMs} ms`), timeoutMs);
        child.once('error', e => fail(`spawn failed: ${e.message}`));
        exited.then(({ code, signal }) => {
            if (!ready) fail(`exited before READY (code ${code}, signal ${signal})`);
        });
    });
}

/** http(s)://host:port/... or ws(s)://host:port/... -> http(s)://host:port/stats */
export function statsUrlFor(url) {
    const u = new URL(url);
    const scheme = u.protocol === 'wss:' || u.protocol === 'https:' ? 'https:' : 'http:';
    return `${scheme}//${u.host}/stats`;
}

async function cli(argv) {
    const sep = argv.indexOf('--');
    const own = sep >= 0 ? argv.slice(0, sep) : argv;
    const extra = sep >= 0 ? argv.slice(sep + 1) : [];
    const kind = own.find(a => !a.startsWith('--') && !/^\d+$/.test(a));
    const num = name => {
        const i = own.indexOf(name);
        return i >= 0 ? Number.parseInt(own[i + 1], 10) : undefined;
    };
    if (!kind || own.includes('--help')) {
        process.stderr.write(`usage: node launch.mjs <${kinds().join('|')}> [--port N] [--timeout MS] [-- server args]\n`);
        process.exit(kind ? 0 : 2);
    }
    let server;
    let stopping = false;
    const bye = () => {
        stopping = true;
        if (server) server.stop().then(() => process.exit(0));
        else process.exit(0); // still starting: the 'exit' hook kills the child
    };
    process.on('SIGTERM', bye);
    process.on('SIGINT', bye);
    try {
        server = await startServer(kind, { port: num('--port') ?? 0, timeoutMs: num('--timeout'), args: extra, log: true });
    } catch (e) {
        process.stderr.write(`${e.message}\n`);
        process.exit(1);
    }
    process.stdout.write(`${server.url}\n`);
    server.exited.then(({ code }) => {
        if (!stopping) process.exit(code ?? 1);
    });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
    await cli(process.argv.slice(2));
}
