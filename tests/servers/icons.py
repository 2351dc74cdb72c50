"""A server with an icon in its ``serverInfo`` (a small SVG as a ``data:`` URI) and one refused icon before it.

The first icon is ``http://`` (never fetched: only https and data are used); the second is the
SVG, which also carries a ``<script>`` that must never run (Qt's SVG renderer has no scripts).
Its tool ``hello`` has an icon of its own (a green SVG ``data:`` URI); ``plain`` has none.

Run: ``python -m tests.servers.icons`` (from the repo root) or ``python tests/servers/icons.py``.
"""

from __future__ import annotations

import base64
import os
import sys
import warnings

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import Icon

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">'
    b'<script>alert("never")</script><rect width="16" height="16" fill="#d02020"/></svg>'
)
DATA_URI = "data:image/svg+xml;base64," + base64.b64encode(SVG).decode()
ICONS = [Icon(src="http://icons.example.test/plain.png", mime_type="image/png"), Icon(src=DATA_URI)]
TOOL_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#20a040"/></svg>'
)
TOOL_ICON = Icon(src="data:image/svg+xml;base64," + base64.b64encode(TOOL_SVG).decode(), mime_type="image/svg+xml")
mcp = MCPServer("icons", version="1.0.0", icons=ICONS)


@mcp.tool(icons=[TOOL_ICON])
def hello() -> str:
    """Say hello."""
    return "hello"


@mcp.tool()
def plain() -> str:
    """No icon."""
    return "plain"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
