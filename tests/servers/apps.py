"""An MCP Apps server (``io.modelcontextprotocol/ui``): a model tool, an app-only tool and a ``ui://`` view.

``weather`` is for models and the app (it names the view in ``_meta.ui.resourceUri``);
``refresh_view`` has ``_meta.ui.visibility == ["app"]``: only the app's view may call it, and a
host must never give it to a model. ``ui://weather/view.html`` is the view
(``text/html;profile=mcp-app``).

Run: ``python -m tests.servers.apps`` (from the repo root) or ``python tests/servers/apps.py``.
"""

from __future__ import annotations

import os
import sys
import warnings

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ToolAnnotations

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("apps", version="1.0.0")
VIEW = "ui://weather/view.html"
MODEL_META = {"ui": {"resourceUri": VIEW}}
APP_ONLY_META = {"ui": {"resourceUri": VIEW, "visibility": ["app"]}}
READ_ONLY = ToolAnnotations(read_only_hint=True)
"""Both tools only read: they run without an approval question."""


@mcp.tool(meta=MODEL_META, annotations=READ_ONLY)
def weather(city: str) -> str:
    """Current weather for a city (shown in the weather view)."""
    return f"Sunny in {city}"


@mcp.tool(meta=APP_ONLY_META, annotations=READ_ONLY)
def refresh_view(city: str) -> str:
    """Refresh the weather view's data (called by the view, never by a model)."""
    return f"refreshed {city}"


@mcp.resource(VIEW, mime_type="text/html;profile=mcp-app")
def view() -> str:
    """The weather view."""
    return "<!doctype html><title>Weather</title><p id=w>…</p>"


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
