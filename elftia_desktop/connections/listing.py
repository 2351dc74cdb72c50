"""Listing what a server offers (every page) and converting SDK results at the boundary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
from mcp.client.session import ClientSession

from elftia_desktop.core.models import MCPCallToolResponse, McpServerRecord, MCPTool
from elftia_desktop.core.tool_names import tool_id as tool_id  # re-exported: the CLI and tests import it here

MAX_PAGES = 1000
"""A server that keeps answering with a cursor is cut off after this many pages."""

T = TypeVar("T")


async def paginate(
    fetch: Callable[[types.PaginatedRequestParams | None], Awaitable[Any]], items: Callable[[Any], list[T]]
) -> list[T]:
    """Call ``fetch`` with each ``next_cursor`` until it is None; all items in order."""
    collected: list[T] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        result = await fetch(types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        collected.extend(items(result))
        cursor = result.next_cursor
        if cursor is None:
            break
    return collected


async def list_tools(session: ClientSession) -> list[types.Tool]:
    """All tools of a session."""
    return await paginate(lambda p: session.list_tools(params=p), lambda r: list(r.tools))


async def list_prompts(session: ClientSession) -> list[types.Prompt]:
    """All prompts of a session."""
    return await paginate(lambda p: session.list_prompts(params=p), lambda r: list(r.prompts))


async def list_resources(session: ClientSession) -> list[types.Resource]:
    """All resources of a session."""
    return await paginate(lambda p: session.list_resources(params=p), lambda r: list(r.resources))


async def list_resource_templates(session: ClientSession) -> list[types.ResourceTemplate]:
    """All resource templates of a session."""
    return await paginate(lambda p: session.list_resource_templates(params=p), lambda r: list(r.resource_templates))


def to_mcp_tool(record: McpServerRecord, tool: types.Tool) -> MCPTool:
    """An SDK tool as the agents see it."""
    return MCPTool(
        id=tool_id(record.name, tool.name),
        server_id=record.id,
        server_name=record.name,
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.input_schema) if tool.input_schema else {"type": "object", "properties": {}},
    )


def as_dict(model: Any) -> dict[str, Any]:
    """A pydantic SDK object as a JSON dict with the protocol's field names."""
    return dict(model.model_dump(mode="json", by_alias=True, exclude_none=True))


def to_call_response(result: types.CallToolResult) -> MCPCallToolResponse:
    """An SDK call result as ``{isError, content, structuredContent?}``."""
    return MCPCallToolResponse(
        is_error=bool(result.is_error),
        content=[as_dict(block) for block in result.content],
        structured_content=result.structured_content,
    )


def server_info(init: types.InitializeResult | None) -> dict[str, Any] | None:
    """Name, version and protocol of the server from its initialize result."""
    if init is None:
        return None
    info = as_dict(init.server_info)
    info["protocolVersion"] = init.protocol_version
    if init.instructions:
        info["instructions"] = init.instructions
    return info
