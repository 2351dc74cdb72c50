"""An MCP Apps server whose ``ui://`` view talks the ``ui/*`` dialect, for the Try dialog's App tab.

``forecast`` is the model's tool (its ``_meta.ui.resourceUri`` names the view; its visibility leaves out
the app); ``refresh_view`` (read
only) and ``save_note`` (not read only: the host asks before it runs) are app-only. Both app-only tools
append a line to the file named by ``ELFTIA_APP_MARKER``, so a test sees that a call from the view
reached the server. The view (``ui://forecast/view.html``) initializes, calls ``refresh_view`` on load,
shows the tool input and result the host sends, and has buttons that call ``save_note``, ask to open a
link, and fetch from a domain its CSP allows and from one it does not; ``window.report`` is what it saw.

Run: ``python -m tests.servers.app_view`` (from the repo root).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import ToolAnnotations

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
mcp = MCPServer("app-view", version="1.0.0")
VIEW = "ui://forecast/view.html"
ALLOWED = "https://api.allowed.test"
BLOCKED = "https://blocked.test"
LINK = "https://docs.example.org/forecast?city=Paris"
CSP = {"connectDomains": [ALLOWED], "resourceDomains": []}
MODEL_ONLY = {"ui": {"resourceUri": VIEW, "visibility": ["model"]}}
"""``forecast``: the model's; a view may not call it."""
APP_ONLY = {"ui": {"resourceUri": VIEW, "visibility": ["app"]}}
HTML = (Path(__file__).with_name("app_view.html")).read_text(encoding="utf-8")


def _mark(line: str) -> None:
    marker = os.environ.get("ELFTIA_APP_MARKER")
    if marker:
        with open(marker, "a", encoding="utf-8") as file:
            file.write(line + "\n")


@mcp.tool(meta=MODEL_ONLY, annotations=ToolAnnotations(read_only_hint=True))
def forecast(city: str) -> dict[str, str]:
    """Tomorrow's forecast for a city (shown in the forecast view)."""
    return {"city": city, "sky": "sunny"}


@mcp.tool(meta=APP_ONLY, annotations=ToolAnnotations(read_only_hint=True))
def refresh_view(city: str) -> str:
    """Fresh data for the view (app-only)."""
    _mark(f"refresh_view {city}")
    return f"refreshed {city}"


@mcp.tool(meta=APP_ONLY, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def save_note(text: str) -> str:
    """Save a note written in the view (app-only; writes, so the host asks first)."""
    _mark(f"save_note {text}")
    return f"saved {text}"


@mcp.resource(VIEW, mime_type="text/html;profile=mcp-app", meta={"ui": {"csp": CSP, "prefersBorder": True}})
def view() -> str:
    """The forecast view."""
    return HTML.replace("__ALLOWED__", ALLOWED).replace("__BLOCKED__", BLOCKED).replace("__LINK__", LINK)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _run import run

    run(mcp)
