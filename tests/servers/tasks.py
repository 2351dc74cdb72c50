"""A Tasks server (``io.modelcontextprotocol/tasks``): tools that answer with a task handle.

It follows the extension's text (ext-tasks ``specification/draft/tasks.md``): when the client
declared the extension on its request, ``tools/call`` of a task tool answers at once with
``resultType: "task"`` (taskId, status, statusMessage, ttlMs, pollIntervalMs); ``tasks/get``
answers the task's current state, with the final ``CallToolResult`` inlined as ``result`` once it
is ``completed`` (or the JSON-RPC ``error`` once ``failed``); ``tasks/cancel`` acknowledges with an
empty result and the task ends ``cancelled``. A client that did not declare the extension gets the
plain result (``count_steps``) or error -32021 (``wait_for_file``, which only runs as a task).

The work advances on the client's polls, not on a clock, so a test waits on events: ``count_steps``
moves one step per ``tasks/get`` (statusMessage ``step 2 of 3``) and completes after the last;
``wait_for_file`` stays ``working`` until its file exists (looked at on each poll), then completes;
``broken_task`` fails. ``tasks_seen`` answers the ids and states of every task, as JSON.

The tasks live in memory, or, when ``$ELFTIA_TEST_TASKS_FILE`` names a file, in that file (read
and written at each request): like a job service behind the server, they outlive its process, so
a client that starts the server again can follow a task by its id.

Run: ``python -m tests.servers.tasks`` (from the repo root) or ``python tests/servers/tasks.py``.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
import warnings
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
IDENTIFIER = "io.modelcontextprotocol/tasks"
POLL_INTERVAL_MS = 20
TTL_MS = 600_000
MISSING_CAPABILITY = -32021


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Job:
    """One task: what it runs and where it stands."""

    tool: str
    arguments: dict[str, Any]
    task_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    status: str = "working"
    message: str = "started"
    step: int = 0
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def advance(self) -> None:
        """One poll's worth of work."""
        if self.status != "working":
            return
        if self.tool == "count_steps":
            total = int(self.arguments.get("steps", 3))
            self.step += 1
            self.message = f"step {self.step} of {total}"
            if self.step >= total:
                self._complete(f"counted {total} steps")
        elif self.tool == "wait_for_file":
            if Path(str(self.arguments["path"])).exists():
                self._complete("the file is there")
            else:
                self.message = "waiting for the file"
        else:
            self.status, self.message = "failed", "the job broke"
            self.error = {"code": types.INTERNAL_ERROR, "message": "the job broke on purpose"}
        self.updated = _now()

    def _complete(self, text: str) -> None:
        self.status, self.message = "completed", text
        self.result = {
            "resultType": "complete",
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"result": text},
            "isError": False,
        }

    def wire(self) -> dict[str, Any]:
        """The task as ``tasks/get`` answers it (the detailed shape)."""
        out: dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "statusMessage": self.message,
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


JOBS: dict[str, Job] = {}
TASK_TOOLS = {"count_steps", "wait_for_file", "broken_task"}
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""Every tool here only reads (and is so called without a question)."""


class TaskIdParams(types.RequestParams):
    """``tasks/get`` and ``tasks/cancel`` parameters."""

    taskId: str


class Tasks(Extension):
    """Task handles for the task tools, ``tasks/get`` and ``tasks/cancel``."""

    identifier = IDENTIFIER

    def methods(self) -> list[MethodBinding]:
        """The extension's methods."""
        return [
            MethodBinding("tasks/get", TaskIdParams, self._get),
            MethodBinding("tasks/cancel", TaskIdParams, self._cancel),
        ]

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        """A task tool called by a client that declared the extension: a task handle at once."""
        if params.name not in TASK_TOOLS:
            return await call_next(ctx)
        caps = ctx.session.client_capabilities
        if IDENTIFIER not in ((caps.extensions or {}) if caps else {}):
            if params.name == "count_steps":
                return await call_next(ctx)
            raise MCPError(
                code=MISSING_CAPABILITY,
                message="Missing required client capability",
                data={"requiredCapabilities": {"extensions": {IDENTIFIER: {}}}},
            )
        job = Job(params.name, dict(params.arguments or {}))
        _jobs()[job.task_id] = job
        _save()
        return {"resultType": "task"} | {k: v for k, v in job.wire().items() if k not in ("result", "error")}

    async def _get(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        job = _job(params.taskId)
        job.advance()
        _save()
        return {"resultType": "complete"} | job.wire()

    async def _cancel(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        job = _job(params.taskId)
        if job.status in ("working", "input_required"):
            job.status, job.message, job.updated = "cancelled", "cancelled by the client", _now()
            _save()
        return {"resultType": "complete"}


def _job(task_id: str) -> Job:
    job = _jobs().get(task_id)
    if job is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"No task {task_id}")
    return job


def _jobs() -> dict[str, Job]:
    """The tasks (from the tasks file when there is one)."""
    path = os.environ.get("ELFTIA_TEST_TASKS_FILE")
    if path and Path(path).exists():
        JOBS.clear()
        JOBS.update({key: Job(**value) for key, value in json.loads(Path(path).read_text(encoding="utf-8")).items()})
    return JOBS


def _save() -> None:
    """Write the tasks to the tasks file (when there is one)."""
    path = os.environ.get("ELFTIA_TEST_TASKS_FILE")
    if path:
        Path(path).write_text(json.dumps({key: asdict(job) for key, job in JOBS.items()}), encoding="utf-8")


mcp = MCPServer("tasks", version="1.0.0", extensions=[Tasks()])


@mcp.tool(annotations=READ_ONLY)
def count_steps(steps: int = 3) -> str:
    """Count to ``steps`` (as a task: one step per poll; without the extension: at once)."""
    return f"counted {steps} steps"


@mcp.tool(annotations=READ_ONLY)
def wait_for_file(path: str) -> str:
    """Wait until ``path`` exists (only as a task)."""
    raise RuntimeError("only runs as a task")


@mcp.tool(annotations=READ_ONLY)
def broken_task() -> str:
    """A task that fails."""
    raise RuntimeError("only runs as a task")


@mcp.tool(annotations=READ_ONLY)
def tasks_seen() -> str:
    """Every task this server holds, ``{taskId: status}``, as JSON."""
    return json.dumps({job.task_id: job.status for job in _jobs().values()})


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
