"""The ``app_view`` Apps server for the App tab's tests and screenshots: its record and its model tool."""

from __future__ import annotations

import sys
from pathlib import Path

from elftia_desktop.core.models import McpServerInput, McpServerRecord
from tests.helpers.live_router import ROOT, add_servers
from tests.servers import app_view

FORECAST = {
    "name": "forecast",
    "description": "Tomorrow's forecast for a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "_meta": app_view.MODEL_ONLY,
}
"""``forecast`` as Discover hands it to the Try dialog (with its ``_meta``)."""


def forecast_server(marker: Path) -> McpServerRecord:
    """Add the ``app_view`` server, writing what its app-only tools did to ``marker``."""
    config = {
        "command": sys.executable,
        "args": ["-m", "tests.servers.app_view"],
        "cwd": str(ROOT),
        "env": {"ELFTIA_APP_MARKER": str(marker)},
    }
    (record,) = add_servers(McpServerInput.model_validate({"name": "forecast", "config": config, "isTrusted": True}))
    return record
