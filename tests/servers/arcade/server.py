"""MCP task test server on arcade-mcp-server 1.32.1 (its own MCP stack: legacy 2025-11-25 tasks).

Arcade names every tool `<Toolkit>_<PascalCase>`: here `Arcade_LongJob`, `Arcade_FailJob`, … (kinds.mjs maps them).
Public API only: `MCPApp`, `@app.tool(execution=ToolExecution(taskSupport=...))`, `Context.progress.report`,
`Context.ui.elicit`; served by `MCPApp.run(transport="http")` on 127.0.0.1. The framework has no port 0, so a free
port is picked first; `READY http://127.0.0.1:PORT/mcp` is printed once the port accepts connections. Exits on SIGTERM
(uvicorn). CORS: the framework's own; by default it refuses every request that carries an Origin header (403), and
its documented MCP_TRANSPORT_ALLOWED_ORIGINS setting does not reach the server, so `--allowed-origins "*"` passes
`MCPApp(allowed_origins=[...])`. Usage tracking is switched off (ARCADE_USAGE_TRACKING=0) before import, so the
process talks to nobody but its clients.
"""

import argparse
import asyncio
import os
import socket
import threading
import time

os.environ["ARCADE_USAGE_TRACKING"] = "0"

from typing import Annotated  # noqa: E402

from arcade_mcp_server import Context, MCPApp  # noqa: E402
from arcade_mcp_server.exceptions import ToolExecutionError  # noqa: E402
from arcade_mcp_server.types import ToolExecution  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
parser.add_argument("--allowed-origins", default=None, help='comma-separated, "*" = any (default: refuse any Origin)')
args = parser.parse_args()
origins = [o for o in args.allowed_origins.split(",") if o] if args.allowed_origins else None
app = MCPApp(name="arcade", version="0.0.0", log_level="WARNING", allowed_origins=origins)
REQUIRED = ToolExecution(taskSupport="required")


@app.tool(execution=REQUIRED)
async def long_job(
    context: Context,
    steps: Annotated[int, "number of steps"] = 3,
    stepMs: Annotated[int, "ms per step"] = 200,  # noqa: N803
) -> str:
    """A task of `steps` steps of `stepMs` ms, reporting progress "step i/n" (with a progressToken)."""
    for i in range(1, steps + 1):
        await context.progress.report(i, steps, f"step {i}/{steps}")
        await asyncio.sleep(stepMs / 1000)
    return f"long_job done: {steps} steps"


@app.tool(execution=REQUIRED)
async def fail_job(
    context: Context,
    ms: Annotated[int, "delay in ms"] = 100,
    how: Annotated[str, "failed | iserror"] = "failed",
) -> str:
    """Fails after `ms` ms by raising a ToolExecutionError: arcade shows the client the message of that one
    (the framework's error for tools), of any other exception only its type."""
    await asyncio.sleep(ms / 1000)
    raise ToolExecutionError("fail_job: tool error" if how == "iserror" else "fail_job: failed on purpose")


@app.tool(execution=REQUIRED)
async def ask_input(context: Context, message: Annotated[str, "the question"] = "What is your answer?") -> str:
    """Asks for {answer: string} by form elicitation, then returns it."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    reply = await context.ui.elicit(message, schema=schema)
    if reply.action != "accept":
        return f"ask_input got action: {reply.action}"
    return f"ask_input got answer: {(reply.content or {}).get('answer')}"


@app.tool(execution=REQUIRED)
async def needs_task(context: Context, ms: Annotated[int, "delay in ms"] = 100) -> str:
    """A short required task."""
    await asyncio.sleep(ms / 1000)
    return "needs_task done"


@app.tool(execution=ToolExecution(taskSupport="optional"))
async def maybe_task(context: Context, ms: Annotated[int, "delay in ms"] = 100) -> str:
    """As a task or inline."""
    await asyncio.sleep(ms / 1000)
    return "maybe_task done"


@app.tool(execution=REQUIRED)
async def slow_job(context: Context, ms: Annotated[int, "duration in ms"] = 5000) -> str:
    """A long task, to outlive a short ttl or be cancelled."""
    await asyncio.sleep(ms / 1000)
    return f"slow_job done after {ms} ms"


@app.tool
def quick(context: Context, text: Annotated[str, "text"] = "hi") -> str:
    """A plain tool (never a task)."""
    return f"quick: {text}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def announce_when_listening(port: int) -> None:
    for _ in range(400):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                print(f"READY http://127.0.0.1:{port}/mcp", flush=True)
                return
        except OSError:
            time.sleep(0.05)


if __name__ == "__main__":
    port = args.port or free_port()
    threading.Thread(target=announce_when_listening, args=(port,), daemon=True).start()
    app.run(host="127.0.0.1", port=port, transport="http")
