"""Tasks forwarded both ways: an app behind the gateway gets a server's task handle and follows it through us.

The gateway declares ``io.modelcontextprotocol/tasks``. A ``tools/call`` from an app that declared
the extension on its request runs within ``handing_over`` (:class:`TaskHandOver`, a middleware):
when the server answers with a task, the app gets the handle under an id of ours (``resultType:
"task"``; ids are mapped per server, so two servers' equal ids never meet and an app cannot name
another server's task), and its
``tasks/get`` and ``tasks/cancel`` go to that server with the server's id. The pool's book keeps
the task (the window's Activity shows it). An app that did not declare the extension gets the
final result, as the pool follows the task itself.
"""

from __future__ import annotations

import uuid
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elftia_desktop.connections.service import McpService
from elftia_desktop.connections.task_calls import TaskIdParams
from elftia_desktop.connections.task_runner import TaskStarted, handing_over
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.extensions import TASKS_EXTENSION

MAX_MAPPED = 10_000
"""Task ids kept for the apps (the oldest are forgotten first)."""


def app_declared_tasks(ctx: Any) -> bool:
    """Whether the request's client declared the tasks extension on a 2026-07-28 request (so it may be
    answered with a task; ``resultType`` is that revision's)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    caps = ctx.session.client_capabilities if ctx.session is not None else None
    return bool(caps is not None and caps.extensions and TASKS_EXTENSION in caps.extensions)


class ForwardedTasks:
    """The tasks handed to the gateway's apps: our ids to (server, the server's task id)."""

    def __init__(self, service: McpService) -> None:
        self._service = service
        self._ids: dict[str, tuple[str, str]] = {}

    def for_app(self, started: TaskStarted) -> dict[str, Any]:
        """The ``CreateTaskResult`` the app gets: the server's handle under an id of ours."""
        ours = uuid.uuid4().hex
        self._ids[ours] = (started.server_id, started.handle.task_id)
        while len(self._ids) > MAX_MAPPED:
            del self._ids[next(iter(self._ids))]
        wire = started.handle.model_dump(by_alias=True, exclude_none=True, mode="json")
        return wire | {"resultType": "task", "taskId": ours}

    async def get(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        """``tasks/get``: the server's answer, under our id."""
        server_id, task_id = self._route(params.task_id)
        try:
            state = await self._service.calls.tasks.get(await self._service.records.get(server_id), task_id)
        except ElftiaError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from exc
        wire = state.model_dump(by_alias=True, exclude_none=True, mode="json")
        return wire | {"resultType": "complete", "taskId": params.task_id}

    async def cancel(self, ctx: Any, params: TaskIdParams) -> dict[str, Any]:
        """``tasks/cancel``: passed to the server (an empty acknowledgement)."""
        server_id, task_id = self._route(params.task_id)
        try:
            await self._service.calls.tasks.cancel_upstream(await self._service.records.get(server_id), task_id)
        except ElftiaError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from exc
        return {"resultType": "complete"}

    def _route(self, ours: str) -> tuple[str, str]:
        """The server and its task id behind one of our ids; invalid params when we handed out no such id."""
        found = self._ids.get(ours)
        if found is None:
            raise MCPError(types.INVALID_PARAMS, f"No task {ours} (not one this gateway handed out)")
        return found


class TaskHandOver:
    """Middleware: the ``tools/call`` of an app that declared the extension runs within ``handing_over``;
    a call that became a task answers with the app's handle."""

    def __init__(self, tasks: ForwardedTasks) -> None:
        self._tasks = tasks

    async def __call__(self, ctx: Any, call_next: CallNext) -> HandlerResult:
        """Run the request; a task it started becomes the answer."""
        if ctx.method != "tools/call" or not app_declared_tasks(ctx):
            return await call_next(ctx)
        try:
            with handing_over():
                return await call_next(ctx)
        except TaskStarted as started:
            return self._tasks.for_app(started)
