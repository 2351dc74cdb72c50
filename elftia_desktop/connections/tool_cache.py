"""The one home of the servers' tool lists: what was fetched, when, for which name, and when it goes stale.

An entry holds a server's tools as agents see them (:class:`MCPTool`, without MCP Apps'
app-only tools), as the server defined them (``types.Tool``: title, annotations, output schema)
and their names. It is reused for ``TOOL_CACHE_TTL`` seconds while the server keeps its name;
a new session, a lost connection, a disconnect, an edit of the server and the server's
``notifications/tools/list_changed`` drop it (:meth:`ToolCache.invalidate`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mcp_types as types

from elftia_desktop.connections import listing
from elftia_desktop.connections.events import ServiceEvents, ToolsChanged
from elftia_desktop.core.apps import tool_is_app_only
from elftia_desktop.core.models import McpServerRecord, MCPTool

TOOL_CACHE_TTL = 300.0
"""Seconds a server's tool list is reused."""


@dataclass(frozen=True)
class CachedTools:
    """One server's tools as fetched at ``fetched_at`` (``time.monotonic``) under the name ``key``."""

    tools: list[MCPTool]
    """The tools a model may be given (MCP Apps' app-only tools left out)."""
    defs: dict[str, types.Tool]
    """Every tool as the server defined it, by name (app-only ones too: an app may call them)."""
    names: frozenset[str]
    fetched_at: float
    key: str
    """The server's name when fetched: tool ids are built from it."""


class ToolCache:
    """Cached tool lists by server id."""

    def __init__(self, events: ServiceEvents, ttl: float = TOOL_CACHE_TTL) -> None:
        self._events = events
        self._ttl = ttl
        self._entries: dict[str, CachedTools] = {}

    def fresh(self, record: McpServerRecord) -> CachedTools | None:
        """The server's cached tools when younger than the TTL and fetched under its current name."""
        cached = self._entries.get(record.id)
        if cached is None or cached.key != record.name or time.monotonic() - cached.fetched_at > self._ttl:
            return None
        return cached

    def last(self, server_id: str) -> CachedTools | None:
        """What was fetched last for the server, stale or not."""
        return self._entries.get(server_id)

    def put(self, record: McpServerRecord, tools: list[types.Tool]) -> CachedTools:
        """Remember the tools just listed by the server."""
        converted = [listing.to_mcp_tool(record, tool) for tool in tools if not tool_is_app_only(tool)]
        cached = CachedTools(
            tools=converted,
            defs={tool.name: tool for tool in tools},
            names=frozenset(t.name for t in tools),
            fetched_at=time.monotonic(),
            key=record.name,
        )
        self._entries[record.id] = cached
        return cached

    def invalidate(self, server_id: str, emit: bool = False) -> None:
        """Drop the server's tools (all of them: lists, definitions, names); ``emit``: send ``ToolsChanged``."""
        self._entries.pop(server_id, None)
        if emit:
            self._events.emit(ToolsChanged(server_id))
