"""The original ``ToolsLoader``: which MCP tools an agent gets, converted for its provider.

``fetch_mcp_tools(service, agent)`` follows the original rules: no agent or mode ``disabled`` ->
no tools; ``auto`` -> the tools of every active server; ``manual`` -> the tools of each selected
server. A failing server is reported in the listing's ``errors``, never fatal. Per-tool disable
on the server and the agent's own tool selection both apply. ``setup_mcp_tools`` converts them
for ``api_format`` (``openai`` | ``anthropic`` | ``google``) and returns
``{tools, mcpTools, nameMap, notes, errors}``, or None when there is no tool.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypedDict

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import Agent, McpMode, McpServerRecord, MCPTool, McpToolListing
from elftia_desktop.tools.convert import Conversion, ToolInput
from elftia_desktop.tools.formats.anthropic import convert_mcp_tools_to_anthropic
from elftia_desktop.tools.formats.gemini import convert_mcp_tools_to_gemini
from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai
from elftia_desktop.tools.names import NameMap
from elftia_desktop.tools.notes import Note

logger = logging.getLogger(__name__)

ApiFormat = Literal["openai", "anthropic", "google"]
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "gemini-json")
_API_FORMATS = {"openai": "openai", "anthropic": "anthropic", "google": "gemini"}


class ToolLister(Protocol):
    """The part of ``McpService`` the loader uses."""

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The enabled tools of one server."""
        ...

    async def list_all_active_server_tools(self) -> McpToolListing:
        """The tools of every active server, and the servers that failed."""
        ...

    async def list_servers(self) -> list[McpServerRecord]:
        """Every configured server."""
        ...


class McpToolsSetup(TypedDict):
    """What :func:`setup_mcp_tools` returns."""

    tools: list[dict[str, Any]]
    mcpTools: list[MCPTool]
    nameMap: NameMap
    notes: list[Note]
    errors: dict[str, str]
    """Server id -> why its tools are missing."""


def convert_tools(tools: Sequence[ToolInput], fmt: str, *, strict: bool = False) -> Conversion:
    """Convert ``tools`` to one of :data:`FORMATS` (``strict`` applies to the OpenAI ones)."""
    if fmt in ("openai", "openai-responses"):
        return convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt == "openai-responses")
    if fmt == "anthropic":
        return convert_mcp_tools_to_anthropic(tools)
    if fmt in ("gemini", "gemini-json"):
        return convert_mcp_tools_to_gemini(tools, json_schema=fmt == "gemini-json")
    raise ValueError(f"unknown tool format {fmt!r}: expected one of {', '.join(FORMATS)}")


def select_tools(agent: Agent, tools: Sequence[MCPTool]) -> list[MCPTool]:
    """The tools the agent's own tool selection lets through (server-disabled ones are gone already)."""
    if agent.selected_tools is None:
        return list(tools)
    return [tool for tool in tools if agent.allows_tool(tool.server_id, tool.name)]


async def fetch_agent_server_tools(service: ToolLister, agent: Agent | None) -> McpToolListing:
    """The tools of the servers ``agent``'s mode gives it, before its own tool selection.

    What the tool picker offers: every tool the agent could tick.
    """
    if agent is None or agent.mcp_mode is McpMode.DISABLED:
        return McpToolListing()
    if agent.mcp_mode is McpMode.AUTO:
        return await service.list_all_active_server_tools()
    return await _selected_server_tools(service, agent.selected_servers)


async def fetch_mcp_tools(service: ToolLister, agent: Agent | None) -> McpToolListing:
    """The MCP tools ``agent`` may use, and the servers that failed (server id -> reason).

    No agent or mode ``disabled``: no tools. ``auto``: every active server. ``manual``: the
    selected servers; one that is turned off, untrusted, failing or no longer configured is
    named in ``errors`` and the others still count. Tools the server disables are never listed;
    then the agent's own tool selection applies.
    """
    listing = await fetch_agent_server_tools(service, agent)
    if agent is None:
        return listing
    listing.tools = select_tools(agent, listing.tools)
    for server_id, reason in listing.errors.items():
        logger.warning("MCP server %s left out: %s", server_id, reason)
    _log_grouped(listing.tools)
    return listing


async def _selected_server_tools(service: ToolLister, server_ids: Sequence[str]) -> McpToolListing:
    records = {record.id: record for record in await service.list_servers()}
    result = McpToolListing()
    wanted = []
    for server_id in server_ids:
        record = records.get(server_id)
        if record is None:
            result.add_failure(server_id, "this server is no longer configured (it was removed)")
        elif not record.is_active:
            result.add_failure(server_id, f"{record.name} is turned off")
        else:
            wanted.append(server_id)
    outcomes = await asyncio.gather(*(service.list_server_tools(s) for s in wanted), return_exceptions=True)
    for server_id, outcome in zip(wanted, outcomes, strict=True):
        if isinstance(outcome, ElftiaError):
            result.add_failure(server_id, outcome)
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            result.tools.extend(outcome)
    return result


def _log_grouped(tools: list[MCPTool]) -> None:
    groups: dict[str, list[str]] = {}
    for tool in tools:
        groups.setdefault(tool.server_name or tool.server_id, []).append(tool.name)
    for server, names in groups.items():
        logger.info("MCP tools from %s (%d): %s", server, len(names), ", ".join(names))


async def setup_mcp_tools(
    service: ToolLister, agent: Agent | None, api_format: ApiFormat | str, *, strict: bool = False
) -> McpToolsSetup | None:
    """The agent's tools converted for ``api_format``; None when there is no tool.

    ``api_format`` is ``openai`` | ``anthropic`` | ``google`` (the original's) or one of
    :data:`FORMATS`. Every warning of the conversion (a strict fallback, tools over the limit) is logged.
    """
    fmt = _API_FORMATS.get(api_format, api_format if api_format in FORMATS else None)
    if fmt is None:
        raise ValueError(f"unknown api format {api_format!r}: expected openai, anthropic, google or one of {FORMATS}")
    listing = await fetch_mcp_tools(service, agent)
    if not listing.tools:
        return None
    conversion = convert_tools(listing.tools, fmt, strict=strict)
    for note in conversion.warnings:
        logger.warning("%s", note)
    return McpToolsSetup(
        tools=conversion.payload,
        mcpTools=listing.tools,
        nameMap=conversion.name_map,
        notes=conversion.notes,
        errors=listing.errors,
    )
