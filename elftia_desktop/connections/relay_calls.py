"""Tool calls of the saved servers on the raw relay: ``ToolCalls.call``'s checks, at the cost of a few lookups.

A call goes on a stdio connection's :class:`~elftia_desktop.connections.relay.StdioRelay` only when
everything ``ToolCalls.call`` would check is plainly fine: the config file is unchanged since it
was read, the tool is not disabled, it is in the server's fresh tool list (held-back tools never
are), the connection is up, was used within ``HEALTH_CHECK_IDLE`` (else the pool pings it first)
and runs what the record says (trust fingerprint), and the session has written its era's stamp.
What can be worked out once per server (the fingerprint check, the relay) is kept in a ticket that
is valid while the record, the tool list and the connection are the very objects it was made
from: a save, a tool-list change, a trust change or a reconnect makes new ones. Anything else
returns None and the caller takes the SDK path, whose answer (or error) is then the same as ever.

Like ``ToolCalls.call``: ``null`` for an optional argument is omitted, the server's or the pool's
call timeout bounds it (and cancels it on the server), a ``tool:called`` event ends it (its
``caller``: the attached app current when the call started), and a
failure comes out as the pool's own error (``ConnectionPool.failure``). A 2026-07-28
``input_required`` answer is finished by the session's multi-round driver.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from elftia_desktop.connections.call_origin import caller
from elftia_desktop.connections.connection import ServerConnection
from elftia_desktop.connections.era_client import EraSession
from elftia_desktop.connections.events import ServiceEvents
from elftia_desktop.connections.pool import HEALTH_CHECK_IDLE, ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.relay import OnProgress, Outcome, RelayCall, StdioRelay
from elftia_desktop.connections.tool_cache import CachedTools
from elftia_desktop.connections.tool_calls import called_event
from elftia_desktop.core.argument_check import omit_null_optionals
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.trust import launch_of, needs_confirmation

log = logging.getLogger(__name__)

Answer = dict[str, Any] | ElftiaError
"""A relayed call's end: the server's result as it sent it (final, never ``input_required``), or the error."""
OnAnswer = Callable[[Answer], None]
EXIT_NOTICE = 1.0
"""Seconds a call failed by the server's output ending waits for the process's exit code (for the message)."""


@dataclass(frozen=True)
class _Ticket:
    """What one server's calls share while its record, tool list and connection stay the same objects."""

    record: McpServerRecord
    tools: CachedTools
    connection: ServerConnection
    relay: StdioRelay


class RelayedCall:
    """One call on the relay: it answers once through ``on_answer`` (from the reader's callback, or a task)."""

    __slots__ = (
        "_caller",
        "_calls",
        "_on_answer",
        "_raw",
        "_started",
        "_task",
        "arguments",
        "limit",
        "ticket",
        "tool_name",
    )

    def __init__(
        self, calls: RelayCalls, ticket: _Ticket, tool_name: str, arguments: dict[str, Any], limit: float
    ) -> None:
        self._calls = calls
        self.ticket = ticket
        self.tool_name = tool_name
        self.arguments = arguments
        self.limit = limit
        self._on_answer: OnAnswer | None = None
        self._raw: RelayCall | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = time.perf_counter()
        self._caller = caller()
        """The attached app the call is made for (its answer comes in another context)."""

    def send(self, on_answer: OnAnswer, on_progress: OnProgress | None) -> bool:
        """Write the call to the server; False (nothing sent) when the relay cannot take it now."""
        self._on_answer = on_answer
        self._raw = self.ticket.relay.call(
            self.tool_name, self.arguments, self._done, timeout=self.limit, on_progress=on_progress
        )
        return self._raw is not None

    def cancel(self) -> None:
        """Give the call up: the server is told, ``on_answer`` is never called, ``tool:called`` says cancelled."""
        if self._on_answer is None:
            return
        self._on_answer = None
        if self._raw is not None:
            self._raw.cancel()
        if self._task is not None:
            self._task.cancel()
        self._emit("cancelled")

    def _done(self, outcome: Outcome) -> None:
        result = outcome.get("result")
        if result is None:
            error = outcome["error"]
            self._later(self._failed(MCPError(error["code"], error["message"], error.get("data"))))
        elif result.get("resultType") == "input_required":
            self._later(self._finish(result))
        else:
            self._answer(result)

    def _answer(self, answer: Answer) -> None:
        on_answer, self._on_answer = self._on_answer, None
        if on_answer is None:
            return  # cancelled meanwhile
        if isinstance(answer, ElftiaError):
            self._emit("failed")
        else:
            self._emit("error" if answer.get("isError") else "ok")
        on_answer(answer)

    def _emit(self, outcome: str) -> None:
        event = called_event(self.ticket.record.id, self.tool_name, None, outcome, self._started, self._caller)
        self._calls.events.emit("tool:called", event)

    def _later(self, work: Any) -> None:
        self._task = asyncio.get_running_loop().create_task(work)

    async def _failed(self, exc: Exception) -> None:
        ticket = self.ticket
        process = ticket.connection.process
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED and process is not None:
            with anyio.move_on_after(EXIT_NOTICE):  # its output ended first: the exit code tells more
                await process.exited.wait()
        self._answer(await self._calls.pool.failure(ticket.record, ticket.connection, "call", None, exc))

    async def _finish(self, first: dict[str, Any]) -> None:
        """An ``input_required`` first round: the session's own driver takes the call to its final result."""
        session = self.ticket.connection.session
        try:
            if not isinstance(session, EraSession):
                raise MCPError(types.CONNECTION_CLOSED, "Connection closed")
            rounds = types.InputRequiredResult.model_validate(first, by_name=False)
            final = await session.finish_call(self.tool_name, self.arguments, rounds, self.limit)
        except ElftiaError as exc:
            self._answer(exc)
            return
        except Exception as exc:
            await self._failed(exc)
            return
        self._answer(final.model_dump(by_alias=True, mode="json", exclude_none=True))


class RelayCalls:
    """The saved servers' tool calls that can take the relay (see the module docstring)."""

    def __init__(self, records: ServerRecords, pool: ConnectionPool, events: ServiceEvents) -> None:
        self._records = records
        self.pool = pool
        self.events = events
        self._tickets: dict[str, _Ticket] = {}

    def start(
        self,
        server_id: str,
        tool_name: str,
        arguments: dict[str, Any],
        on_answer: OnAnswer,
        *,
        timeout: float | None = None,
        on_progress: OnProgress | None = None,
    ) -> RelayedCall | None:
        """Send the call on the relay; None (nothing sent, nothing emitted) when it must take the SDK path."""
        by_id = self._records.unchanged()
        record = by_id.get(server_id) if by_id is not None else None
        if record is None or tool_name in record.disabled_tools:
            return None
        entry = self.pool.entries.get(server_id)
        connection = entry.connection if entry is not None else None
        now = time.monotonic()
        if entry is None or connection is None or not connection.alive or now - entry.last_used >= HEALTH_CHECK_IDLE:
            return None
        ticket = self._ticket(record, connection)
        if ticket is None or tool_name not in ticket.tools.names:
            return None
        if None in arguments.values():  # null for an optional property: omitted
            arguments = omit_null_optionals(ticket.tools.defs[tool_name].input_schema, arguments)
        limit = timeout if timeout is not None else self.pool.timeouts(record).call
        call = RelayedCall(self, ticket, tool_name, arguments, limit)
        if not call.send(on_answer, on_progress):
            return None
        entry.last_used = now
        return call

    def _ticket(self, record: McpServerRecord, connection: ServerConnection) -> _Ticket | None:
        """The server's ticket, made anew when its record, tool list or connection changed; None: not relayable."""
        tools = self.pool.tools.fresh(record)
        if tools is None:
            return None
        ticket = self._tickets.get(record.id)
        if ticket is not None and ticket.record is record and ticket.tools is tools and ticket.connection is connection:
            return ticket
        self._tickets.pop(record.id, None)
        process = connection.process
        launch = launch_of(record)
        if process is None or connection.launch != launch or needs_confirmation(record, launch):
            return None  # not stdio, or edited (or its trust changed) since it connected: the pool handles that
        ticket = self._tickets[record.id] = _Ticket(record, tools, connection, StdioRelay.of(process))
        return ticket
