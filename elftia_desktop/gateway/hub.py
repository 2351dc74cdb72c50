"""Hub mode: two meta-tools instead of every tool, so hundreds of tools cost a few hundred tokens.

``find_tools(query, limit)`` searches the names and descriptions of every tool in scope and returns
the best matches with their input schemas; ``call_tool(name, arguments)`` calls one of them by
the name ``find_tools`` gave. Both read the same catalog as the full mode, without MCP Apps'
app-only tools: whoever calls the meta-tools is a model, and such tools never reach one.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types

from elftia_desktop.core.apps import tool_is_app_only
from elftia_desktop.gateway.core import Context, Gateway, error_result

DEFAULT_LIMIT = 10
MAX_LIMIT = 50

FIND_TOOLS = types.Tool(
    name="find_tools",
    description=(
        "Search the tools available through Elftia by keywords (what you want to do, a service's name). "
        "Returns matching tool names with their descriptions and input schemas; call one with call_tool."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Keywords, e.g. 'create github issue'. Empty lists tools."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        },
        "required": ["query"],
    },
)
CALL_TOOL = types.Tool(
    name="call_tool",
    description="Call a tool found with find_tools, by its exact name, with arguments that fit its input schema.",
    input_schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's name as find_tools returned it."},
            "arguments": {"type": "object", "description": "The tool's arguments.", "default": {}},
        },
        "required": ["name"],
    },
)
HUB_TOOLS = [FIND_TOOLS, CALL_TOOL]
_WORD = re.compile(r"[a-z0-9]+")


def _score(words: list[str], tool: types.Tool) -> int:
    name = tool.name.lower()
    text = f"{tool.title or ''} {tool.description or ''}".lower()
    score = 0
    for word in words:
        if word in name:
            score += 3
        elif word in text:
            score += 1
    return score


def search(tools: list[types.Tool], query: str, limit: int) -> list[types.Tool]:
    """The tools that best match ``query`` (every word counts; a hit in the name counts most)."""
    words = _WORD.findall(query.lower())
    if not words:
        return tools[:limit]
    scored = [(score, index, tool) for index, tool in enumerate(tools) if (score := _score(words, tool)) > 0]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [tool for _, _, tool in scored[:limit]]


def _summary(tool: types.Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description or "", "inputSchema": tool.input_schema}


async def find_tools(gateway: Gateway, arguments: dict[str, Any]) -> types.CallToolResult:
    """The ``find_tools`` meta-tool."""
    query = arguments.get("query")
    limit = arguments.get("limit", DEFAULT_LIMIT)
    if not isinstance(query, str):
        return error_result("find_tools: 'query' must be a string of keywords")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        return error_result(f"find_tools: 'limit' must be a whole number from 1 to {MAX_LIMIT}")
    listing = await gateway.catalog.tools()
    visible = [tool for tool in listing.items if not tool_is_app_only(tool)]
    found = [_summary(tool) for tool in search(visible, query, limit)]
    data: dict[str, Any] = {"tools": found, "total": len(visible)}
    if listing.errors:
        data["unavailable"] = listing.errors
    text = json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data)


async def call_tool(gateway: Gateway, ctx: Context, arguments: dict[str, Any]) -> types.CallToolResult:
    """The ``call_tool`` meta-tool."""
    name = arguments.get("name")
    inner = arguments.get("arguments") or {}
    if not isinstance(name, str):
        return error_result("call_tool: 'name' must be a tool name from find_tools")
    if not isinstance(inner, dict):
        return error_result("call_tool: 'arguments' must be an object")
    listing = await gateway.catalog.tools()
    ref = listing.routes.get(name)
    if ref is None or any(tool.name == name and tool_is_app_only(tool) for tool in listing.items):
        return error_result(f"call_tool: there is no tool {name!r}; use find_tools to get the exact name")
    return await gateway.call_ref(ctx, ref, inner)
