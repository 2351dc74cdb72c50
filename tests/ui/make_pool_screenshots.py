"""Screenshots of the window as the pool host: the Activity page, a card "Used by …" and the quit dialog.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_pool_screenshots``.
Writes ``docs/screenshots/pool-*.png`` (light and dark, 900x600) against the real services: two
pretend apps (the SDK's client on ``elftia-mcp serve``) attach to the window's pool and call tools.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["ELFTIA_HOST_DIR"] = tempfile.mkdtemp(prefix="elftia-host-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QSettings
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from elftia_desktop.bridge.pool_host import WindowPool
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices, build_services
from elftia_desktop.ui.dialogs.quit_dialog import QuitDialog
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.pretend_app import PretendApp
from tests.ui.make_screenshots import each_theme, save, settle

OUT = Path("docs/screenshots")


async def _close(services: AppServices) -> None:
    await services.close()


def shoot(app: QApplication, window: MainWindow, suffix: str) -> None:
    """The Activity page, the servers page and the quit dialog."""
    window.show_page("activity")
    settle(app, lambda: window.activity_page.table.rowCount() == 2)
    save(app, window, f"pool-activity{suffix}")
    window.show_page("servers")
    settle(app, lambda: all(card.used_by.isVisible() for card in window.servers_page.cards.values()))
    save(app, window, f"pool-servers{suffix}")
    dialog = QuitDialog(window.router.pool.state.users, window.server_name, window)
    dialog.show()
    save(app, dialog, f"pool-quit{suffix}")
    dialog.close()


def main() -> None:
    """Write the screenshots."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light: QPalette = app.palette()
    data_dir = Path(os.environ["ELFTIA_DATA_DIR"])
    add_servers(server_input("memory", "basic"), server_input("files", "features"))
    pool = WindowPool()
    loop: ServiceLoop[AppServices] = ServiceLoop(lambda: build_services(pool))
    loop.start()
    router = McpRouter(loop, pool=pool)
    window = MainWindow(router, QSettings(str(data_dir / "window.ini"), QSettings.Format.IniFormat))
    window.resize(900, 600)
    window.show()
    settle(app, lambda: router.pool.state.hosting)
    apps = [PretendApp(data_dir, "claude-code", "2.1.4"), PretendApp(data_dir, "gemini-cli", "0.9.0")]
    try:
        apps[0].call("memory__echo", {"text": "hi"})
        apps[1].call("memory__echo", {"text": "hi"})
        apps[1].call("files__count", {"steps": 1})
        for suffix in each_theme(app, light):
            shoot(app, window, suffix)
    finally:
        for pretend in apps:
            pretend.close()
        loop.stop(cleanup=_close, timeout=30)


if __name__ == "__main__":
    main()
