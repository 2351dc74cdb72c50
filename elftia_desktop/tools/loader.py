"""The original ``ToolsLoader``: which MCP tools an agent gets, converted for its provider.

``fetch_mcp_tools(service, config)`` follows the original rules: ``enabled`` false or unset -> no
tools; ``mode`` ``auto`` or unset -> the tools of every active server; ``manual`` -> the tools of
each selected server (one failing server is logged and skipped). ``setup_mcp_tools`` converts them
for ``api_format`` (``openai`` | ``anthropic`` | ``google``) and returns
``{tools, mcpTools, nameMap, notes}``, or None when there is no tool.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypedDict

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.models import MCPTool, McpToolListing
from elftia_desktop.tools.convert import Conversion, ToolInput
from elftia_desktop.tools.formats.anthropic import convert_mcp_tools_to_anthropic
from elftia_desktop.tools.formats.gemini import convert_mcp_tools_to_gemini
from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai
from elftia_desktop.tools.names import NameMap
from elftia_desktop.tools.notes import Note

logger = logging.getLogger(__name__)

ApiFormat = Literal["openai", "anthropic", "google"]
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "gemini-json")
_API_FORMATS = {"openai": "openai", "anthropic": "anthropic", "google": "gemini", "gemini": "gemini"}


class ToolLister(Protocol):
    """The part of ``McpService`` the loader uses."""

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The enabled tools of one server."""
        ...

    async def list_all_active_server_tools(self) -> McpToolListing:
        """The tools of every active server, and the servers that failed."""
        ...


class McpToolsSetup(TypedDict):
    """What :func:`setup_mcp_tools` returns."""

    tools: list[dict[str, Any]]
    mcpTools: list[MCPTool]
    nameMap: NameMap
    notes: list[Note]


def convert_tools(tools: Sequence[ToolInput], fmt: str, *, strict: bool = False) -> Conversion:
    """Convert ``tools`` to one of :data:`FORMATS` (``strict`` applies to the OpenAI ones)."""
    if fmt in ("openai", "openai-responses"):
        return convert_mcp_tools_to_openai(tools, strict=strict, responses=fmt == "openai-responses")
    if fmt == "anthropic":
        return convert_mcp_tools_to_anthropic(tools)
    if fmt in ("gemini", "gemini-json"):
        return convert_mcp_tools_to_gemini(tools, json_schema=fmt == "gemini-json")
    raise ValueError(f"unknown tool format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _setting(config: Mapping[str, Any], camel: str, snake: str) -> Any:
    return config.get(camel, config.get(snake))


async def fetch_mcp_tools(service: ToolLister, config: Mapping[str, Any] | None) -> list[MCPTool]:
    """The MCP tools an agent with ``config`` (``{enabled, mode, selectedServers}``) may use."""
    if not config or not config.get("enabled"):
        return []
    mode = config.get("mode") or "auto"
    if mode == "disabled":
        return []
    if mode == "auto":
        listing = await service.list_all_active_server_tools()
        for server_id, reason in listing.errors.items():
            logger.warning("MCP server %s left out: %s", server_id, reason)
        tools = list(listing.tools)
    else:
        tools = []
        for server_id in _setting(config, "selectedServers", "selected_servers") or []:
            try:
                tools.extend(await service.list_server_tools(server_id))
            except ElftiaError as exc:
                logger.warning("MCP server %s left out: %s", server_id, exc)
    _log_grouped(tools)
    return tools


def _log_grouped(tools: list[MCPTool]) -> None:
    groups: dict[str, list[str]] = {}
    for tool in tools:
        groups.setdefault(tool.server_name or tool.server_id, []).append(tool.name)
    for server, names in groups.items():
        logger.info("MCP tools from %s (%d): %s", server, len(names), ", ".join(names))


async def setup_mcp_tools(
    service: ToolLister, config: Mapping[str, Any] | None, api_format: ApiFormat | str, *, strict: bool = False
) -> McpToolsSetup | None:
    """The agent's tools converted for ``api_format``; None when there is no tool.

    Every warning of the conversion (a strict fallback, tools over the limit) is logged.
    """
    fmt = _API_FORMATS.get(api_format)
    if fmt is None:
        raise ValueError(f"unknown api format {api_format!r}: expected openai, anthropic or google")
    tools = await fetch_mcp_tools(service, config)
    if not tools:
        return None
    conversion = convert_tools(tools, fmt, strict=strict)
    for note in conversion.warnings:
        logger.warning("%s", note)
    return McpToolsSetup(tools=conversion.payload, mcpTools=tools, nameMap=conversion.name_map, notes=conversion.notes)
