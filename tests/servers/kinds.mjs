// Server kinds beyond launch.mjs's own, loaded by launch.mjs: libraries other than the reference SDKs.
//   fastmcp        FastMCP 4.1.4 + fastmcp-tasks 4.1.4 (Python), 2026-07-28 + tasks extension (modern answers are
//                  always JSON; `initialize` also works, without tasks: legacy answers are SSE, `-- --json` for JSON)
//   fastmcp3       FastMCP 3.4.11 (Python; Docket, mcp 1.30.0), legacy 2025-11-25 tasks
//   mcp-framework  mcp-framework 0.2.22 (npm; own task manager over TS SDK 1.32.2), legacy 2025-11-25 tasks,
//                  the framework's default CORS (no MCP-Protocol-Version allowed); mcp-framework-cors adds the protocol headers
//   arcade         arcade-mcp-server 1.32.1 (Python; own MCP stack), legacy 2025-11-25 tasks, framework defaults:
//                  every request with an Origin header is refused (403); arcade-cors allows any origin
//   pmcp           pmcp 2.23.0 (Rust), dual-era: 2025-11-25 tasks via initialize, 2026-07-28 + tasks extension
//   pmcp-ws        the same over the SDK's multi-client WebSocket server (EnhancedWebSocketServer), no subprotocol
//   mcpkit         mcpkit 0.7.0 + mcpkit-axum (Rust), legacy 2025-11-25 tasks, no ask_input, no CORS; mcpkit-cors: any
//   turbomcp       turbomcp 4.0.0-alpha.5 (Rust), tasks extension (initialize works, without tasks), no CORS; turbomcp-cors: any origin
// Each Python library has its own venv (their `mcp` versions conflict), made by install.sh.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { targetDir } from './rust/kinds.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The venv install.sh makes for `name` (MCP_TASK_CLIENT_VENV_<NAME> overrides). */
export function libraryVenv(name) {
    const own = process.env[`MCP_TASK_CLIENT_VENV_${name.toUpperCase().replace(/-/g, '_')}`];
    if (own) return own;
    return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-task-client', `venv-${name}`);
}

function pythonLibraryKind(lib, describe, fixed = []) {
    return {
        describe,
        stats: false,
        command({ port, args }) {
            const python = join(libraryVenv(lib), 'bin', 'python');
            if (!existsSync(python)) throw new Error(`no venv at ${libraryVenv(lib)}: run tests/servers/install.sh ${lib}`);
            return {
                cmd: python,
                args: [join(HERE, lib, 'server.py'), '--port', String(port), ...fixed, ...args],
                cwd: join(HERE, lib),
                env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' }
            };
        }
    };
}

function rustLibraryKind(bin, describe, fixed = []) {
    return {
        describe,
        stats: false,
        command({ port, args }) {
            const cmd = join(targetDir(), 'release', bin);
            if (!existsSync(cmd)) throw new Error(`${cmd} missing: run tests/servers/install.sh ${bin.replace(/-server$/, '')}`);
            return { cmd, args: ['--port', String(port), ...fixed, ...args] };
        }
    };
}

function nodeLibraryKind(lib, describe, fixed = []) {
    return {
        describe,
        stats: false,
        command({ port, args }) {
            if (!existsSync(join(HERE, lib, 'node_modules'))) throw new Error(`tests/servers/${lib} has no node_modules: run tests/servers/install.sh ${lib}`);
            return { cmd: process.execPath, args: [join(HERE, lib, 'server.mjs'), '--port', String(port), ...fixed, ...args], cwd: join(HERE, lib) };
        }
    };
}

export const kinds = {
    arcade: pythonLibraryKind('arcade', 'arcade-mcp-server 1.32.1, legacy tasks, framework defaults (any Origin → 403)'),
    'arcade-cors': pythonLibraryKind('arcade', 'arcade-mcp-server 1.32.1, legacy tasks, MCPApp(allowed_origins=["*"])', ['--allowed-origins', '*']),
    pmcp: rustLibraryKind('pmcp-server', 'pmcp 2.23.0, legacy tasks and 2026-07-28 + tasks extension, SDK CORS (localhost origins)'),
    turbomcp: rustLibraryKind('turbomcp-server', 'turbomcp 4.0.0-alpha.5, 2026-07-28 + tasks extension, SDK defaults (no CORS)'),
    'turbomcp-cors': rustLibraryKind('turbomcp-server', 'turbomcp 4.0.0-alpha.5, HttpConfig::allow_any_origin()', ['--any-origin']),
    mcpkit: rustLibraryKind('mcpkit-server', 'mcpkit 0.7.0 + mcpkit-axum, legacy tasks, router defaults (no CORS)'),
    'mcpkit-cors': rustLibraryKind('mcpkit-server', 'mcpkit 0.7.0 + mcpkit-axum, legacy tasks, McpRouter::with_cors()', ['--cors']),
    'pmcp-ws': rustLibraryKind('pmcp-server', 'pmcp 2.23.0, multi-client WebSocket server (EnhancedWebSocketServer, no subprotocol)', ['--ws']),
    'mcp-framework': nodeLibraryKind('mcp-framework', 'mcp-framework 0.2.22 (TS SDK 1.32.2), legacy tasks, framework CORS defaults'),
    'mcp-framework-cors': nodeLibraryKind('mcp-framework', 'mcp-framework 0.2.22, legacy tasks, CORS with the protocol headers', ['--full-cors']),
    fastmcp: pythonLibraryKind('fastmcp', 'FastMCP 4.1.4 + fastmcp-tasks 4.1.4, 2026-07-28 + tasks extension'),
    fastmcp3: pythonLibraryKind('fastmcp3', 'FastMCP 3.4.11 (Docket, mcp 1.30.0), legacy tasks')
};

/** Arcade names tools `<Toolkit>_<PascalCase>`: our tool name → the server's. */
const ARCADE_TOOLS = Object.fromEntries(
    ['long_job', 'fail_job', 'ask_input', 'needs_task', 'maybe_task', 'slow_job', 'quick'].map(n => [n, `Arcade_${n.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase())}`])
);

/**
 * Every registered kind's era and transport, for the interop matrix:
 * { kind: { eras: ('legacy'|'modern')[], transport: 'http'|'ws', library: string, tools?: { ourName: serverName } } }
 * (`tools` only where the library renames tools).
 * "legacy" = 2025-11-25 core tasks, "modern" = 2026-07-28 + io.modelcontextprotocol/tasks.
 */
export const kindInfo = {
    'ts-sdk': { library: '@modelcontextprotocol/sdk@1.32.2', eras: ['legacy'], transport: 'http' },
    'python-http': { library: 'mcp==1.30.0', eras: ['legacy'], transport: 'http' },
    'python-ws': { library: 'mcp==1.30.0', eras: ['legacy'], transport: 'ws' },
    rmcp2: { library: 'rmcp=2.0.0', eras: ['legacy'], transport: 'http' },
    'rmcp2-full': { library: 'rmcp=2.0.0', eras: ['legacy'], transport: 'http' },
    rmcp3: { library: 'rmcp=3.11.0', eras: ['modern', 'legacy'], transport: 'http' },
    'rmcp3-modern': { library: 'rmcp=3.11.0', eras: ['modern'], transport: 'http' },
    'rmcp3-sse': { library: 'rmcp=3.11.0', eras: ['modern', 'legacy'], transport: 'http' },
    'rmcp3-notasks': { library: 'rmcp=3.11.0', eras: [], transport: 'http' },
    fastmcp: { library: 'fastmcp==4.1.4 + fastmcp-tasks==4.1.4', eras: ['modern'], transport: 'http' },
    fastmcp3: { library: 'fastmcp==3.4.11', eras: ['legacy'], transport: 'http' },
    'mcp-framework': { library: 'mcp-framework@0.2.22', eras: ['legacy'], transport: 'http' },
    'mcp-framework-cors': { library: 'mcp-framework@0.2.22', eras: ['legacy'], transport: 'http' },
    arcade: { library: 'arcade-mcp-server==1.32.1', eras: ['legacy'], transport: 'http', tools: ARCADE_TOOLS },
    'arcade-cors': { library: 'arcade-mcp-server==1.32.1', eras: ['legacy'], transport: 'http', tools: ARCADE_TOOLS },
    pmcp: { library: 'pmcp=2.23.0', eras: ['modern', 'legacy'], transport: 'http' },
    'pmcp-ws': { library: 'pmcp=2.23.0', eras: ['legacy'], transport: 'ws' },
    turbomcp: { library: 'turbomcp=4.0.0-alpha.5', eras: ['modern'], transport: 'http' },
    mcpkit: { library: 'mcpkit=0.7.0', eras: ['legacy'], transport: 'http' },
    'mcpkit-cors': { library: 'mcpkit=0.7.0', eras: ['legacy'], transport: 'http' },
    'turbomcp-cors': { library: 'turbomcp=4.0.0-alpha.5', eras: ['modern'], transport: 'http' }
};
