"""Tool listings that never start a server: only servers already connected are asked.

The window shows counts and sizes (the Agents page) without connecting anything, so the
"Connect a server when it is first used" setting holds: testing one server does not start the others.
A server not connected yet is named in the listing's ``errors``.
"""

from __future__ import annotations

from typing import Protocol

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import Agent, ConnectionState, McpServerRecord, MCPTool, McpToolListing
from elftia_desktop.tools.loader import ToolLister, fetch_agent_server_tools, select_tools


class StatefulToolLister(ToolLister, Protocol):
    """A ``ToolLister`` that also tells each server's live connection state (``McpService``)."""

    def connection_state(self, server_id: str) -> ConnectionState:
        """The live state of a server's connection."""
        ...


class NotConnectedYet(ElftiaError):
    """The server is not connected, and listing its tools would start it."""


class ConnectedTools:
    """A ``ToolLister`` over the servers already connected; it never starts one."""

    def __init__(self, service: StatefulToolLister) -> None:
        self._service = service

    async def list_servers(self) -> list[McpServerRecord]:
        """Every configured server."""
        return await self._service.list_servers()

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The enabled tools of a connected server; ``NotConnectedYet`` for any other."""
        if self._service.connection_state(server_id) is not ConnectionState.CONNECTED:
            names = {r.id: r.name for r in await self.list_servers()}
            raise NotConnectedYet(
                "not connected yet (it connects when first used)", server_name=names.get(server_id, server_id)
            )
        return await self._service.list_server_tools(server_id)

    async def list_all_active_server_tools(self) -> McpToolListing:
        """The tools of every active, connected server; the others are named in ``errors``."""
        result = McpToolListing()
        for record in await self.list_servers():
            if not record.is_active:
                continue
            try:
                result.tools.extend(await self.list_server_tools(record.id))
            except ElftiaError as exc:
                result.add_failure(record.id, exc)
        return result


async def connected_agent_tools(service: StatefulToolLister, agent: Agent) -> McpToolListing:
    """The tools ``agent`` gets from the servers connected now (its own tool selection applied).

    Servers not connected are named in ``errors``; that is a normal state here, so nothing is logged.
    """
    listing = await fetch_agent_server_tools(ConnectedTools(service), agent)
    listing.tools = select_tools(agent, listing.tools)
    return listing
