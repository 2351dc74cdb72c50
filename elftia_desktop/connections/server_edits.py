"""What an edit of the saved servers means for their connections: connect, reconnect, disconnect, tell.

The edits themselves (through the catalog) are the application layer's (``application/servers.py``);
it calls these around them. Nothing here raises: a server that does not connect keeps its edit,
and the result says why it did not connect.
"""

from __future__ import annotations

import asyncio

from elftia_desktop.connections.events import ServersChanged, ServiceEvents
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.tool_cache import ToolCache
from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.trust import launch_of, needs_confirmation


def _relaunch(before: McpServerRecord, after: McpServerRecord) -> bool:
    """Whether what the server runs, where it connects, or whether it may run, changed."""
    return (
        before.type != after.type
        or before.config != after.config
        or launch_of(before) != launch_of(after)
        or before.is_active != after.is_active
        or before.is_trusted != after.is_trusted
    )


class ServerEdits:
    """Connections after add / update / remove; ``ServersChanged`` after each."""

    def __init__(self, records: ServerRecords, pool: ConnectionPool, tools: ToolCache, events: ServiceEvents) -> None:
        self._records = records
        self._pool = pool
        self._tools = tools
        self._events = events

    def changed(self) -> None:
        """Tell subscribers the server list changed (``ServersChanged``)."""
        self._events.emit(ServersChanged())

    async def connect_quietly(self, record: McpServerRecord) -> str | None:
        """Connect an active, trusted server; returns why it failed, without its name (never raises)."""
        if not record.is_active or needs_confirmation(record):
            return None
        try:
            await self._pool.ensure(record)
        except ElftiaError as exc:
            return exc.reason
        return None

    async def connect_active(self) -> dict[str, str]:
        """Connect every active, trusted server at once; ``{server id: why it failed}``."""
        records = list((await self._records.current()).values())
        problems = await asyncio.gather(*(self.connect_quietly(r) for r in records))
        return {r.id: p for r, p in zip(records, problems, strict=True) if p}

    async def added(self, record: McpServerRecord, *, connect: bool = True) -> str | None:
        """A server was saved: connect it when active and ``connect``; why it did not connect."""
        self.changed()
        return await self.connect_quietly(record) if connect else None

    async def updated(self, before: McpServerRecord, after: McpServerRecord, *, connect: bool = True) -> str | None:
        """A server was changed: reconnect when what it runs or where it connects changed; why it did not connect.

        With ``connect=False`` a changed server is only disconnected (the caller connects it when it wants).
        """
        self.changed()
        if _relaunch(before, after):
            await self._pool.disconnect(after.id)
            return await self.connect_quietly(after) if connect else None
        if before.name != after.name or before.disabled_tools != after.disabled_tools:
            self._tools.invalidate(after.id, emit=True)
        return None

    async def removing(self, server_id: str) -> None:
        """A server is about to be removed: stop it first."""
        await self._pool.disconnect(server_id)

    def removed(self, server_id: str) -> None:
        """A server was removed: forget its connection entry and tools."""
        self._pool.entries.pop(server_id, None)
        self._tools.invalidate(server_id)
        self.changed()
