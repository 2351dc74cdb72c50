"""A server's log as ``elftia-mcp logs`` shows it, the same on the pool host and in a command's own pool.

A server that runs already (on the host: the one process every app uses) is not touched: its log
is read as it is. One that does not run is started with a test first, as the window's Logs button
does after a failed start, so the log has its start's stderr and the error says why it failed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import ConnectionState

SETTLE = 0.2
"""Seconds given to the last stderr lines of a fresh start to arrive."""


@dataclass(frozen=True)
class ServerLogReport:
    """A server's log lines, oldest first, and the error of its start (None when it runs)."""

    lines: list[str]
    error: str | None


async def server_logs(service: McpService, server_id: str) -> ServerLogReport:
    """The server's log lines; a server that does not run is started (a test) first."""
    error: str | None = None
    if service.connection_state(server_id) is not ConnectionState.CONNECTED:
        error = (await service.test(server_id)).error
        await asyncio.sleep(SETTLE)
    return ServerLogReport(service.server_log(server_id), error)
