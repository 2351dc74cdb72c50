"""A server that never answers ``initialize``: its lifespan never finishes starting.

Run: ``python -m tests.servers.hang_init`` or ``python tests/servers/hang_init.py``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning


@asynccontextmanager
async def _forever(server: MCPServer) -> AsyncIterator[None]:
    await anyio.sleep_forever()
    yield


warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("hang-init", lifespan=_forever)


@mcp.tool()
def never() -> str:
    """Never reachable."""
    return "unreachable"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
