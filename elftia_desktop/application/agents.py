"""Agent actions: resolving tool ids (``mcp__SERVER__TOOL``) against the live servers for a tool selection.

The agents themselves are plain records in the agent store (``core.agent_store``); what needs
the application is checking a selection against the tools the servers really offer, on one
service for all servers, with sign-in in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftia_desktop.application import messages
from elftia_desktop.core.errors import ConfigError
from elftia_desktop.core.models import McpServerRecord, MCPTool

if TYPE_CHECKING:
    from elftia_desktop.connections.service import McpService


class UnknownToolId(ConfigError):
    """A tool id names no server (``server_name`` None), or no tool of its server; ``known`` says what would do."""

    def __init__(self, tool_id: str, server_name: str | None, known: list[str]) -> None:
        super().__init__(messages.unknown_tool_id(tool_id, server_name, known))
        self.tool_id = tool_id
        self.server_name = server_name
        self.known = known


def tool_id_prefix(record: McpServerRecord) -> str:
    """What the ids of a server's tools start with (``mcp__files__``)."""
    from elftia_desktop.connections.listing import tool_id

    return tool_id(record.name, "")


def owners_of(records: list[McpServerRecord], tool_ids: list[str]) -> dict[str, McpServerRecord]:
    """The server each tool id belongs to (the longest matching name wins); ``UnknownToolId`` otherwise."""
    owners: dict[str, McpServerRecord] = {}
    for wanted in tool_ids:
        candidates = sorted((r for r in records if wanted.startswith(tool_id_prefix(r))), key=lambda r: -len(r.name))
        if not candidates:
            raise UnknownToolId(wanted, None, [tool_id_prefix(r) + "…" for r in records])
        owners[wanted] = candidates[0]
    return owners


async def live_tools(mcp: McpService, records: list[McpServerRecord]) -> dict[str, list[MCPTool]]:
    """The enabled tools of each server by id, fetched now, one after the other, signing in where one asks.

    Raises the first failure (``ServerConnectionError`` when a server cannot be reached).
    """

    async def one(server_id: str) -> list[MCPTool]:
        """The tools of one server, signed in where it asks."""
        return await mcp.signed_in(server_id, lambda: mcp.list_server_tools(server_id))

    unique = {record.id: record for record in records}
    return {server_id: await one(server_id) for server_id in unique}


def tool_selection(owners: dict[str, McpServerRecord], listed: dict[str, list[MCPTool]]) -> dict[str, list[str]]:
    """``{server id: [tool name]}`` of the tool ids in ``owners``; ``UnknownToolId`` for one its server lacks."""
    selection: dict[str, list[str]] = {}
    for wanted, record in owners.items():
        tool = next((t for t in listed[record.id] if t.id == wanted), None)
        if tool is None:
            raise UnknownToolId(wanted, record.name, [t.id for t in listed[record.id]])
        selection.setdefault(record.id, []).append(tool.name)
    return selection
