"""A tiny stdio MCP server that starts only when ``ECHO_TOKEN`` holds the expected secret.

Used to prove that a server pushed to Claude Code got its command, arguments and secret
environment right: ``claude mcp get`` reports it connected only then.
Run: ``python tests/integrations/token_server.py EXPECTED``.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("token-echo", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if __name__ == "__main__":
    expected = sys.argv[1] if len(sys.argv) > 1 else ""
    if os.environ.get("ECHO_TOKEN") != expected:
        print("ECHO_TOKEN is missing or wrong", file=sys.stderr)
        sys.exit(3)
    mcp.run("stdio")
