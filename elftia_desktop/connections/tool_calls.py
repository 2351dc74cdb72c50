"""Tool calls of the saved servers: checked against the tool list, bounded in time, reported as events.

The arguments go out as given, except that ``null`` for an optional property whose schema does not
admit it is left out (``core.argument_check.omit_null_optionals``: "null" means "omitted").

A call with a ``call_id`` runs as a live call (:class:`LiveCalls`): its progress goes out as
``ToolProgress`` events and it can be cancelled. A ``ToolCalled`` event ends every call; its
``caller`` names the attached app that caused it (``call_origin.py``), None for this process's own.
A call the server answers with a task (the tasks extension) is followed to its result by
:class:`TaskCalls` (``task_runner.py``) and ends the same way.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

from elftia_desktop.connections.call_origin import caller
from elftia_desktop.connections.events import CallOutcome, ServiceEvents, ToolCalled
from elftia_desktop.connections.live_calls import LiveCalls
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.server_tools import ServerTools
from elftia_desktop.connections.task_calls import TaskHandle
from elftia_desktop.connections.task_runner import TaskCalls, TaskStarted, hands_over
from elftia_desktop.core.argument_check import omit_null_optionals
from elftia_desktop.core.errors import ToolCallCancelled
from elftia_desktop.core.models import McpServerRecord


class ToolCalls:
    """Calls one tool of a saved server, never replayed."""

    def __init__(
        self,
        records: ServerRecords,
        pool: ConnectionPool,
        tools: ServerTools,
        live: LiveCalls,
        events: ServiceEvents,
        tasks: TaskCalls,
    ) -> None:
        self._records = records
        self._pool = pool
        self._tools = tools
        self.live = live
        self._events = events
        self.tasks = tasks
        """The calls answered with a task (the tasks extension), kept while they run and after."""

    async def call(
        self,
        server_id: str,
        tool_name: str,
        args: dict[str, Any],
        call_id: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the API's name; it bounds the call on the server too
        progress_callback: ProgressFnT | None = None,
    ) -> types.CallToolResult:
        """Call the tool; the SDK's result as the server sent it. See ``McpService.call_tool``."""
        record = await self._records.get(server_id)
        tool = await self._tools.check_callable(record, tool_name)
        args = omit_null_optionals(tool.input_schema, args)  # null for an optional property: omitted
        call_timeout = timeout if timeout is not None else self._pool.timeouts(record).call
        progress = _both(
            self.live.progress_callback(server_id, tool_name, call_id) if call_id else None, progress_callback
        )
        started = time.perf_counter()
        outcome: CallOutcome = "failed"
        try:
            call = self._call_and_follow(record, tool_name, args, call_id, call_timeout, progress)
            async with self._pool.callbacks.in_flight.call(server_id):  # its questions are asked of its app
                result = await (self.live.run(call_id, tool_name, call, server_name=record.name) if call_id else call)
            outcome = "error" if result.is_error else "ok"
            return result
        except (ToolCallCancelled, asyncio.CancelledError):  # by cancel_call, or the caller's task cancelled
            outcome = "cancelled"
            raise
        except TaskStarted:
            outcome = "task"
            raise
        finally:
            self._events.emit(called_event(server_id, tool_name, call_id, outcome, started, caller()))

    async def _call_and_follow(
        self,
        record: McpServerRecord,
        tool_name: str,
        args: dict[str, Any],
        call_id: str | None,
        call_timeout: float,
        progress: ProgressFnT | None,
    ) -> types.CallToolResult:
        """``tools/call``; a task handle for an answer is followed to the task's result (``TaskCalls``)."""
        first = await self._pool.use(
            record,
            "call",
            None,
            lambda session: session.call_tool(
                tool_name, args, read_timeout_seconds=call_timeout, progress_callback=progress, allow_claimed=True
            ),
        )
        if not isinstance(first, TaskHandle):
            return cast(types.CallToolResult, first)
        if hands_over():  # the caller (the gateway's app) follows the task itself
            self.tasks.handed_over(record, tool_name, first)
            raise TaskStarted(record.id, first)
        # A live call (with a call id) whose caller went away keeps its task; one cancelled on purpose stops it.
        detach = (lambda: not self.live.cancelling(call_id)) if call_id else (lambda: False)
        return await self.tasks.follow(record, tool_name, first, call_id, detach)


def called_event(
    server_id: str, tool_name: str, call_id: str | None, outcome: CallOutcome, started: float, by: str | None
) -> ToolCalled:
    """The ``ToolCalled`` event of a call begun at ``started`` (``perf_counter``) and ended now, made for ``by``."""
    duration_ms = (time.perf_counter() - started) * 1000
    return ToolCalled(server_id, tool_name, outcome, duration_ms, time.time(), call_id, by)


def _both(first: ProgressFnT | None, second: ProgressFnT | None) -> ProgressFnT | None:
    """One progress callback that feeds both (either may be None)."""
    if first is None or second is None:
        return first or second

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        """Pass the progress to both callbacks."""
        await first(progress, total, message)
        await second(progress, total, message)

    return on_progress
