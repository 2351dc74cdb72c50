"""How the pool follows a call's task (:class:`TaskCalls`): polled in its own asyncio task, cancelled upstream.

The call that got a task handle waits for the poll. When that call is cancelled on purpose
(``cancel_call``, a command's Ctrl+C, a call without a call id whose caller went away) the server
is sent ``tasks/cancel``; a live call (with a call id) whose caller merely went away (a closed Try
dialog) leaves the task followed here until it ends. When the pool host closes (a window that
quits or restarts) no task is cancelled: the book keeps them, and :meth:`TaskCalls.resume` (the
next host, when asked for its tasks) follows the unfinished ones again by their ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from elftia_desktop.connections.events import ServiceEvents
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.task_book import TaskBook, TaskEntry
from elftia_desktop.connections.task_calls import (
    CANCEL_LIMIT,
    Sleep,
    TaskHandle,
    TaskState,
    cancel_task,
    follow,
    get_task,
)
from elftia_desktop.connections.tasks import await_cancelled, caller_cancelled
from elftia_desktop.core.errors import ElftiaError, ToolCallCancelled, ToolCallError
from elftia_desktop.core.models import McpServerRecord

log = logging.getLogger(__name__)


class TaskCalls:
    """Follows the tasks of tool calls through the pool and cancels them upstream."""

    def __init__(
        self, pool: ConnectionPool, events: ServiceEvents, book_path: Path | None = None, sleep: Sleep = anyio.sleep
    ) -> None:
        self._pool = pool
        self.book = TaskBook(events, book_path)
        self._sleep = sleep
        self._polls: dict[tuple[str, str], asyncio.Task[types.CallToolResult]] = {}
        self._closing = False

    def close(self) -> None:
        """The pool closes (its host stops): polling stops, every task stays running upstream and in the book."""
        self._closing = True
        for poll in list(self._polls.values()):
            poll.cancel()

    async def follow(
        self,
        record: McpServerRecord,
        tool_name: str,
        handle: TaskHandle,
        call_id: str | None,
        detach: Callable[[], bool],
    ) -> types.CallToolResult:
        """Follow the call's task to its result; when the call is cancelled, ``tasks/cancel`` unless
        ``detach()`` says the task goes on without its caller."""
        entry = self.book.add(record, tool_name, handle.task_id, call_id)
        poll = self._start(record, entry, handle)
        try:
            return await asyncio.shield(poll)
        except asyncio.CancelledError:
            if not caller_cancelled() and self._closing:
                raise ToolCallError(
                    f"{tool_name}: the pool closed while its task {handle.task_id} ran; the task goes on "
                    "and the next pool follows it",
                    server_name=record.name,
                ) from None
            if not caller_cancelled():  # the poll was stopped: the task was cancelled by its id
                raise ToolCallCancelled(
                    f"{tool_name}: the task {handle.task_id} was cancelled.", server_name=record.name
                ) from None
            if not self._closing and not detach():
                try:
                    await asyncio.shield(self._cancel(record, entry, poll))
                except Exception:  # the caller is cancelled either way; the server may not answer
                    log.warning("tasks/cancel of %s failed", handle.task_id, exc_info=True)
            else:
                poll.add_done_callback(_drop_outcome)  # followed on without its caller
            raise

    async def cancel(self, record: McpServerRecord, task_id: str) -> bool:
        """Cancel a task this process follows (``tasks/cancel``); False when it is unknown or ended."""
        entry = self.book.get(record.id, task_id)
        poll = self._polls.get((record.id, task_id))
        if entry is None or entry.ended or poll is None:
            return False
        await self._cancel(record, entry, poll)
        return True

    def handed_over(self, record: McpServerRecord, tool_name: str, handle: TaskHandle) -> None:
        """Keep a task its caller follows itself (an app behind the gateway): in the book, not polled here."""
        self.book.update(self.book.add(record, tool_name, handle.task_id, None), handle.state())

    async def get(self, record: McpServerRecord, task_id: str) -> TaskState:
        """``tasks/get`` for a caller that follows the task itself; the book's entry is updated with it."""
        state = await self._pool.use(record, "call", None, lambda session: get_task(session, task_id))
        entry = self.book.get(record.id, task_id)
        if entry is not None:
            self.book.update(entry, state)
        return state

    async def cancel_upstream(self, record: McpServerRecord, task_id: str) -> None:
        """``tasks/cancel`` for a caller that follows the task itself (or :meth:`cancel` when it is polled here)."""
        if await self.cancel(record, task_id):
            return
        await self._pool.use(record, "call", None, lambda session: cancel_task(session, task_id))
        entry = self.book.get(record.id, task_id)
        if entry is not None and not entry.ended:
            self.book.update(
                entry, TaskState(task_id=task_id, status="cancelled", status_message="cancelled by its app")
            )

    async def resume(self, records: ServerRecords) -> int:
        """Follow again every unfinished task of the book that no poll follows (saved by an earlier pool
        host); how many. A task whose server is gone from the config is recorded failed."""
        resumed = 0
        for entry in self.book.entries():
            if entry.ended or (entry.server_id, entry.task_id) in self._polls:
                continue
            try:
                record = await records.get(entry.server_id)
            except ElftiaError as exc:
                self.book.update(entry, TaskState(task_id=entry.task_id, status="failed", status_message=str(exc)))
                continue
            handle = TaskHandle(
                task_id=entry.task_id,
                status=entry.status,
                status_message=entry.status_message,
                poll_interval_ms=entry.poll_interval_ms,
            )
            self._start(record, entry, handle).add_done_callback(_drop_outcome)
            resumed += 1
        return resumed

    def _start(
        self, record: McpServerRecord, entry: TaskEntry, handle: TaskHandle
    ) -> asyncio.Task[types.CallToolResult]:
        """The poll of a task, in its own asyncio task."""
        key = (record.id, handle.task_id)
        poll = asyncio.get_running_loop().create_task(self._poll(record, entry, handle))
        self._polls[key] = poll
        poll.add_done_callback(lambda _: self._polls.pop(key, None))
        return poll

    async def _poll(self, record: McpServerRecord, entry: TaskEntry, handle: TaskHandle) -> types.CallToolResult:
        """Poll through the pool (failures translated like a call's)."""
        try:
            return await self._pool.use(
                record,
                "call",
                None,
                lambda session: follow(
                    session, entry.tool_name, handle, lambda s: self.book.update(entry, s), self._sleep
                ),
            )
        except ElftiaError as exc:
            if not entry.ended and not self._closing:
                self.book.update(entry, TaskState(task_id=entry.task_id, status="failed", status_message=str(exc)))
            raise

    async def _cancel(self, record: McpServerRecord, entry: TaskEntry, poll: asyncio.Task[Any]) -> None:
        """``tasks/cancel`` upstream, then stop polling and record the task cancelled."""
        try:
            with anyio.fail_after(CANCEL_LIMIT):
                await self._pool.use(record, "call", None, lambda session: cancel_task(session, entry.task_id))
        finally:
            poll.cancel()
            await await_cancelled(poll)
            if not entry.ended:
                state = TaskState(task_id=entry.task_id, status="cancelled", status_message="cancelled by Elftia")
                self.book.update(entry, state)


def _drop_outcome(poll: asyncio.Task[Any]) -> None:
    """The outcome of a task followed without its caller: in the book already; a failure is not raised again."""
    if not poll.cancelled() and poll.exception() is not None:
        log.info("a task followed without its caller ended: %s", poll.exception())


_hand_over: contextvars.ContextVar[bool] = contextvars.ContextVar("hand_over_tasks", default=False)


class TaskStarted(Exception):
    """A call made within :func:`handing_over` became a task: the handle, for the caller to follow itself."""

    def __init__(self, server_id: str, handle: TaskHandle) -> None:
        super().__init__(f"the call became the task {handle.task_id}")
        self.server_id = server_id
        self.handle = handle


@contextlib.contextmanager
def handing_over() -> Iterator[None]:
    """Within the block, a call answered with a task raises :class:`TaskStarted` instead of
    being followed here (the gateway hands the task to an app that follows it with ``tasks/get``)."""
    token = _hand_over.set(True)
    try:
        yield
    finally:
        _hand_over.reset(token)


def hands_over() -> bool:
    """Whether the running call is within :func:`handing_over`."""
    return _hand_over.get()
