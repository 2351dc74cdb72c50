"""A server whose ``grow`` tool adds a tool and sends ``notifications/tools/list_changed``
(to a 2026-07-28 client: publishes the change to its ``subscriptions/listen`` stream).

Run: ``python -m tests.servers.list_changed`` or ``python tests/servers/list_changed.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("list-changed")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""


@mcp.tool(annotations=READ_ONLY)
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client its tool list changed."""

    def added() -> str:
        return f"I am {name}"

    mcp.add_tool(added, name=name, description=f"Added at run time: {name}")
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await ctx.notify_tools_changed()  # 2026-07-28: to subscriptions/listen streams only
    else:
        await ctx.session.send_tool_list_changed()
    return f"added {name}"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
