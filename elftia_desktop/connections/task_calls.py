"""Task-augmented tool calls (the ``io.modelcontextprotocol/tasks`` extension), followed to their result.

Follows the extension's text (ext-tasks ``specification/draft/tasks.md``): the client declares the
extension in its per-request capabilities and the server alone decides, call by call, to answer a
``tools/call`` with a task handle (``resultType: "task"``: taskId, status, statusMessage, ttlMs,
pollIntervalMs). The SDK defers tasks but lets an extension claim a ``resultType``
(:data:`TASK_CLAIM`, registered on every session; with it the SDK also declares the extension on
each modern request). ``tasks/get`` and ``tasks/cancel`` go as plain requests through the session.

:class:`TaskCalls` polls ``tasks/get`` at the server's ``pollIntervalMs`` until the task ends; a
``completed`` task's inlined ``result`` is checked like any ``CallToolResult`` (the session's
output-schema validation), ``failed`` comes out as the JSON-RPC error it carries, ``cancelled``
as :class:`ToolCallCancelled`. Each state goes out as a ``TaskStatus`` event and is kept in
:class:`TaskBook` (so a window that reconnects to the pool host finds the tasks it runs). A caller
that cancels (Ctrl+C, ``cancel_call``) sends ``tasks/cancel``; a live UI call whose caller merely
went away (a closed dialog, a restarted window) keeps being followed here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Literal

import anyio
import mcp_types as types
from mcp.client.extension import ClaimContext, ResultClaim
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from elftia_desktop.connections.events import TERMINAL
from elftia_desktop.core.errors import ToolCallCancelled, ToolCallError

DEFAULT_POLL_SECONDS = 1.0
"""Between two ``tasks/get`` when the server suggests no ``pollIntervalMs``."""
MIN_POLL_SECONDS = 0.01
CANCEL_LIMIT = 10.0
"""Seconds a ``tasks/cancel`` may take while the caller is being cancelled."""

Sleep = Callable[[float], Awaitable[None]]
OnState = Callable[["TaskState"], None]


class TaskFields(types.Result):
    """What every answer about a task says of it: its id, status and timing."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskState(TaskFields):
    """A task as ``tasks/get`` answers it (``result`` once completed, ``error`` once failed)."""

    result_type: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskHandle(TaskFields):
    """A ``tools/call`` answered with a task (``resultType: "task"``, the extension's ``CreateTaskResult``)."""

    result_type: Literal["task"] = "task"

    def state(self) -> TaskState:
        """The handle as the task's first state."""
        return TaskState.model_validate(self.model_dump(by_alias=True) | {"resultType": "task"})


class TaskIdParams(types.RequestParams):
    """``tasks/get`` and ``tasks/cancel`` parameters (``taskId`` on the wire)."""

    task_id: str


class _GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    name_param: ClassVar[str | None] = "taskId"  # over Streamable HTTP the id goes in Mcp-Name too (the spec's MUST)
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams


class _CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    name_param: ClassVar[str | None] = "taskId"
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams


class _Ack(types.Result):
    result_type: str | None = None


async def get_task(session: ClientSession, task_id: str, timeout: float | None = None) -> TaskState:  # noqa: ASYNC109
    """``tasks/get``: the task's current state."""
    request = _GetTask(params=TaskIdParams(task_id=task_id))
    return await session.send_request(request, TaskState, request_read_timeout_seconds=timeout)


async def cancel_task(session: ClientSession, task_id: str) -> None:
    """``tasks/cancel`` (the server acknowledges; it may still finish the work)."""
    await session.send_request(_CancelTask(params=TaskIdParams(task_id=task_id)), _Ack)


async def follow(
    session: ClientSession,
    tool_name: str,
    handle: TaskHandle,
    on_state: OnState | None = None,
    sleep: Sleep = anyio.sleep,
    timeout: float | None = None,  # noqa: ASYNC109 - bounds each tasks/get
) -> types.CallToolResult:
    """Poll the task at its ``pollIntervalMs`` until it ends; its ``CallToolResult``, checked."""
    state = handle.state()
    while True:
        if on_state is not None:
            on_state(state)
        if state.status in TERMINAL:
            return await outcome(session, tool_name, state)
        await sleep(poll_seconds(state))
        state = await get_task(session, handle.task_id, timeout)


def poll_seconds(state: TaskState) -> float:
    """Seconds until the next ``tasks/get``: the server's ``pollIntervalMs`` (the default when absent)."""
    if state.poll_interval_ms is None or state.poll_interval_ms < 0:
        return DEFAULT_POLL_SECONDS
    return max(state.poll_interval_ms / 1000, MIN_POLL_SECONDS)


async def outcome(session: ClientSession, tool_name: str, state: TaskState) -> types.CallToolResult:
    """The final result of an ended task: ``completed`` validated as a ``CallToolResult``, else raised."""
    if state.status == "completed":
        if state.result is None:
            raise ToolCallError(f"{tool_name}: the task {state.task_id} completed without a result")
        result = types.CallToolResult.model_validate(state.result)
        if not result.is_error:
            await session.validate_tool_result(tool_name, result)
        return result
    if state.status == "cancelled":
        why = f" ({state.status_message})" if state.status_message else ""
        raise ToolCallCancelled(f"{tool_name}: the task {state.task_id} was cancelled{why}.")
    error = state.error or {}
    code = error.get("code")
    raise MCPError(
        code=code if isinstance(code, int) else types.INTERNAL_ERROR,
        message=str(error.get("message") or state.status_message or "the task failed"),
        data=error.get("data"),
    )


async def _resolve(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    """The SDK's transparent resolution of a claimed task: followed to its result without events."""
    return await follow(ctx.session, ctx.tool_name, handle, timeout=ctx.read_timeout_seconds)


TASK_CLAIM: ResultClaim[TaskHandle] = ResultClaim(result_type="task", model=TaskHandle, resolve=_resolve)
"""The ``resultType: "task"`` answer to ``tools/call``, claimed for the tasks extension."""
