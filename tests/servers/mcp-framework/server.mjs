// MCP task test server on mcp-framework 0.2.22: its own task manager (`tasks: {enabled: true}`) over the TypeScript
// SDK 1.x `Server`, Streamable HTTP ("http-stream" transport). Public API only: `MCPServer`, `MCPTool` subclasses
// with `execution: {taskSupport}`, `reportProgress`, `elicit`, `abortSignal`.
//
//   node server.mjs [--port N] [--json] [--full-cors]
//
// Binds 127.0.0.1 (the framework's default host), prints `READY http://127.0.0.1:PORT/mcp` once its /health answers,
// exits on SIGTERM (the framework's own handler). CORS: the framework's defaults (`cors: {}`: origin `*`, allowed
// headers `Content-Type, Accept, Authorization, x-api-key, Mcp-Session-Id, Last-Event-ID`, exposed `Content-Type,
// Authorization, x-api-key, Mcp-Session-Id`); `--full-cors` / FULL_CORS=1 adds MCP-Protocol-Version, Mcp-Method,
// Mcp-Name to the allowed headers and MCP-Protocol-Version to the exposed ones.
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCPServer, MCPTool } from 'mcp-framework';
import { z } from 'zod';

const HERE = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (name, env) => argv.includes(name) || process.env[env] === '1';
const portArg = argv.includes('--port') ? Number(argv[argv.indexOf('--port') + 1]) : Number(process.env.PORT ?? 0);
const sleep = ms => new Promise(r => setTimeout(r, ms));

/** Waits `ms` in 50 ms slices; stops early once the call's abort signal fires. */
async function work(tool, ms) {
    for (let left = ms; left > 0; left -= 50) {
        if (tool.abortSignal?.aborted) throw new Error('cancelled');
        await sleep(Math.min(50, left));
    }
}

/** Our tools: results as plain text (the framework's default JSON-stringifies returned strings: `"\"quick: hi\""`). */
class TextTool extends MCPTool {
    useStringify = false;
}

class LongJob extends TextTool {
    name = 'long_job';
    description = 'A task of `steps` steps of `stepMs` ms, reporting progress "step i/n" per step';
    execution = { taskSupport: 'required' };
    schema = z.object({ steps: z.number().int().default(3).describe('steps'), stepMs: z.number().int().default(200).describe('ms per step') });
    async execute({ steps, stepMs }) {
        for (let i = 1; i <= steps; i++) {
            await this.reportProgress(i, steps, `step ${i}/${steps}`);
            await work(this, stepMs);
        }
        return `long_job done: ${steps} steps`;
    }
}

class FailJob extends TextTool {
    name = 'fail_job';
    description = 'Fails after `ms` ms by throwing (the framework turns any throw into an isError result)';
    execution = { taskSupport: 'required' };
    schema = z.object({ ms: z.number().int().default(100).describe('delay'), how: z.enum(['failed', 'iserror']).default('failed').describe('how to fail') });
    async execute({ ms, how }) {
        await work(this, ms);
        throw new Error(how === 'iserror' ? 'fail_job: tool error' : 'fail_job: failed on purpose');
    }
}

class AskInput extends TextTool {
    name = 'ask_input';
    description = 'Asks for {answer: string} by form elicitation, then returns it';
    execution = { taskSupport: 'required' };
    schema = z.object({ message: z.string().default('What is your answer?').describe('the question') });
    async execute({ message }) {
        const reply = await this.elicit(message, { answer: { type: 'string', description: 'your answer' } });
        if (reply.action !== 'accept') return `ask_input got action: ${reply.action}`;
        return `ask_input got answer: ${reply.content?.answer}`;
    }
}

class NeedsTask extends TextTool {
    name = 'needs_task';
    description = 'A short required task';
    execution = { taskSupport: 'required' };
    schema = z.object({ ms: z.number().int().default(100).describe('delay') });
    async execute({ ms }) {
        await work(this, ms);
        return 'needs_task done';
    }
}

class MaybeTask extends TextTool {
    name = 'maybe_task';
    description = 'As a task or inline';
    execution = { taskSupport: 'optional' };
    schema = z.object({ ms: z.number().int().default(100).describe('delay') });
    async execute({ ms }) {
        await work(this, ms);
        return 'maybe_task done';
    }
}

class SlowJob extends TextTool {
    name = 'slow_job';
    description = 'A long task, to outlive a short ttl or be cancelled';
    execution = { taskSupport: 'required' };
    schema = z.object({ ms: z.number().int().default(5000).describe('duration') });
    async execute({ ms }) {
        await work(this, ms);
        return `slow_job done after ${ms} ms`;
    }
}

class Quick extends TextTool {
    name = 'quick';
    description = 'A plain tool (never a task)';
    schema = z.object({ text: z.string().default('hi').describe('text') });
    async execute({ text }) {
        return `quick: ${text}`;
    }
}

/** The framework maps port 0 to 8080, so a free port is picked here. */
function freePort() {
    return new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address();
            probe.close(() => resolve(port));
        });
    });
}

const port = portArg || (await freePort());
const fullCors = flag('--full-cors', 'FULL_CORS');
const cors = fullCors
    ? {
          allowHeaders: 'Content-Type, Accept, Authorization, x-api-key, Mcp-Session-Id, Last-Event-ID, MCP-Protocol-Version, Mcp-Method, Mcp-Name',
          exposeHeaders: 'Content-Type, Authorization, x-api-key, Mcp-Session-Id, MCP-Protocol-Version'
      }
    : {};
const server = new MCPServer({
    name: 'mcp-task-client-test-mcp-framework',
    version: '0.0.0',
    basePath: HERE,
    tasks: { enabled: true },
    transport: { type: 'http-stream', options: { port, host: '127.0.0.1', cors, responseMode: flag('--json', 'JSON_RESPONSE') ? 'batch' : 'stream' } }
});
for (const Tool of [LongJob, FailJob, AskInput, NeedsTask, MaybeTask, SlowJob, Quick]) server.addTool(Tool);

const running = server.start().then(
    () => process.exit(0),
    e => {
        process.stderr.write(`${e.stack ?? e}\n`);
        process.exit(1);
    }
);
for (let i = 0; i < 200; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(r => r.ok, () => false);
    if (up) {
        process.stdout.write(`READY http://127.0.0.1:${port}/mcp\n`);
        break;
    }
    await sleep(50);
}
await running;
