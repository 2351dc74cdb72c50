"""Helpers: a session to a built-in server (in this process over the SDK's in-memory transport, or a real
stdio subprocess started the way the app starts it), and call shortcuts.

The tools' logic (clock, notes) is checked in memory; test_builtin_launcher.py keeps the real processes
(the launcher, the entry point, a server answering over stdio).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import ModuleType
from typing import Any

import mcp_types as types
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from elftia_desktop.builtin_servers import launcher
from elftia_desktop.builtin_servers.launcher import builtin_command, builtin_env
from elftia_desktop.connections.transports import Transport, set_transport_factory
from elftia_desktop.core.models import McpServerRecord


def fresh_builtin(name: str) -> ModuleType:
    """The module of the built-in server ``name`` as a fresh process would have it: the notes server's store
    is made anew on its first use (it reads the test's ``ELFTIA_DATA_DIR``), as in the process the app starts."""
    module = importlib.import_module(launcher.BUILTIN_SERVERS[name].module)
    store = getattr(module, "store", None)
    if store is not None:
        store.cache_clear()
    return module


@asynccontextmanager
async def builtin_session(name: str) -> AsyncIterator[ClientSession]:
    """An initialized session to the built-in server ``name`` in this process."""
    server = fresh_builtin(name).server
    async with InMemoryTransport(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def _open_builtin(name: str) -> AsyncIterator[Transport]:
    """The built-in server ``name`` on the SDK's in-memory transport, as the pool's ``Transport``."""
    async with InMemoryTransport(fresh_builtin(name).server) as (read, write):
        yield Transport(read, write)


@contextlib.contextmanager
def builtin_servers_in_memory() -> Iterator[list[str]]:
    """For the block, the pool opens a stdio record that runs a built-in server module (``python -m
    elftia_desktop.builtin_servers.NAME``, no environment of its own) in this process; other records as the
    factory before this one says (``memory_servers``, or the real transport). Yields the names opened."""
    opened: list[str] = []
    modules = {(sys.executable, "-m", server.module): name for name, server in launcher.BUILTIN_SERVERS.items()}

    def factory(record: McpServerRecord) -> AbstractAsyncContextManager[Transport] | None:
        """In memory for a built-in server's record, else whatever the factory before this one says."""
        name = modules.get((record.config.command, *record.config.args))
        if name is None or record.config.env:
            return previous(record) if previous is not None else None
        opened.append(name)
        return _open_builtin(name)

    previous = set_transport_factory(factory)
    try:
        yield opened
    finally:
        set_transport_factory(previous)


@asynccontextmanager
async def builtin_process_session(name: str) -> AsyncIterator[ClientSession]:
    """An initialized session to the built-in server ``name`` as a subprocess, started the way the app starts it."""
    command, args = builtin_command(name)
    params = StdioServerParameters(command=command, args=args, env=builtin_env())
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
