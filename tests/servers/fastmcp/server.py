"""MCP task test server on FastMCP 4 + fastmcp-tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28).

Public API only: `FastMCP`, `TasksExtension` (in-memory Docket backend, `memory://`), `@mcp.tool(task=TaskConfig(...))`,
`Context.report_progress` (becomes the task's statusMessage) and the guard pattern for input (a task tool returns an
`InputRequiredResult`; the answer comes back through `tasks/update` and the tool runs again with `ctx.input_responses`).

Binds 127.0.0.1 only, prints `READY http://127.0.0.1:PORT/mcp`, exits on SIGTERM. CORS: FastMCP adds none; this
server adds Starlette's `CORSMiddleware` reflecting any origin (see tests/servers/README.md for the header lists).
Options: --port N (0 = any free port), --json (JSON bodies for legacy requests too; modern answers are always JSON),
--strict-cors (only the 2025-11-25 request headers allowed, only Mcp-Session-Id exposed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket

import mcp_types
import uvicorn
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

LEGACY_HEADERS = ["Content-Type", "Accept", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"]
MODERN_HEADERS = ["Mcp-Method", "Mcp-Name"]

mcp = FastMCP("mcp-task-client-test-fastmcp")
mcp.add_extension(TasksExtension(url="memory://"))

REQUIRED = TaskConfig(mode="required")


@mcp.tool(task=REQUIRED)
async def long_job(ctx: Context, steps: int = 3, stepMs: int = 200) -> str:
    """A task of `steps` steps of `stepMs` ms; each step sets statusMessage "step i/n"."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
        await asyncio.sleep(stepMs / 1000)
    return f"long_job done: {steps} steps"


@mcp.tool(task=REQUIRED)
async def fail_job(ms: int = 100, how: str = "failed") -> str:
    """Fails after `ms` ms. "failed": raises an MCPError, the only error FastMCP lets end a task `failed` (with
    that JSON-RPC error); "iserror": raises a ToolError (task `completed` with an isError result, as any other
    exception would)."""
    await asyncio.sleep(ms / 1000)
    if how == "iserror":
        raise ToolError("fail_job: tool error")
    raise MCPError(INTERNAL_ERROR, "fail_job: failed on purpose")


@mcp.tool(task=REQUIRED)
async def ask_input(ctx: Context, message: str = "What is your answer?") -> str | mcp_types.InputRequiredResult:
    """Asks for `{answer: string}` by form elicitation, then returns it."""
    answers = ctx.input_responses or {}
    reply = answers.get("answer")
    if reply is None:
        form = mcp_types.ElicitRequestFormParams(
            message=message,
            requested_schema={"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
        )
        return mcp_types.InputRequiredResult(input_requests={"answer": mcp_types.ElicitRequest(params=form)})
    result = reply if isinstance(reply, dict) else reply.model_dump(by_alias=True)
    if result.get("action") != "accept":
        return f"ask_input got action: {result.get('action')}"
    return f"ask_input got answer: {(result.get('content') or {}).get('answer')}"


@mcp.tool(task=REQUIRED)
async def needs_task(ms: int = 100) -> str:
    """A short required task."""
    await asyncio.sleep(ms / 1000)
    return "needs_task done"


@mcp.tool(task=TaskConfig(mode="optional"))
async def maybe_task(ms: int = 100) -> str:
    """Runs as a task or inline, as the server decides."""
    await asyncio.sleep(ms / 1000)
    return "maybe_task done"


@mcp.tool(task=REQUIRED)
async def slow_job(ms: int = 5000) -> str:
    """A long task, to outlive a short ttl or be cancelled."""
    await asyncio.sleep(ms / 1000)
    return f"slow_job done after {ms} ms"


@mcp.tool
def quick(text: str = "hi") -> str:
    """A plain tool (never a task)."""
    return f"quick: {text}"


def cors(strict: bool) -> Middleware:
    """Starlette's CORS middleware, reflecting the request's origin."""
    return Middleware(
        CORSMiddleware,
        allow_origin_regex=".*",
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=LEGACY_HEADERS if strict else LEGACY_HEADERS + MODERN_HEADERS,
        expose_headers=["Mcp-Session-Id"] if strict else ["Mcp-Session-Id", "MCP-Protocol-Version"],
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0")))
    parser.add_argument("--json", action="store_true", default=os.environ.get("JSON_RESPONSE") == "1")
    parser.add_argument("--strict-cors", action="store_true", default=os.environ.get("STRICT_CORS") == "1")
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]

    app = mcp.http_app(path="/mcp", middleware=[cors(args.strict_cors)], json_response=args.json)
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
