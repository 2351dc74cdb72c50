"""Screenshots of the Dependencies, Import and export, and Settings pages, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_page_screenshots``.
Real services in a temporary data folder; other apps' configs are sample files in a temporary
home folder (one of them broken, to show its line and column). Writes ``docs/screenshots/*.png``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
HOME = Path(tempfile.mkdtemp(prefix="elftia-home-"))
os.environ["HOME"] = str(HOME)
os.environ.pop("XDG_CONFIG_HOME", None)
os.environ.pop("CLAUDE_CONFIG_DIR", None)

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from elftia_desktop.core.config_store import ConfigStore  # noqa: E402
from elftia_desktop.ui.main_window import MainWindow  # noqa: E402
from elftia_desktop.ui.pages.dependencies_page import DependenciesPage  # noqa: E402
from elftia_desktop.ui.pages.import_export_page import ImportExportPage  # noqa: E402
from elftia_desktop.ui.theme import apply_theme, fixed_palette  # noqa: E402
from tests.helpers.live_router import add_servers, live_router, server_input  # noqa: E402
from tests.ui.make_screenshots import settle  # noqa: E402

OUT = Path("docs/screenshots")
SAMPLES = Path(__file__).resolve().parents[1] / "integrations" / "samples"
BROKEN_CURSOR = '{\n  "mcpServers": {\n    "github": { "command": "npx" }\n    "memory": {}\n  }\n}\n'


def place_configs() -> None:
    """Claude Desktop and VS Code samples, and a broken Cursor file, in the temporary home."""
    claude = HOME / ".config" / "Claude" / "claude_desktop_config.json"
    vscode = HOME / ".config" / "Code" / "User" / "mcp.json"
    for sample, target in (("claude_desktop_config.json", claude), ("vscode_mcp.json", vscode)):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
    cursor = HOME / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True, exist_ok=True)
    cursor.write_text(BROKEN_CURSOR, encoding="utf-8")


def save(app: QApplication, widget: QWidget, name: str) -> None:
    """Grab ``widget`` after the events settle."""
    settle(app)
    widget.grab().save(str(OUT / f"{name}.png"))
    print("wrote", OUT / f"{name}.png")


def shoot(app: QApplication, window: MainWindow, suffix: str) -> None:
    """The three pages in the current palette."""
    window.show_page("dependencies")
    deps = window.pages["dependencies"]
    settle(app, lambda: getattr(deps, "loaded", False), 60_000)
    save(app, window, f"dependencies{suffix}")
    shoot_install(app, window, suffix)
    window.show_page("import")
    page = window.import_page
    settle(app, lambda: page.import_panel.loaded and bool(page.import_panel.rows), 30_000)
    save(app, window, f"import{suffix}")
    page.tabs.setCurrentWidget(page.export_panel)
    page.export_panel.servers.set_checked(None)
    settle(app, lambda: page.export_panel.exported is not None, 30_000)
    save(app, window, f"export{suffix}")
    shoot_diff(app, page, suffix)
    page.tabs.setCurrentWidget(page.import_panel)
    window.show_page("settings")
    settings = window.pages["settings"]
    settle(app, lambda: getattr(settings, "info", None) is not None, 30_000)
    window.resize(1120, 900)
    save(app, window, f"settings{suffix}")
    window.resize(1120, 760)


def shoot_diff(app: QApplication, page: ImportExportPage, suffix: str) -> None:
    """The diff shown before writing into VS Code's own config (then cancelled)."""
    panel = page.export_panel
    panel.format.setCurrentIndex(panel.format.findData("vscode"))
    settle(app, lambda: panel.exported is not None and panel.exported.format == "vscode", 30_000)
    panel.write_button.click()
    settle(app, lambda: panel.dialog is not None and panel.dialog.isVisible(), 30_000)
    assert panel.dialog is not None
    save(app, panel.dialog, f"export-diff{suffix}")
    panel.dialog.reject()
    panel.format.setCurrentIndex(panel.format.findData("cursor"))


def shoot_install(app: QApplication, window: MainWindow, suffix: str) -> None:
    """A real install of uv from PyPI while it runs, then cancelled (nothing is left behind)."""
    page = window.pages["dependencies"]
    assert isinstance(page, DependenciesPage)
    card = page.cards["uv"]
    if not card.install_button.isVisible():
        return
    card.install_button.click()
    settle(app, lambda: "Collecting uv" in card.log.toPlainText() or card.log.blockCount() > 4, 120_000)
    save(app, window, f"dependencies-installing{suffix}")
    card.cancel_button.click()
    settle(app, lambda: not card.installing and not page.checking, 60_000)


def main() -> None:
    """Write every screenshot of the three pages."""
    OUT.mkdir(parents=True, exist_ok=True)
    place_configs()
    ConfigStore().mutate(lambda records: None)
    with_token = server_input("search-api")
    with_token.config.env = {"SEARCH_API_TOKEN": "secret-123"}
    fetch = server_input("fetch", trusted=False)
    fetch.config.command, fetch.config.args, fetch.config.cwd = "uvx", ["mcp-server-fetch"], None
    add_servers(server_input("basic"), server_input("brave-search"), with_token, fetch)
    app = QApplication(sys.argv)
    with live_router() as (router, _loop):
        for suffix, mode in (("", "light"), ("-dark", "dark")):
            app.setPalette(fixed_palette(mode))
            apply_theme(app)
            ini = QSettings(os.environ["ELFTIA_DATA_DIR"] + f"/w{suffix}.ini", QSettings.Format.IniFormat)
            window = MainWindow(router, ini)
            window.resize(1120, 760)
            window.show()
            shoot(app, window, suffix)
            window.close()


if __name__ == "__main__":
    main()
