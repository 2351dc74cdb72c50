"""Helpers for the pool tests: inputs for the test servers, adding a server."""

from __future__ import annotations

from typing import Any

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerInput
from tests.servers.serve_http import server_command


def stdio_input(
    name: str, server: str, *, trusted: bool = True, extra_args: tuple[str, ...] = (), **fields: Any
) -> McpServerInput:
    """An input for test server ``server`` over stdio (``extra_args`` after its script)."""
    command = server_command(server, *extra_args)
    config = {"command": command[0], "args": command[1:]} | fields.pop("config", {})
    return McpServerInput(name=name, type="stdio", config=config, is_trusted=trusted, **fields)


def http_input(name: str, url: str, transport: str = "http", **fields: Any) -> McpServerInput:
    """An input for an SSE or Streamable HTTP server at ``url``."""
    config = {"url": url} | fields.pop("config", {})
    return McpServerInput(name=name, type=transport, config=config, is_trusted=True, **fields)


async def add_server(service: McpService, server: McpServerInput, *, connect: bool = True) -> str:
    """Add a server and return its id (an active, trusted one is connected by the add unless not ``connect``)."""
    result = await servers.add(service, server, connect=connect)
    assert result.success, result.error
    assert result.server is not None
    return result.server.id
