"""Render the main screens to docs/screenshots/ (offscreen Qt, real services and test servers).

Run: ``.venv/bin/python docs/make_screenshots.py``. Light and dark palettes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from elftia_desktop.bridge.results import LaunchInfo  # noqa: E402
from elftia_desktop.bridge.router import McpRouter  # noqa: E402
from elftia_desktop.core.config_store import ConfigStore  # noqa: E402
from elftia_desktop.core.models import McpServerInput, McpServerRecord  # noqa: E402
from elftia_desktop.ui.dialogs.logs_dialog import LogsDialog  # noqa: E402
from elftia_desktop.ui.dialogs.trust_dialog import TrustDialog  # noqa: E402
from elftia_desktop.ui.main_window import MainWindow  # noqa: E402
from elftia_desktop.ui.theme import apply_theme  # noqa: E402
from tests.helpers.live_router import add_servers, live_router, server_input  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, color in {
        QPalette.ColorRole.Window: "#26272b",
        QPalette.ColorRole.WindowText: "#e8e9ec",
        QPalette.ColorRole.Base: "#1e1f22",
        QPalette.ColorRole.AlternateBase: "#2b2d31",
        QPalette.ColorRole.Text: "#e8e9ec",
        QPalette.ColorRole.Button: "#2f3136",
        QPalette.ColorRole.ButtonText: "#e8e9ec",
        QPalette.ColorRole.Highlight: "#4f6bed",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2b2d31",
        QPalette.ColorRole.ToolTipText: "#e8e9ec",
        QPalette.ColorRole.PlaceholderText: "#8a8f98",
    }.items():
        palette.setColor(role, QColor(color))
    return palette


def settle(app: QApplication, seconds: float, until: object = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        if until is not None and until():  # type: ignore[operator]
            break
        time.sleep(0.01)


def save(widget: QWidget, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(OUT / f"{name}.png"))
    print("wrote", OUT / f"{name}.png")


def shoot_theme(
    app: QApplication, router: McpRouter, records: list[McpServerRecord], theme: str, palette: QPalette
) -> None:
    """The servers page with three servers tested, the trust prompt and a log, in one palette."""
    app.setPalette(palette)
    apply_theme(app)
    window = MainWindow(router, QSettings(os.environ["ELFTIA_DATA_DIR"] + "/w.ini", QSettings.Format.IniFormat))
    window.resize(1100, 760)
    window.show()
    page = window.servers_page
    settle(app, 20, lambda: page.loaded)
    for record in records[:3]:
        page.server_actions.test(record)
    settle(app, 25, lambda: all(page.states.get(r.id, ("",))[0] in ("connected", "error") for r in records[:3]))
    settle(app, 1.5)
    save(window, f"servers-{theme}")
    infos: list[LaunchInfo] = []
    router.servers.launch_info(records[3].id).then(window, infos.append)
    settle(app, 10, lambda: bool(infos))
    dialog = TrustDialog(infos[0], window)
    dialog.show()
    settle(app, 0.5)
    save(dialog, f"trust-{theme}")
    dialog.close()
    logs = LogsDialog(router, records[2].id, "Broken example", window)
    logs.show()
    settle(app, 3, lambda: bool(logs.lines))
    save(logs, f"logs-{theme}")
    logs.close()
    window.close()


def main() -> None:
    app = QApplication(sys.argv)
    ConfigStore().mutate(lambda records: None)
    python = sys.executable
    records = add_servers(
        server_input("Test server"),
        McpServerInput(
            name="Clock",
            config={"command": python, "args": ["-m", "elftia_desktop.builtin_servers.clock"]},
            is_trusted=True,
            install_source="builtin",
        ),
        server_input("Broken example", module="exit3"),
        McpServerInput.model_validate(
            {
                "name": "GitHub",
                "type": "http",
                "config": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer x"}},
            }
        ),
        McpServerInput(
            name="Filesystem",
            config={"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Documents"]},
            is_active=False,
        ),
    )
    with live_router() as (router, _loop):
        for theme, palette in (("light", QPalette(app.style().standardPalette())), ("dark", dark_palette())):
            shoot_theme(app, router, records, theme, palette)
        ConfigStore().mutate(lambda rs: rs.clear())
        window = MainWindow(router, QSettings(os.environ["ELFTIA_DATA_DIR"] + "/w.ini", QSettings.Format.IniFormat))
        app.setPalette(QPalette(app.style().standardPalette()))
        apply_theme(app)
        window.resize(1100, 640)
        window.show()
        settle(app, 10, lambda: window.servers_page.loaded and not window.servers_page.records)
        settle(app, 0.5)
        save(window, "servers-empty")
        window.close()


if __name__ == "__main__":
    main()
