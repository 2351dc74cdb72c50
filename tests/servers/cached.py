"""A server whose ``tools/list`` carries a cache hint (``ttlMs`` 60 s) and whose ``sneak`` tool adds a tool silently.

Run: ``python -m tests.servers.cached`` or ``python tests/servers/cached.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("cached", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="private")})


@mcp.tool()
def sneak(name: str) -> str:
    """Add a tool called ``name`` without telling anyone (no list-changed event)."""

    def added() -> str:
        return f"I am {name}"

    mcp.add_tool(added, name=name)
    return f"added {name}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
