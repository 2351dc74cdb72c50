"""The servers' tools: listing them (through the :class:`ToolCache`), their definitions, whether one may be called."""

from __future__ import annotations

import asyncio

import mcp_types as types

from elftia_desktop.connections import listing
from elftia_desktop.connections.pool import ConnectionPool
from elftia_desktop.connections.records import ServerRecords
from elftia_desktop.connections.tool_cache import CachedTools, ToolCache
from elftia_desktop.connections.tool_guard import ToolGuard
from elftia_desktop.core.errors import ElftiaError, ToolCallError
from elftia_desktop.core.models import McpServerRecord, MCPTool, McpToolListing
from elftia_desktop.core.text_rules import quoted


def _enabled(record: McpServerRecord, tools: list[MCPTool]) -> list[MCPTool]:
    disabled = record.disabled_tools
    return [t for t in tools if t.name not in disabled] if disabled else list(tools)


class ServerTools:
    """Tool lists of the saved servers, fetched on demand and reused while fresh."""

    def __init__(
        self, records: ServerRecords, pool: ConnectionPool, cache: ToolCache, guard: ToolGuard | None = None
    ) -> None:
        self._records = records
        self._pool = pool
        self.cache = cache
        self.guard = guard
        """Tool pinning: a listing's changed or new tools are held back before they reach the cache."""

    async def fetch(self, record: McpServerRecord) -> CachedTools:
        """List the server's tools now (connecting when needed), hold back changed ones, and cache the rest."""
        tools = await self._pool.use(record, "list", self._pool.timeouts(record).list_, listing.list_tools)
        if self.guard is not None:
            await self._take_outside_accepts(record.id)
            entry = self._pool.entries.get(record.id)
            init = entry.connection.init_result if entry is not None and entry.connection is not None else None
            tools = await self.guard.admit(record, tools, init.instructions if init is not None else None)
        return self.cache.put(record, tools)

    async def _take_outside_accepts(self, server_id: str) -> None:
        """Tools of this server that another process accepted (``elftia-mcp review``) are let through here too."""
        guard = self.guard
        if guard is None or not guard.held.get(server_id):
            return
        released = await asyncio.to_thread(guard.outside_accepts)  # reads the pins file: off the loop
        if server_id in released:
            guard.release([server_id])

    async def current(self, record: McpServerRecord) -> CachedTools:
        """The server's tools: the cached ones while fresh, else fetched now."""
        return self.cache.fresh(record) or await self.fetch(record)

    async def enabled(self, record: McpServerRecord) -> list[MCPTool]:
        """The server's tools minus the ones the user disabled."""
        return _enabled(record, (await self.current(record)).tools)

    async def of_server(self, server_id: str) -> list[MCPTool]:
        """The enabled tools of one saved server."""
        return await self.enabled(await self._records.get(server_id))

    async def defs(self, server_id: str) -> list[types.Tool]:
        """The enabled tools with everything the server sent (title, annotations, output schema, ``_meta``).

        MCP Apps' app-only tools are included: this is what an app (through the gateway) sees.
        """
        record = await self._records.get(server_id)
        cached = await self.current(record)
        disabled = record.disabled_tools
        return [tool for name, tool in cached.defs.items() if name not in disabled]

    async def of_active_servers(self) -> McpToolListing:
        """Tools of all active servers, fetched concurrently; a failing server is named in ``errors``."""
        result = McpToolListing()
        pending: list[McpServerRecord] = []
        for record in (await self._records.current()).values():
            if not record.is_active:
                continue
            cached = self.cache.fresh(record)
            if cached is None:
                pending.append(record)
            else:
                result.tools.extend(_enabled(record, cached.tools))
        fetched = await asyncio.gather(*(self.enabled(r) for r in pending), return_exceptions=True)
        for record, outcome in zip(pending, fetched, strict=True):
            if isinstance(outcome, ElftiaError):
                result.add_failure(record.id, outcome)
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                result.tools.extend(outcome)
        return result

    async def check_callable(self, record: McpServerRecord, tool_name: str) -> types.Tool:
        """The tool's definition; refuses a disabled or unknown tool (refetches a stale list or one without it)."""
        if tool_name in record.disabled_tools:
            raise ToolCallError(f"The tool {quoted(tool_name)} of {record.name} is disabled.")
        cached = self.cache.fresh(record)
        if cached is None or tool_name not in cached.names:
            cached = await self.fetch(record)
            if tool_name not in cached.names:
                if self.guard is not None:
                    self.guard.check_callable(record, tool_name)
                known = ", ".join(sorted(cached.names)) or "none"
                raise ToolCallError(f"{record.name} has no tool {quoted(tool_name)} (its tools: {known}).")
        return cached.defs[tool_name]
