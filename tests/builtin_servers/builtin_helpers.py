"""Helpers: a real stdio session to a built-in server started as a subprocess, and call shortcuts."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from elftia_desktop.builtin_servers.launcher import builtin_command, builtin_env


@asynccontextmanager
async def builtin_session(name: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """An initialized session to the built-in server ``name``, started the way the app starts it."""
    command, args = builtin_command(name)
    params = StdioServerParameters(command=command, args=args, env={**builtin_env(), **(env or {})})
    async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=60) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """Call ``tool``; the structured result (unwrapped from ``{"result": ...}``), or fail on an error result."""
    result = await session.call_tool(tool, arguments)
    assert isinstance(result, types.CallToolResult)
    assert not result.is_error, f"{tool} failed: {result.content}"
    data = result.structured_content
    if data is None:
        text = result.content[0]
        assert isinstance(text, types.TextContent)
        return text.text
    return data["result"] if set(data) == {"result"} else data


async def call_error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call ``tool`` expecting an error result; its text."""
    result = await session.call_tool(tool, arguments)
    assert isinstance(result, types.CallToolResult)
    assert result.is_error, f"{tool} unexpectedly succeeded: {json.dumps(result.structured_content)}"
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text
