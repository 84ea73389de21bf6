// Server kinds for tests/servers/launch.mjs: the rmcp test servers built by build.sh (install.sh).
//   rmcp2          rmcp 2.0.0, legacy 2025-11-25 tasks (SDK default capabilities: `tasks: {}`)
//   rmcp2-full     the same, advertising tasks.{list, cancel, requests.tools.call}
//   rmcp3          rmcp 3.11.0, dual-era: 2026-07-28 + tasks extension, and 2024-11-05..2025-11-25 via initialize
//   rmcp3-modern   rmcp 3.11.0, 2026-07-28 only
//   rmcp3-sse      rmcp 3.11.0, dual-era, SSE response bodies for modern requests
//   rmcp3-notasks  rmcp 3.11.0, dual-era, no tasks extension anywhere (every tool inline)
// Extra server args (launch.mjs `-- ...`) are appended, e.g. `--poll-ms=200`, `--ttl-ms=2000`.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The cargo target dir build.sh uses (SERVERS_TARGET_DIR overrides). */
export function targetDir() {
    if (process.env.SERVERS_TARGET_DIR) return process.env.SERVERS_TARGET_DIR;
    return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-task-client', 'servers-target');
}

function kind(bin, describe, fixed = []) {
    return {
        describe,
        command({ port, args }) {
            const cmd = join(targetDir(), 'release', bin);
            if (!existsSync(cmd)) throw new Error(`${cmd} missing: run tests/servers/rust/build.sh`);
            return { cmd, args: ['--port', String(port), ...fixed, ...args] };
        }
    };
}

export const kinds = {
    rmcp2: kind('rmcp2-server', 'rmcp 2.0.0, legacy tasks, Streamable HTTP (sessions, SSE)'),
    'rmcp2-full': kind('rmcp2-server', 'rmcp 2.0.0, legacy tasks, full tasks capability', ['--full-caps']),
    rmcp3: kind('rmcp3-server', 'rmcp 3.11.0, 2026-07-28 + tasks extension, dual-era, JSON bodies'),
    'rmcp3-modern': kind('rmcp3-server', 'rmcp 3.11.0, 2026-07-28 only', ['--modern-only']),
    'rmcp3-sse': kind('rmcp3-server', 'rmcp 3.11.0, dual-era, SSE bodies', ['--sse']),
    'rmcp3-notasks': kind('rmcp3-server', 'rmcp 3.11.0, dual-era, no tasks extension (tools inline)', ['--no-tasks'])
};
