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


def forecast_server(marker: Path | None) -> McpServerRecord:
    """Add the ``app_view`` server; what its app-only tools did goes to the file ``ELFTIA_APP_MARKER`` names.

    With ``marker`` that variable is set in the record (a real process, as the screenshots run it);
    with None the server reads the environment it runs in: the tests set it and open the server in
    memory (the ``memory_servers`` seam opens records without an environment of their own).
    """
    config: dict[str, object] = {"command": sys.executable, "args": ["-m", "tests.servers.app_view"], "cwd": str(ROOT)}
    if marker is not None:
        config["env"] = {"ELFTIA_APP_MARKER": str(marker)}
    (record,) = add_servers(McpServerInput.model_validate({"name": "forecast", "config": config, "isTrusted": True}))
    return record
