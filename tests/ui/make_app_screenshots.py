"""Screenshots of the Try dialog's App tab (an MCP App's ``ui://`` view), light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_app_screenshots``.
Writes ``docs/screenshots/try-app-view.png`` and ``try-app-view-dark.png``; the view is the real
``app_view`` test server's, rendered by QtWebEngine (the ``apps`` extra).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtWidgets import QApplication

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.helpers.live_router import live_router
from tests.ui.apps_helpers import FORECAST, forecast_server
from tests.ui.make_screenshots import OUT, each_theme, settle


def view_value(app: QApplication, dialog: TryToolDialog, expression: str) -> Any:
    """``expression`` evaluated in the app's frame (None when the frame is not there yet)."""
    pane = dialog.app_pane
    frames = pane.frame.page().mainFrame().children() if pane is not None and pane.frame is not None else []
    if not frames:
        return None
    seen: list[Any] = []
    frames[0].runJavaScript(f"JSON.stringify({expression})", 0, seen.append)
    settle(app, lambda: bool(seen), 10_000)
    return json.loads(seen[0]) if seen and seen[0] else None


def shoot(app: QApplication, router: McpRouter, record: McpServerRecord, sfx: str) -> None:
    """The view after its call on load and after a Try call of ``forecast``."""
    dialog = TryToolDialog(router, record.id, FORECAST, record.name, history=TryHistory())
    assert dialog.app_pane is not None
    dialog.resize(1000, 620)
    dialog.show()
    refreshed = "document.getElementById('refresh').textContent"
    settle(app, lambda: view_value(app, dialog, refreshed) == "refreshed Paris", 60_000)
    dialog.form.set_value({"city": "Oslo"})
    dialog.call()
    result = "document.getElementById('result').textContent"
    settle(app, lambda: "sunny" in str(view_value(app, dialog, result)), 60_000)
    dialog.side.setCurrentWidget(dialog.app_pane)
    settle(app, lambda: False, 1500)  # the engine paints the last change on its own schedule
    path = OUT / f"try-app-view{sfx}.png"
    dialog.grab().save(str(path))
    print("wrote", path)
    dialog.reject()


def main() -> None:
    """Write both screenshots."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    ConfigStore().mutate(lambda records: None)
    record = forecast_server(Path(tempfile.mkdtemp(prefix="elftia-shots-marker-")) / "marker.txt")
    with live_router() as (router, _loop):
        for sfx in each_theme(app, light):
            shoot(app, router, record, sfx)


if __name__ == "__main__":
    main()
