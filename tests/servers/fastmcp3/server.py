"""MCP task test server on FastMCP 3.4.11 (legacy 2025-11-25 tasks through Docket, on `mcp` 1.30.0).

Public API only: `FastMCP(tasks=True)` (every tool may run as a task unless `task=False`; in-memory Docket backend, the default `memory://`), `@mcp.tool(task=
TaskConfig(mode=...))`, `Context.report_progress` (becomes statusMessage) and `Context.elicit` (in a background
task: status `input_required` plus an elicitation relayed to the client). Binds 127.0.0.1 only, prints
`READY http://127.0.0.1:PORT/mcp`, exits on SIGTERM. CORS: FastMCP adds none; Starlette's `CORSMiddleware` reflecting
any origin is added (same header lists as ../fastmcp). Options: --port N, --json.
"""

import argparse
import asyncio
import os
import signal
import socket
from dataclasses import dataclass

import uvicorn
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.tasks import TaskConfig
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

mcp = FastMCP("mcp-task-client-test-fastmcp3", tasks=True)
REQUIRED = TaskConfig(mode="required")
HEADERS = ["Content-Type", "Accept", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID", "Mcp-Method", "Mcp-Name"]


@mcp.tool(task=REQUIRED)
async def long_job(ctx: Context, steps: int = 3, stepMs: int = 200) -> str:
    """A task of `steps` steps of `stepMs` ms; each step reports progress "step i/n"."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
        await asyncio.sleep(stepMs / 1000)
    return f"long_job done: {steps} steps"


@mcp.tool(task=REQUIRED)
async def fail_job(ms: int = 100, how: str = "failed") -> str:
    """Fails after `ms` ms: "failed" raises a RuntimeError, "iserror" a ToolError."""
    await asyncio.sleep(ms / 1000)
    if how == "iserror":
        raise ToolError("fail_job: tool error")
    raise RuntimeError("fail_job: failed on purpose")


@dataclass
class Answer:
    """The form `ask_input` asks for: `{answer: string}`."""

    answer: str


@mcp.tool(task=REQUIRED)
async def ask_input(ctx: Context, message: str = "What is your answer?") -> str:
    """Asks for `{answer: string}` by form elicitation, then returns it."""
    reply = await ctx.elicit(message, response_type=Answer)
    if reply.action != "accept":
        return f"ask_input got action: {reply.action}"
    return f"ask_input got answer: {reply.data.answer}"


@mcp.tool(task=REQUIRED)
async def needs_task(ms: int = 100) -> str:
    """A short required task."""
    await asyncio.sleep(ms / 1000)
    return "needs_task done"


@mcp.tool(task=TaskConfig(mode="optional"))
async def maybe_task(ms: int = 100) -> str:
    """As a task or inline."""
    await asyncio.sleep(ms / 1000)
    return "maybe_task done"


@mcp.tool(task=REQUIRED)
async def slow_job(ms: int = 5000) -> str:
    """A long task, to outlive a short ttl or be cancelled."""
    await asyncio.sleep(ms / 1000)
    return f"slow_job done after {ms} ms"


@mcp.tool(task=False)
def quick(text: str = "hi") -> str:
    """A plain tool (never a task)."""
    return f"quick: {text}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
    parser.add_argument("--json", action="store_true", default=os.environ.get("JSON_RESPONSE") == "1")
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]

    cors = Middleware(
        CORSMiddleware,
        allow_origin_regex=".*",
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=HEADERS,
        expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version"],
    )
    app = mcp.http_app(path="/mcp", middleware=[cors], json_response=args.json)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    if server.started:
        print(f"READY http://127.0.0.1:{port}/mcp", flush=True)
    await serving


if __name__ == "__main__":
    asyncio.run(main())
