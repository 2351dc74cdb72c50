"""Screenshots of the form (also from an install link), the paste-JSON dialog and the discover panel, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_screenshots``.
Writes ``docs/screenshots/*.png``; the discover panel talks to the real ``basic`` test server.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QElapsedTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.install_link import make_install_link, parse_install_link
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.json_import_dialog import JsonImportDialog
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.theme import apply_theme
from elftia_desktop.ui.widgets.key_value_editor import RowSpec
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.ui.test_server_form import PRESETS

OUT = Path("docs/screenshots")
JSON_OK = """{
  "mcpServers": {
    "time": { "command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Berlin"] },
    "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] },
    "docs": { "type": "streamableHttp", "url": "https://mcp.example.com/mcp" },
    "broken": { "type": "carrier-pigeon", "command": "coo" }
  }
}"""
JSON_BAD = """{
  "mcpServers": {
    "time": { "command": "uvx", "args": ["mcp-server-time"] }
    "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] }
  }
}"""


def dark_palette() -> QPalette:
    """A dark palette like the system's dark themes."""
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#2b2d31",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1f2023",
        QPalette.ColorRole.AlternateBase: "#26282c",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#34373d",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#4f6bed",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#34373d",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
        QPalette.ColorRole.Link: "#8ea2ff",
    }
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#7a7f88"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#7a7f88"))
    return palette


def settle(app: QApplication, done: Callable[[], bool] = lambda: True, ms: int = 30_000) -> None:
    """Process events until ``done()`` (bounded)."""
    timer = QElapsedTimer()
    timer.start()
    while not done() and timer.elapsed() < ms:
        app.processEvents()
    for _ in range(20):
        app.processEvents()


def save(app: QApplication, widget: QWidget, name: str) -> None:
    settle(app)
    widget.grab().save(str(OUT / f"{name}.png"))
    print("wrote", OUT / f"{name}.png")


def shoot(app: QApplication, suffix: str) -> None:
    """Every screen once, in the current palette."""
    form = McpServerForm(presets=PRESETS)
    form.show()
    form.ui.gallery.choose("github")
    save(app, form, f"form-stdio{suffix}")
    form.close()
    form = McpServerForm(presets=PRESETS)
    form.show()
    form.ui.gallery.choose("remote")
    form.ui.headers.add_row(RowSpec("Authorization", "Bearer sk-live-123"))
    form.ui.call_timeout.setValue(60)
    save(app, form, f"form-http{suffix}")
    form.close()
    shoot_link_form(app, suffix)
    dialog = JsonImportDialog(None, existing_names=["time"])
    dialog.show()
    dialog.set_text(JSON_OK)
    save(app, dialog, f"json-import{suffix}")
    dialog.set_text(JSON_BAD)
    save(app, dialog, f"json-import-error{suffix}")
    dialog.close()


def shoot_link_form(app: QApplication, suffix: str) -> None:
    """The add form opened by an ``elftia://install-mcp`` link."""
    entry = {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-memory"],
        "env": {"MEMORY_FILE_PATH": "~/memory.json"},
    }
    form = McpServerForm(link=parse_install_link(make_install_link("memory", entry)))
    form.show()
    save(app, form, f"form-link{suffix}")
    form.close()


def each_theme(app: QApplication, light: QPalette) -> Iterator[str]:
    """Put the app in ``light``, then in the dark palette, with the app's theme each time; yield each file-name
    suffix (``""``, ``"-dark"``) once the palette is in place (every screenshot script shoots both)."""
    for suffix, palette in (("", light), ("-dark", dark_palette())):
        app.setPalette(palette)
        apply_theme(app)
        yield suffix


def shoot_discover(app: QApplication, suffixes: list[tuple[str, QPalette]]) -> None:
    """The discover panel of the real ``basic`` test server."""
    ConfigStore().mutate(lambda records: None)
    (record,) = add_servers(server_input("basic"))
    with live_router() as (router, _loop):
        for suffix, palette in suffixes:
            app.setPalette(palette)
            apply_theme(app)
            dialog = DiscoverDialog(router, record)
            dialog.show()
            settle(app, lambda d=dialog: d.discovered is not None)  # type: ignore[misc]
            dialog.cards["echo"].schema_button.click()
            save(app, dialog, f"discover{suffix}")
            dialog.close()


def main() -> None:
    """Write every screenshot."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    apply_theme(app)
    shoot(app, "")
    app.setPalette(dark_palette())
    apply_theme(app)
    shoot(app, "-dark")
    shoot_discover(app, [("", light), ("-dark", dark_palette())])


if __name__ == "__main__":
    main()
