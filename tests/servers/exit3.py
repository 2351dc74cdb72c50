"""A server that writes two lines to stderr and exits with code 3 before serving.

Run: ``python -m tests.servers.exit3`` or ``python tests/servers/exit3.py``.
"""

from __future__ import annotations

import sys
import warnings

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("exit3")


@mcp.tool()
def never() -> str:
    """Never reachable."""
    return "unreachable"


if __name__ == "__main__":
    print("starting exit3", file=sys.stderr)
    print("fatal: missing API_KEY (exit 3)", file=sys.stderr, flush=True)
    sys.exit(3)
