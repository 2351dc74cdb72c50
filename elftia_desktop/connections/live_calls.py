"""Tool calls in flight by call id: their progress goes out as events, and they can be cancelled.

A call started with a ``callId`` runs in its own task. :meth:`LiveCalls.cancel` cancels that
task; the SDK then sends the server ``notifications/cancelled`` for the request (its default
for an abandoned request) and the caller gets :class:`~elftia_desktop.core.errors.ToolCallCancelled`
instead of a bare ``CancelledError``. Progress notifications of the request are emitted as
``ToolProgress`` events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from mcp.shared.dispatcher import ProgressFnT

from elftia_desktop.connections.events import ServiceEvents, ToolProgress
from elftia_desktop.core.errors import ToolCallCancelled, ToolCallError
from elftia_desktop.core.text_rules import quoted

T = TypeVar("T")


class LiveCalls:
    """The running calls that have a call id."""

    def __init__(self, events: ServiceEvents) -> None:
        self._events = events
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._cancelled: set[str] = set()

    def progress_callback(self, server_id: str, tool_name: str, call_id: str) -> ProgressFnT:
        """A callback for the SDK that emits each progress notification as ``ToolProgress``."""

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            """Emit one progress notification."""
            self._events.emit(ToolProgress(server_id, tool_name, call_id, progress, total, message))

        return on_progress

    async def run(self, call_id: str, label: str, work: Coroutine[Any, Any, T], *, server_name: str | None = None) -> T:
        """Run ``work`` as the call ``call_id`` (``label``: the tool, of ``server_name``); :meth:`cancel` raises
        ``ToolCallCancelled``."""
        if call_id in self._tasks:
            work.close()
            raise ToolCallError(
                f"{label}: a call with id {quoted(call_id)} is already running; use a new call id.",
                server_name=server_name,
            )
        task: asyncio.Task[T] = asyncio.get_running_loop().create_task(work)
        self._tasks[call_id] = task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if call_id in self._cancelled and (current is None or not current.cancelling()):
                raise ToolCallCancelled(
                    f"{label}: cancelled; the server was told to stop.", server_name=server_name
                ) from None
            raise
        finally:
            self._tasks.pop(call_id, None)
            self._cancelled.discard(call_id)

    def cancelling(self, call_id: str) -> bool:
        """Whether :meth:`cancel` was asked for the running call ``call_id`` (its caller did not just go away)."""
        return call_id in self._cancelled

    def cancel(self, call_id: str) -> bool:
        """Cancel the running call ``call_id``; False when no such call runs (sync)."""
        task = self._tasks.get(call_id)
        if task is None or task.done():
            return False
        self._cancelled.add(call_id)
        task.cancel()
        return True
