"""Counts the JSON-RPC messages the test server receives, for GET /stats (same shape as the TS server).

{byMethod: {method: n}, tasksGetByTask: {taskId: n}, requests: [{t, method, taskId, id, via, session}]}
`t` = ms since epoch; client responses count as method "(response)"; a GET /mcp counts as "(get)".
"""

from __future__ import annotations

import json
import time
from typing import Any

MAX_ENTRIES = 100_000


class Stats:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.by_method: dict[str, int] = {}
        self.tasks_get_by_task: dict[str, int] = {}
        self.requests: list[dict[str, Any]] = []

    def record_raw(self, raw: bytes, via: str, session: str | None) -> None:
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return
        for m in body if isinstance(body, list) else [body]:
            if not isinstance(m, dict):
                continue
            method = m.get("method") if isinstance(m.get("method"), str) else "(response)"
            params = m.get("params") if isinstance(m.get("params"), dict) else {}
            task_id = params.get("taskId") if isinstance(params.get("taskId"), str) else None
            self._add({"t": _now(), "method": method, "taskId": task_id, "id": m.get("id"), "via": via, "session": session})

    def record_get(self, session: str | None) -> None:
        self._add({"t": _now(), "method": "(get)", "taskId": None, "id": None, "via": "get", "session": session})

    def _add(self, entry: dict[str, Any]) -> None:
        method = entry["method"]
        self.by_method[method] = self.by_method.get(method, 0) + 1
        if method == "tasks/get" and entry["taskId"] is not None:
            tid = entry["taskId"]
            self.tasks_get_by_task[tid] = self.tasks_get_by_task.get(tid, 0) + 1
        if len(self.requests) < MAX_ENTRIES:
            self.requests.append(entry)

    def snapshot(self) -> dict[str, Any]:
        return {"byMethod": self.by_method, "tasksGetByTask": self.tasks_get_by_task, "requests": self.requests}


def _now() -> int:
    return int(time.time() * 1000)
