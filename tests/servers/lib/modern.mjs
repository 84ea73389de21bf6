// One 2026-07-28 request written by hand (not our client): the protocol headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name), the `_meta` envelope declaring the tasks extension and form elicitation, and the answer read as JSON or
// SSE. No dependencies; Node >= 20.
import { sseEvents } from './wire.mjs';

export const MODERN_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `_meta` every modern request carries; `extensions: false` leaves the tasks extension undeclared. */
export function modernMeta({ extensions = true } = {}) {
    return {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientCapabilities': { ...(extensions ? { extensions: { [TASKS_EXTENSION]: {} } } : {}), elicitation: { form: {} } },
        'io.modelcontextprotocol/clientInfo': { name: 'mcp-task-client-probe', version: '0' }
    };
}

/**
 * POSTs request `id` and resolves with { status, type, msg, others }: `msg` is the response to `id` (null if none),
 * `others` every other message of an SSE answer.
 */
export async function modernRequest(url, id, method, params = {}, { origin = 'http://127.0.0.1:9', extensions = true } = {}) {
    const name = params.name ?? params.uri ?? params.taskId;
    const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin,
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {})
    };
    const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta({ extensions }) } };
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const type = res.headers.get('content-type') ?? '';
    const others = [];
    let msg = null;
    if (type.includes('text/event-stream') && res.body) {
        for await (const ev of sseEvents(res.body)) {
            if (!ev.data) continue;
            const m = parse(ev.data);
            if (m?.id === id && !m.method) msg = m;
            else others.push(m);
        }
    } else {
        const text = await res.text();
        msg = text ? parse(text) : null;
    }
    return { status: res.status, type, msg, others };
}

function parse(text) {
    try {
        return JSON.parse(text);
    } catch {
        return text;
    }
}
