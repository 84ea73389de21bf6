"""Task-capable MCP test server on the Python SDK (legacy 2025-11-25 tasks): Streamable HTTP and WebSocket.

    python server.py [--port N] [--transport http|ws] [--no-get] [--json] [--keep-cancel-bug] [--keep-task-group-bug]

Env equivalents: PORT, TRANSPORT, NO_GET=1, JSON_RESPONSE=1, KEEP_CANCEL_BUG=1, KEEP_TASK_GROUP_BUG=1. Port 0 (default) =
any free port. --no-get: GET /mcp answers 405 (no listening stream). --json: JSON responses instead of SSE.
--keep-cancel-bug: no workaround for the SDK's crash after tasks/cancel (the session dies once the work ends).
--keep-task-group-bug: no workaround for the SDK's shared task group (any session that ends stops task creation in
every other session: their task-augmented calls answer isError "TaskSupport not running"). Implied by --keep-cancel-bug.
Binds 127.0.0.1 only. Both transports are always served on the same port and path:
Streamable HTTP at http://127.0.0.1:<port>/mcp and WebSocket (subprotocol "mcp") at ws://127.0.0.1:<port>/mcp.
`--transport` only picks which URL the single `READY <url>` line announces.
Extra endpoints: GET /stats, POST /stats/reset (counts of the JSON-RPC messages received).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import uvicorn
from starlette.middleware.cors import CORSMiddleware

import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from stats import Stats

# The SDK flags its experimental tasks API and the WebSocket transport as deprecated (removed in mcp 2.0).
warnings.simplefilter("ignore", DeprecationWarning)
from mcp.server.websocket import websocket_server  # noqa: E402

RELATED = "io.modelcontextprotocol/related-task"
# --keep-cancel-bug: leave the SDK's crash after tasks/cancel in place (the session dies when the work ends).
KEEP_SDK_CANCEL_BUG = "--keep-cancel-bug" in sys.argv or os.environ.get("KEEP_CANCEL_BUG") == "1"
# --keep-task-group-bug: leave the SDK's task group for task work as it is (see _process_task_group).
KEEP_SDK_TASK_GROUP_BUG = (
    KEEP_SDK_CANCEL_BUG or "--keep-task-group-bug" in sys.argv or os.environ.get("KEEP_TASK_GROUP_BUG") == "1"
)

server: Server[Any, Any] = Server("mcp-task-client-test-python", version="1.0.0")
task_support = server.experimental.enable_tasks()
stats = Stats()


def _schema(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _tool(name: str, description: str, props: dict[str, Any], task_support_mode: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=description,
        inputSchema=_schema(props),
        execution=types.ToolExecution(taskSupport=task_support_mode),  # type: ignore[arg-type]
    )


INT0 = {"type": "integer", "minimum": 0}
TOOLS = [
    _tool(
        "long_job",
        "Works `steps` steps of `stepMs` ms each (status message + progress per step), then returns a text.",
        {"steps": {**INT0, "default": 3}, "stepMs": {**INT0, "default": 200}},
        "required",
    ),
    _tool(
        "fail_job",
        'Fails after `ms` ms. how="failed" (default): the work raises (status failed, empty tasks/result); '
        'how="iserror": returns an isError result (status completed).',
        {"ms": {**INT0, "default": 100}, "how": {"type": "string", "enum": ["failed", "iserror"], "default": "failed"}},
        "required",
    ),
    _tool(
        "ask_input",
        "Asks the client a form elicitation mid-task ({answer: string}); the result echoes the answer.",
        {"message": {"type": "string", "default": "What is your answer?"}},
        "required",
    ),
    _tool(
        "sample_job",
        "Asks the client sampling/createMessage mid-task; the result echoes the sampled text.",
        {"prompt": {"type": "string", "default": "Say hello"}},
        "required",
    ),
    _tool("quick", "Plain tool (taskSupport forbidden): echoes `text`.", {"text": {"type": "string", "default": "hi"}}, "forbidden"),
    _tool(
        "client_task",
        "Asks the client to run an elicitation (or sampling, kind=sample) as a task with the SDK's "
        "elicit_as_task / create_message_as_task (which poll the client's task), then echoes the outcome as JSON.",
        {"kind": {"type": "string", "enum": ["elicit", "sample"], "default": "elicit"}, "ttl": {**INT0, "default": 60000}},
        "forbidden",
    ),
    _tool("needs_task", "taskSupport required: finishes after `ms` ms.", {"ms": {**INT0, "default": 100}}, "required"),
    _tool(
        "maybe_task",
        "taskSupport optional: finishes after `ms` ms (as a task when asked, else inline).",
        {"ms": {**INT0, "default": 100}},
        "optional",
    ),
    _tool("slow_job", "Sleeps `ms` ms (default 5000), to outlive a short ttl; cancellable.", {"ms": {**INT0, "default": 5000}}, "required"),
]
TOOL_BY_NAME = {t.name: t for t in TOOLS}


def _text(t: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=t)], isError=is_error)


async def _ended(task: ServerTaskContext) -> bool:
    """True once the task was ended from outside (tasks/cancel).

    The SDK's run_task wrapper completes (or fails) the task when the work returns, judging by the task it
    cached at creation; doing that on a task that is already terminal or gone raises inside the session's
    task group and takes the whole session down. So a cancelled task gets its cached copy refreshed here
    (a message-only update, allowed on terminal tasks), and a vanished task (ttl) is marked terminal in
    that cached copy, so the wrapper leaves it alone.
    """
    current = await task_support.store.get_task(task.task_id)
    if current is None:
        task.task.status = "cancelled"
        return True
    if current.status in ("completed", "failed", "cancelled"):
        if not KEEP_SDK_CANCEL_BUG:
            # same message: only the cached copy (and lastUpdatedAt) change
            await task.update_status(current.statusMessage, notify=False)  # type: ignore[arg-type]
        return True
    return False


async def _sleep_unless_ended(task: ServerTaskContext, ms: int) -> bool:
    end = anyio.current_time() + ms / 1000
    while anyio.current_time() < end:
        await anyio.sleep(min(0.05, end - anyio.current_time()))
        if await _ended(task):
            return True
    return await _ended(task)


async def _progress(task: ServerTaskContext, token: str | int | None, value: int, total: int, message: str) -> None:
    """Progress for a task: no related request any more, so it goes on the GET stream (HTTP) or the socket (WS)."""
    if token is None:
        return
    params = types.ProgressNotificationParams(
        progressToken=token, progress=value, total=total, message=message, **{"_meta": {RELATED: {"taskId": task.task_id}}}
    )
    await task._session.send_notification(  # noqa: SLF001 - the task's own session is the documented channel
        types.ServerNotification(types.ProgressNotification(params=params))
    )


def _work(name: str, args: dict[str, Any], token: str | int | None):
    async def long_job(task: ServerTaskContext) -> types.CallToolResult:
        steps, step_ms = int(args.get("steps", 3)), int(args.get("stepMs", 200))
        for i in range(1, steps + 1):
            if await _sleep_unless_ended(task, step_ms):
                return _text("ended")
            await task.update_status(f"step {i}/{steps}")
            await _progress(task, token, i, steps, f"step {i}/{steps}")
        await _ended(task)
        return _text(f"long_job done: {steps} steps")

    async def fail_job(task: ServerTaskContext) -> types.CallToolResult:
        if await _sleep_unless_ended(task, int(args.get("ms", 100))):
            return _text("ended")
        if args.get("how") == "iserror":
            return _text("fail_job: failed on purpose", is_error=True)
        raise RuntimeError("fail_job: failed on purpose")

    async def ask_input(task: ServerTaskContext) -> types.CallToolResult:
        schema = {"type": "object", "properties": {"answer": {"type": "string", "title": "Answer"}}, "required": ["answer"]}
        try:
            r = await task.elicit(message=str(args.get("message", "What is your answer?")), requestedSchema=schema)
        except ValueError:
            # cancelled while waiting: the SDK could not move a cancelled task back to working
            await _ended(task)
            return _text("ended")
        if await _ended(task):
            return _text("ended")
        reply = f"answer: {(r.content or {}).get('answer')}" if r.action == "accept" else f"action: {r.action}"
        return _text(f"ask_input got {reply}")

    async def sample_job(task: ServerTaskContext) -> types.CallToolResult:
        msg = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=str(args.get("prompt", "Say hello"))))
        try:
            r = await task.create_message(messages=[msg], max_tokens=50)
        except ValueError:
            await _ended(task)
            return _text("ended")
        if await _ended(task):
            return _text("ended")
        content = r.content
        sampled = content.text if isinstance(content, types.TextContent) else json.dumps(r.model_dump(mode="json")["content"])
        return _text(f"sample_job got: {sampled}")

    def sleeper(label: str, default_ms: int):
        async def run(task: ServerTaskContext) -> types.CallToolResult:
            ms = int(args.get("ms", default_ms))
            if await _sleep_unless_ended(task, ms):
                return _text("ended")
            await _ended(task)
            return _text(f"{label} done" if label != "slow_job" else f"slow_job done after {ms} ms")

        return run

    table = {
        "long_job": long_job,
        "fail_job": fail_job,
        "ask_input": ask_input,
        "sample_job": sample_job,
        "needs_task": sleeper("needs_task", 100),
        "maybe_task": sleeper("maybe_task", 100),
        "slow_job": sleeper("slow_job", 5000),
    }
    return table[name]


async def _client_task(session, arguments: dict[str, Any]) -> types.CallToolResult:
    """The server as a task requestor toward the client (2025-11-25): the SDK sends the request with
    `params.task`, polls `tasks/get` and fetches `tasks/result`."""
    ttl = int(arguments.get("ttl", 60000))
    try:
        if arguments.get("kind") == "sample":
            message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi"))
            r = await session.experimental.create_message_as_task([message], max_tokens=20, ttl=ttl)
        else:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}}
            r = await session.experimental.elicit_as_task("Your name?", schema, ttl=ttl)
        return _text(json.dumps({"result": r.model_dump(mode="json", exclude_none=True)}))
    except Exception as e:  # the report is the point: the test reads it
        return _text(json.dumps({"error": {"code": getattr(getattr(e, "error", None), "code", None), "message": str(e)}}))


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult | types.CreateTaskResult:
    ctx = server.request_context
    tool = TOOL_BY_NAME.get(name)
    if tool is None:
        return _text(f"Unknown tool: {name}", is_error=True)
    ctx.experimental.validate_for_tool(tool)
    if name == "quick":
        return _text(f"quick: {arguments.get('text', 'hi')}")
    if name == "client_task":
        return await _client_task(ctx.session, arguments)
    if name == "maybe_task" and not ctx.experimental.is_task:
        await anyio.sleep(int(arguments.get("ms", 100)) / 1000)
        return _text("maybe_task done")
    token = ctx.meta.progressToken if ctx.meta is not None else None
    return await ctx.experimental.run_task(_work(name, arguments, token))


# ---------------------------------------------------------------- ASGI plumbing


def _count_http(receive, session: str | None):
    """Wraps `receive` so the JSON-RPC body of a POST is recorded once complete."""
    chunks: list[bytes] = []

    async def wrapped():
        message = await receive()
        if message.get("type") == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                stats.record_raw(b"".join(chunks), "post", session)
        return message

    return wrapped


def _count_ws(receive, session: str):
    async def wrapped():
        message = await receive()
        if message.get("type") == "websocket.receive":
            raw = message.get("text") or message.get("bytes") or b""
            stats.record_raw(raw.encode() if isinstance(raw, str) else raw, "ws", session)
        return message

    return wrapped


class _Contained:
    """A task group whose work cannot take the group down: a failure is logged (one task's bug stays one task's)."""

    def __init__(self, tg: anyio.abc.TaskGroup) -> None:
        self._tg = tg

    def start_soon(self, fn, *args: Any, name: Any = None) -> None:
        async def contained() -> None:
            try:
                await fn(*args)
            except Exception as e:  # noqa: BLE001 - logged, the server goes on
                sys.stderr.write(f"task work failed: {e!r}\n")

        self._tg.start_soon(contained, name=name)


@asynccontextmanager
async def _process_task_group() -> AsyncIterator[None]:
    """One task group for every session's task work, for the life of the server.

    The SDK keeps a single task group on its TaskSupport: each session's Server.run() sets it to the session's own
    group and clears it when that session ends, whatever other sessions still run. So any session that ends (a POST
    without a session id such as a `server/discover` probe, a DELETE, a dead client) leaves every other session unable
    to create tasks: their task-augmented calls answer isError "TaskSupport not running. Ensure Server.run() is
    active." until some session starts again. Here the group is the server's, and Server.run() leaves it alone.
    """

    @asynccontextmanager
    async def leave_alone() -> AsyncIterator[None]:
        yield

    async with anyio.create_task_group() as tg:
        task_support._task_group = _Contained(tg)  # type: ignore[assignment]  # noqa: SLF001
        task_support.run = leave_alone  # type: ignore[method-assign]
        try:
            yield
        finally:
            task_support._task_group = None  # noqa: SLF001
            tg.cancel_scope.cancel()


async def _send_json(send, status: int, body: Any, extra_headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra_headers or [])})
    await send({"type": "http.response.body", "body": data})


def build_app(json_response: bool, no_get: bool):
    manager = StreamableHTTPSessionManager(app=server, json_response=json_response)
    ws_seq = 0

    async def ws_session(scope, receive, send) -> None:
        nonlocal ws_seq
        ws_seq += 1
        async with websocket_server(scope, _count_ws(receive, f"ws-{ws_seq}"), send) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    async def app(scope, receive, send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            stack = AsyncExitStack()
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await stack.enter_async_context(manager.run())
                    if not KEEP_SDK_TASK_GROUP_BUG:
                        await stack.enter_async_context(_process_task_group())
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await stack.aclose()  # ends every session before reporting shutdown complete
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        path = scope.get("path", "")
        if kind == "websocket":
            if path in ("/mcp", "/ws"):
                await ws_session(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        method = scope.get("method", "GET")
        if path == "/stats" and method == "GET":
            await _send_json(send, 200, stats.snapshot())
        elif path == "/stats/reset" and method == "POST":
            stats.reset()
            await _send_json(send, 200, {"ok": True})
        elif path == "/mcp":
            headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
            session = headers.get("mcp-session-id")
            if method == "GET":
                stats.record_get(session)
                if no_get:
                    await _send_json(
                        send,
                        405,
                        {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Method not allowed"}, "id": None},
                        [(b"allow", b"POST, DELETE")],
                    )
                    return
            if method == "POST":
                receive = _count_http(receive, session)
            await manager.handle_request(scope, receive, send)
        else:
            await _send_json(send, 404, {"error": "not found"})

    # STRICT_CORS=1: only the 2025-11-25 request headers are allowed (a common configuration).
    strict = os.environ.get("STRICT_CORS") == "1"
    modern_headers = [] if strict else ["Mcp-Method", "Mcp-Name"]
    return CORSMiddleware(
        app,
        allow_origin_regex=".*",
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=[
            "Content-Type",
            "Accept",
            "Authorization",
            "Mcp-Session-Id",
            "MCP-Protocol-Version",
            *modern_headers,
            "Last-Event-ID",
        ],
        expose_headers=["Mcp-Session-Id"] if strict else ["Mcp-Session-Id", "MCP-Protocol-Version"],
        max_age=600,
    )


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "0") or 0))
    p.add_argument("--transport", choices=["http", "ws"], default=os.environ.get("TRANSPORT", "http"))
    p.add_argument("--no-get", action="store_true", default=os.environ.get("NO_GET") == "1")
    p.add_argument("--json", action="store_true", default=os.environ.get("JSON_RESPONSE") == "1")
    p.add_argument("--keep-cancel-bug", action="store_true", help="do not work around the SDK's crash after tasks/cancel")
    p.add_argument("--keep-task-group-bug", action="store_true", help="do not work around the SDK's shared task group")
    a = p.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", a.port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        build_app(a.json, a.no_get),
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",
        timeout_graceful_shutdown=1,
    )
    userver = uvicorn.Server(config)

    async def announce() -> None:
        while not userver.started:
            await asyncio.sleep(0.02)
        scheme = "ws" if a.transport == "ws" else "http"
        sys.stdout.write(f"READY {scheme}://127.0.0.1:{port}/mcp\n")
        sys.stdout.flush()

    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal to the handler installed
    # before it: make that a clean exit (status 0).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))
    announcer = asyncio.create_task(announce())
    await userver.serve(sockets=[sock])
    announcer.cancel()


if __name__ == "__main__":
    asyncio.run(main())
