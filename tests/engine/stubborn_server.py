"""A test MCP server that is hard to stop: it starts a grandchild in its group and refuses to exit.

On start it runs ``sleep 600`` (same process group) and writes that pid to the file named by
``GRANDCHILD_PID_FILE``. SIGTERM is ignored and, once stdin closes, shutdown blocks for ten
minutes, so only a SIGKILL of the group ends it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer


@asynccontextmanager
async def lifespan(_server: MCPServer[None]) -> AsyncIterator[None]:
    """Start the grandchild; on shutdown, hang."""
    # Blocking on purpose: this server is meant to misbehave.
    child = subprocess.Popen(["sleep", "600"])  # noqa: ASYNC220
    with open(os.environ["GRANDCHILD_PID_FILE"], "w", encoding="ascii") as handle:  # noqa: ASYNC230
        handle.write(str(child.pid))
    yield None
    time.sleep(600)  # noqa: ASYNC251


server = MCPServer("stubborn", lifespan=lifespan, log_level="WARNING")


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server.run("stdio")
