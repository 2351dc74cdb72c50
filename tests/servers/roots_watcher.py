"""A stdio server that counts ``notifications/roots/list_changed`` and lists the client's roots on request."""

from __future__ import annotations

import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("roots-watcher")
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
"""A test double: its tools run without asking (approvals themselves are tested on ``approvals.py``)."""
changes = {"count": 0}


async def on_roots_changed(_ctx: object, _params: types.NotificationParams) -> None:
    """Count the notification."""
    changes["count"] += 1


# MCPServer has no decorator for client notifications; its low-level server takes the handler.
mcp._lowlevel_server.add_notification_handler(
    "notifications/roots/list_changed", types.NotificationParams, on_roots_changed
)


@mcp.tool(annotations=READ_ONLY)
def roots_changed() -> int:
    """How many roots/list_changed notifications arrived."""
    return changes["count"]


@mcp.tool(annotations=READ_ONLY)
async def roots(ctx: Context) -> list[str]:
    """The client's roots, asked now."""
    listed = await ctx.session.list_roots()
    return [str(root.uri) for root in listed.roots]


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
