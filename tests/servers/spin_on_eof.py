"""A stdio server that never finishes shutting down: once its stdin closes it ignores SIGTERM and keeps a
CPU busy forever, so it looks like a server still saving its state. Only the quit path's final SIGKILL
of every group that is left stops it.
"""

from __future__ import annotations

import signal

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("spin-on-eof")


@mcp.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    mcp.run()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        pass
