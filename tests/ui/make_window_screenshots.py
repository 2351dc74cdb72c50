"""Screenshots of the whole window, every page, at the default size (1040×700) and at 900×600, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_window_screenshots``.
Real services in a temporary data folder: two servers with real tool calls behind their last-call badges
(one failed), a server with a long name, one that needs trust and one that cannot start. Writes
``docs/screenshots/window-<page>-<size>-<theme>.png``, and ``servers-light.png`` / ``servers-dark.png``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.main_window import PAGES, MainWindow
from elftia_desktop.ui.theme import set_theme_mode
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.ui.make_screenshots import settle

OUT = Path("docs/screenshots")
SIZES = {"default": (1040, 700), "small": (900, 600)}


def servers() -> list[McpServerRecord]:
    """The servers the window shows (written before the services open the store)."""
    ConfigStore().mutate(lambda records: None)
    broken = server_input("Broken start", "exit3")
    return add_servers(
        server_input("Research notes and everything else it knows about the project"),
        server_input("Calculator"),
        server_input("Pasted from a chat", trusted=False),
        broken,
    )


def make_activity(app: QApplication, router: McpRouter, records: list[McpServerRecord]) -> None:
    """Real calls: an echo, a failing tool, and a server that cannot start (its card shows why)."""
    done: list[object] = []
    calls = [(records[0], "echo", {"text": "hi"}), (records[1], "fail", {"reason": "no"})]
    for record, tool, args in calls:
        router.tools.call(record.id, tool, args).then(router.signals, done.append)
    router.servers.test(records[3].id).then(router.signals, done.append, done.append)
    settle(app, lambda: len(done) == 3)


def main() -> None:
    """Write every screenshot."""
    OUT.mkdir(parents=True, exist_ok=True)
    records = servers()
    app = QApplication(sys.argv)
    with live_router() as (router, _loop):
        window = MainWindow(router, QSettings(os.environ["ELFTIA_DATA_DIR"] + "/w.ini", QSettings.Format.IniFormat))
        window.show()
        settle(app, lambda: len(window.servers_page.cards) == len(records))
        make_activity(app, router, records)
        for theme in ("light", "dark"):
            set_theme_mode(app, theme)
            for size, (width, height) in SIZES.items():
                window.resize(width, height)
                for key, _, _ in PAGES:
                    window.show_page(key)
                    settle(app, lambda: window.busy.isHidden())  # every request of the page answered
                    name = f"window-{key}-{size}-{theme}"
                    window.grab().save(str(OUT / f"{name}.png"))
                    print("wrote", OUT / f"{name}.png")
                    if key == "servers" and size == "default":
                        window.grab().save(str(OUT / f"servers-{theme}.png"))
        window.close()


if __name__ == "__main__":
    main()
