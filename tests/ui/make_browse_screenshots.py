"""Screenshots of the Browse page, the bundle dialog and the update badge, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_browse_screenshots``.
Real services in a temporary data folder, the test registry of ``tests/registry`` on 127.0.0.1.
Writes ``docs/screenshots/browse*.png``, ``bundle*.png`` and ``update-badge*.png``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
os.environ.pop("SHELL", None)

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from elftia_desktop.ui.dialogs.bundle_dialog import BundleDialog
from elftia_desktop.ui.main_window import MainWindow
from elftia_desktop.ui.theme import apply_theme, fixed_palette
from tests.helpers.live_router import live_router
from tests.registry.mcpb_builder import build_bundle, sign_bundle
from tests.registry.registry_server import LocalRegistry, load_entries, serve_registry
from tests.ui.make_page_screenshots import save
from tests.ui.make_screenshots import settle

OUT = Path("docs/screenshots")


def shoot(app: QApplication, window: MainWindow, registry: LocalRegistry, suffix: str) -> None:
    """Browse with an entry's form, the bundle dialog, then the servers page with an update badge."""
    window.show_page("browse")
    page = window.browse_page
    settle(app, lambda: any(v.source == registry.url for v in page.views), 30_000)
    page.query.setText("weather")
    page.results.setCurrentRow(0)
    settle(app, lambda: page.install_button.isVisible(), 30_000)
    save(app, window, f"browse{suffix}")
    bundle = build_bundle(Path(tempfile.mkdtemp()) / "notes.mcpb")
    sign_bundle(bundle)
    page.open_bundle(str(bundle))
    settle(app, lambda: any(isinstance(w, BundleDialog) for w in page.children()), 30_000)
    dialog = next(w for w in page.children() if isinstance(w, BundleDialog))
    save(app, dialog, f"bundle{suffix}")
    dialog.reject()
    dialog.deleteLater()
    page.query.setText("server-time")
    page.results.setCurrentRow(0)
    settle(app, lambda: page.install_button.isVisible() and "2026.10.19" in page.install_button.text(), 30_000)
    installed: list[str] = []
    page.installed.connect(installed.append)
    page.install()
    settle(app, lambda: bool(installed), 30_000)
    window.show_page("servers")
    servers = window.servers_page
    settle(app, lambda: installed[0] in servers.cards and servers.cards[installed[0]].update_chip.isVisible(), 30_000)
    save(app, window, f"update-badge{suffix}")


def main() -> None:
    """Write the screenshots in both palettes."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    with serve_registry(load_entries()) as registry:
        os.environ["ELFTIA_REGISTRY_URL"] = registry.url
        newer = json.loads(json.dumps(registry.latest()["io.github.modelcontextprotocol/server-time"].server))
        for suffix, mode in (("", "light"), ("-dark", "dark")):
            os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")  # each pass installs afresh
            with live_router() as (router, _loop):
                app.setPalette(fixed_palette(mode))
                apply_theme(app)
                ini = QSettings(os.environ["ELFTIA_DATA_DIR"] + f"/w{suffix}.ini", QSettings.Format.IniFormat)
                window = MainWindow(router, ini)
                window.resize(1120, 760)
                window.show()
                registry.entries = [p for p in registry.entries if p.server["version"] != "2026.11.2"]
                shoot_with_update(app, window, registry, suffix, newer)
                window.close()


def shoot_with_update(
    app: QApplication, window: MainWindow, registry: LocalRegistry, suffix: str, newer: dict[str, object]
) -> None:
    """Publish the newer version once the older is installed, so the badge shows."""
    page = window.browse_page
    page.installed.connect(lambda _id: registry.publish(newer | {"version": "2026.11.2", "packages": _bumped(newer)}))
    shoot(app, window, registry, suffix)


def _bumped(server: dict[str, object]) -> list[dict[str, object]]:
    packages = json.loads(json.dumps(server["packages"]))
    packages[0]["version"] = "2026.11.2"
    return packages


if __name__ == "__main__":
    main()
