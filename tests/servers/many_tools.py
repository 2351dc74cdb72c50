"""A server with many tools (``MANY_TOOLS`` in the environment, default 75): ``<prefix>_000`` ...

Each tool has a short description and a two-field schema, like a real API wrapper. The tool
names start with ``MANY_TOOLS_PREFIX`` (default ``op``). Run: ``python -m tests.servers.many_tools``.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
ENV: Mapping[str, str] = globals().get("ENV", os.environ)
"""The environment this server reads: its process's (tests/helpers/memory_servers.py sets a copy's in memory)."""
mcp = MCPServer("many")
COUNT = int(ENV.get("MANY_TOOLS", "75"))
PREFIX = ENV.get("MANY_TOOLS_PREFIX", "op")


def _make(index: int) -> None:
    def tool(query: str, limit: int = 10) -> str:
        return f"{PREFIX} {index}: {query} ({limit})"

    name = f"{PREFIX}_{index:03d}"
    mcp.add_tool(tool, name=name, description=f"Operation {index} of {PREFIX}: look up records matching a query.")


for _index in range(COUNT):
    _make(_index)

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
